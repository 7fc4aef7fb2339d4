"""Attacks on the VAT: a made-up country taxed as an export, a made-up VAT number granted the
reverse charge.

A customer's country is an ISO 3166-1 alpha-2 code that django-countries knows, and a VAT number
of a member state has that state's prefix and right check digits (python-stdnum), wherever they
come in: the wizard's quote request, the staff screens, the partner API and the services the VAT
computation reads from. Each refusal names the field, and nothing is stored.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from engine.commerce import vat
from engine.commerce.vat import VatRegime, standard_rate_pct, vat_treatment
from engine.i18n import Message
from quotes.advice.presenters import localized_text
from quotes.models import Quote, QuoteRequest
from quotes.sales import forms as staff_forms
from quotes.sales import services
from quotes.sales.selectors import revision_totals_get
from quotes.wizard import forms as wizard_forms
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.quotes.wizard.wizard_cases import wizard_result_make

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "message", "errors"}
NOT_A_COUNTRY = "“ZZ” is not an ISO 3166-1 country code (such as FR or DE)."
BAD_GERMAN_VAT = (
    "This VAT number is not valid for Germany: it must start with DE and its check digits "
    "must be right."
)
VALID_GERMAN_VAT = "DE136695976"  # python-stdnum's own example (stdnum.de.vat)
WRONG_CHECK_DIGIT = "DE136695978"  # the same number, last digit changed
QUOTE_REQUEST = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "email": "ada@example.com",
    "country": "FR",
    "consent": "on",
}
STAFF_QUOTE = {
    "company": "Initech",
    "contact_name": "Peter Gibbons",
    "email": "peter@initech.example",
    "country": "DE",
    "vat_number": VALID_GERMAN_VAT,
    "is_business": "on",
    "language": "en",
    "currency": "EUR",
}
PARTNER_BODY = {
    "customer": {
        "company": "Analytical Engines SA",
        "contact_name": "Ada Lovelace",
        "email": "ada@example.com",
        "country": "de",
        "vat_number": VALID_GERMAN_VAT,
    },
    "workload": {"task": "inference", "model": "llama-3.1-8b"},
    "environment": "production",
    "deployment": "managed",
}


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _problem(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert set(body) == PROBLEM_KEYS
    assert body["status"] == status
    return body


def _partner_quote(client, customer: dict[str, Any]):
    _partner, raw = partner_key()
    body = PARTNER_BODY | {"customer": PARTNER_BODY["customer"] | customer}
    return client.post(
        reverse("api:quote-list"), body, content_type="application/json", headers=auth(raw)
    )


# --- A made-up country, taxed as an export ------------------------------------------------------


def test_wizard_quote_request_from_country_zz_is_refused_and_stores_nothing(client):
    result = wizard_result_make(client)

    response = client.post(
        reverse("wizard:quote_request", kwargs={"token": result.token}),
        QUOTE_REQUEST | {"country": "ZZ"},
    )

    assert response.status_code == 200
    assert response.context["quote_form"].errors == {"country": [NOT_A_COUNTRY]}
    assert QuoteRequest.objects.count() == 0


def test_wizard_quote_request_lists_every_country_by_its_translated_name():
    with translation.override("fr"):
        choices = dict(wizard_forms.QuoteRequestForm().fields["country"].choices)

    assert choices["DE"] == "Allemagne"
    assert choices["JP"] == "Japon"  # not only the countries the old hand-made list had
    assert "ZZ" not in choices
    assert len(choices) > 240


def test_staff_quote_for_country_zz_is_refused_and_stores_nothing(client, rep):
    client.force_login(rep)

    response = client.post(
        reverse("sales:quote_new"), STAFF_QUOTE | {"country": "ZZ", "vat_number": ""}
    )

    assert response.status_code == 200
    assert response.context["form"].errors == {"country": [NOT_A_COUNTRY]}
    assert Quote.objects.count() == 0


def test_staff_form_accepts_a_lower_case_code_and_cleans_it_to_the_iso_code():
    form = staff_forms.QuoteCreateForm(data=STAFF_QUOTE | {"country": "de"})

    assert form.is_valid(), form.errors
    assert form.cleaned_data["country"] == "DE"


def test_partner_quote_for_country_zz_is_a_400_naming_country_and_stores_nothing(client):
    response = _partner_quote(client, {"country": "ZZ", "vat_number": ""})

    assert _problem(response, 400)["errors"] == {"customer.country": [NOT_A_COUNTRY]}
    assert Quote.objects.count() == 0


@pytest.mark.parametrize("country", ["DEU", "Germany", "276", "EL", "UK"])
def test_partner_quote_accepts_only_alpha_2_codes(client, country):
    response = _partner_quote(client, {"country": country, "vat_number": ""})

    assert _problem(response, 400)["errors"] == {
        "customer.country": [
            f"“{country.upper()}” is not an ISO 3166-1 country code (such as FR or DE)."
        ]
    }
    assert Quote.objects.count() == 0


def test_partner_quote_keeps_returning_the_alpha_2_code(client):
    response = _partner_quote(client, {"country": "de"})

    assert response.status_code == 201, response.content[:500]
    body = response.json()
    assert body["customer"]["country"] == "DE"
    assert body["totals"]["vat_regime"] == "reverse_charge"  # a real German number


def test_service_refuses_country_zz_so_the_vat_never_sees_it(rep):
    with pytest.raises(ValidationError) as refused:
        quote_make(rep, country="ZZ")

    assert refused.value.message_dict == {"country": [NOT_A_COUNTRY]}
    assert Quote.objects.count() == 0


def test_service_refuses_changing_the_customer_to_country_zz(rep):
    quote = quote_make(rep, country="FR")

    with pytest.raises(ValidationError) as refused:
        services.quote_customer_update(user=rep, quote=quote, country="ZZ")

    assert refused.value.message_dict == {"country": [NOT_A_COUNTRY]}
    quote.refresh_from_db()
    assert quote.country == "FR"


# --- A VAT number with a wrong check digit, granted the reverse charge ----------------------------


def test_staff_quote_with_a_wrong_vat_check_digit_is_refused_and_stores_nothing(client, rep):
    client.force_login(rep)

    response = client.post(
        reverse("sales:quote_new"), STAFF_QUOTE | {"vat_number": WRONG_CHECK_DIGIT}
    )

    assert response.status_code == 200
    assert response.context["form"].errors == {"vat_number": [BAD_GERMAN_VAT]}
    assert Quote.objects.count() == 0


def test_staff_vat_message_is_translated():
    with translation.override("fr"):
        form = staff_forms.QuoteCreateForm(data=STAFF_QUOTE | {"vat_number": WRONG_CHECK_DIGIT})
        assert not form.is_valid()
        assert form.errors["vat_number"] == [
            "Ce numéro de TVA n’est pas valable (pays : Allemagne) : il doit commencer par DE "
            "et ses chiffres de contrôle doivent être justes."
        ]


def test_partner_quote_with_a_wrong_vat_check_digit_is_a_400_naming_the_field(client):
    response = _partner_quote(client, {"vat_number": WRONG_CHECK_DIGIT})

    assert _problem(response, 400)["errors"] == {"customer.vat_number": [BAD_GERMAN_VAT]}
    assert Quote.objects.count() == 0


def test_another_member_states_valid_number_is_refused_for_germany(client):
    response = _partner_quote(client, {"vat_number": "FR40303265045"})  # valid, but French

    assert _problem(response, 400)["errors"] == {"customer.vat_number": [BAD_GERMAN_VAT]}
    assert Quote.objects.count() == 0


def test_service_refuses_a_wrong_vat_check_digit(rep):
    with pytest.raises(ValidationError) as refused:
        quote_make(rep, country="DE", vat_number=WRONG_CHECK_DIGIT)

    assert refused.value.message_dict == {"vat_number": [BAD_GERMAN_VAT]}
    assert Quote.objects.count() == 0


def test_valid_number_typed_with_spaces_gets_the_reverse_charge(client, rep):
    client.force_login(rep)

    response = client.post(
        reverse("sales:quote_new"), STAFF_QUOTE | {"vat_number": "de 136 695 976"}
    )

    assert response.status_code == 302
    quote = Quote.objects.get()
    assert quote.vat_number == VALID_GERMAN_VAT


def test_outside_the_eu_any_vat_number_is_kept_as_before(client):
    response = _partner_quote(client, {"country": "US", "vat_number": "12-3456789"})

    assert response.status_code == 201, response.content[:500]
    assert response.json()["customer"]["vat_number"] == "12-3456789"


# --- Territories: Monaco billed as an export, overseas departments billed French VAT -----------
#
# Council Directive 2006/112/EC: article 7(2) treats Monaco as France and the Isle of Man as the
# United Kingdom; article 6(1) excludes the French territories of article 349 TFEU and Åland
# from the territory of EU VAT.

OUTSIDE_VAT_TERRITORY_NOTE = (
    "Export: the customer's territory is part of the European Union but outside the territory "
    "of EU VAT (article 6 of Council Directive 2006/112/EC); goods shipped there are exempt "
    "(article 146). No French VAT charged; local taxes are the customer's."
)
MONEGASQUE_VAT = "FR53000004605"  # python-stdnum's own example (stdnum.mc.tva)
BAD_MONEGASQUE_VAT = (
    "This VAT number is not valid for Monaco: it must start with FR and its check digits "
    "must be right."
)


@pytest.mark.parametrize(
    ("is_business", "vat_number"), [(True, ""), (True, MONEGASQUE_VAT), (False, "")]
)
def test_monaco_customer_is_billed_french_vat_like_france(client, is_business, vat_number):
    response = _partner_quote(
        client, {"country": "MC", "vat_number": vat_number, "is_business": is_business}
    )

    assert response.status_code == 201, response.content[:500]
    totals = response.json()["totals"]
    assert (totals["vat_regime"], totals["vat_rate_pct"]) == ("domestic", "20")
    assert Quote.objects.get().vat_number == vat_number


def test_monaco_customer_on_the_staff_screen_is_billed_french_vat(rep):
    quote = quote_make(rep, country="MC", vat_number="fr 53 0000 04605")

    assert quote.vat_number == MONEGASQUE_VAT
    totals = revision_totals_get(quote=quote, revision=quote.current_revision)
    assert (totals.vat_regime, totals.vat_rate_pct) == (VatRegime.DOMESTIC, Decimal(20))
    assert totals.vat_note is None


@pytest.mark.parametrize(
    "vat_number",
    [
        "FR40303265045",  # a valid French number, but of a French (SIREN) company
        "FR54000004605",  # the Monegasque example, check digits changed
        "MC53000004605",  # no such prefix: Monaco's numbers are French ones
    ],
)
def test_monaco_vat_number_is_checked_as_a_french_one(client, vat_number):
    response = _partner_quote(client, {"country": "MC", "vat_number": vat_number})

    assert _problem(response, 400)["errors"] == {"customer.vat_number": [BAD_MONEGASQUE_VAT]}
    assert Quote.objects.count() == 0


@pytest.mark.parametrize("country", ["GP", "GF", "MQ", "RE", "YT", "MF", "AX"])
def test_territory_outside_eu_vat_is_an_export_with_its_own_mention(country):
    treatment = vat_treatment(
        customer_country=country,
        is_business=True,
        vat_number="FR40303265045",
        supplies_goods=True,
        supplies_services=True,
    )

    assert (treatment.regime, treatment.rate_pct) == (VatRegime.EXPORT, Decimal(0))
    assert treatment.note is not None
    assert treatment.note.render() == OUTSIDE_VAT_TERRITORY_NOTE


def test_reunion_customer_through_the_api_is_billed_no_french_vat(client):
    response = _partner_quote(client, {"country": "RE", "vat_number": "FR40303265045"})

    assert response.status_code == 201, response.content[:500]
    totals = response.json()["totals"]
    assert (totals["vat_regime"], totals["vat_rate_pct"]) == ("export", "0")


@pytest.mark.parametrize(("country", "rate"), [("MC", 20), ("IM", 0), ("GP", 0), ("AX", 0)])
def test_standard_rate_follows_the_vat_territory(country, rate):
    assert standard_rate_pct(country) == Decimal(rate)


def test_isle_of_man_is_treated_as_the_united_kingdom_an_export():
    def treated(country: str):
        return vat_treatment(
            customer_country=country,
            is_business=True,
            vat_number=None,
            supplies_goods=False,
            supplies_services=True,
        )

    assert treated("IM") == treated("GB")
    assert treated("IM").regime == VatRegime.EXPORT


def test_outside_vat_territory_mention_is_translated():
    with translation.override("fr"):
        note = localized_text(Message(vat._OUTSIDE_VAT_TERRITORY_NOTE))

    assert note.startswith("Export : le territoire du client fait partie de l’Union européenne")
