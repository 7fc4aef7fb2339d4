"""Invisible text that changes what staff read: bidi overrides, zero-width characters and other
Unicode format characters (category Cf) refused in names, companies and every single-line
field, wherever they come in (the wizard's quote request, the staff screens, the partner API).

A company typed "\\u202eCorp Evil" is displayed "liveE proC" on the dashboard and in e-mail
subjects; "Acme\\u200b" looks like "Acme" but is another company. Each test is named after the
attack and asserts the exact answer; a refusal names the field and stores nothing.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import translation

from gpuquote.core.text import format_characters_find, single_line
from quotes.models import Quote, QuoteRequest
from quotes.sales import forms as staff_forms
from quotes.sales import services
from quotes.wizard import forms as wizard_forms
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.quotes.wizard.wizard_cases import wizard_result_make
from tests.security.attack_requests import PARTNER_BODY, QUOTE, assert_problem, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

INVISIBLE = (
    "Remove the invisible formatting characters (such as a right-to-left override or a "
    "zero-width space)."
)
# One of each kind (Unicode category Cf): the bidi override, embedding and isolates (UAX #9),
# the zero-width space and joiners, the word joiner, the byte order mark, the soft hyphen and the
# Arabic letter mark.
FORMAT_CHARACTERS = [
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u202a",  # LEFT-TO-RIGHT EMBEDDING
    "\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2069",  # POP DIRECTIONAL ISOLATE
    "\u200b",  # ZERO WIDTH SPACE
    "\u200c",  # ZERO WIDTH NON-JOINER
    "\u200d",  # ZERO WIDTH JOINER
    "\u2060",  # WORD JOINER
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    "\u00ad",  # SOFT HYPHEN
    "\u061c",  # ARABIC LETTER MARK
]
SPOOFED = "\u202eCorp Evil"
CUSTOMER = {"company": "Analytical Engines SA", "contact_name": "Ada Lovelace",
            "email": "ada@example.com", "country": "fr"}  # fmt: skip
QUOTE_REQUEST = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "email": "ada@example.com",
    "country": "FR",
    "consent": "on",
}


@pytest.mark.parametrize("char", FORMAT_CHARACTERS)
def test_text_rule_finds_every_format_character(char):
    assert format_characters_find(f"Acme{char}Corp")


@pytest.mark.parametrize(
    "text", ["Zoë Ångström", "Søren O'Brien & Co", "محمد العلي", "山田太郎", "Ελληνικά ΑΕ", "Acme"]
)
def test_text_rule_keeps_names_in_every_script(text):
    assert not format_characters_find(text)


@pytest.mark.parametrize("field", ["name", "company", "vat_number"])
@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\ufeff"])
def test_wizard_quote_request_with_an_invisible_character_is_refused_and_stores_nothing(
    client, field, char
):
    result = wizard_result_make(client)

    response = client.post(
        reverse("wizard:quote_request", kwargs={"token": result.token}),
        QUOTE_REQUEST | {field: f"Acme{char}"},
    )

    assert response.status_code == 200
    assert response.context["quote_form"].errors == {field: [INVISIBLE]}
    assert QuoteRequest.objects.count() == 0


@pytest.mark.parametrize(
    ("form_class", "data", "field"),
    [
        (staff_forms.QuoteCreateForm, QUOTE, "company"),
        (staff_forms.QuoteCreateForm, QUOTE, "contact_name"),
        (staff_forms.QuoteCreateForm, QUOTE, "vat_number"),
        (staff_forms.CustomerForm, {"country": "FR"}, "vat_number"),
        (staff_forms.PartLineForm, {"quantity": "1", "discount_pct": "0"}, "sku"),
        (staff_forms.ServiceLineForm, {"kind": "service", "quantity": "1", "unit_price": "1",
                                       "recurrence": "one_off", "discount_pct": "0"},
         "description"),
        (staff_forms.CustomerAnswerForm, {"decision": "accept"}, "name"),
        (staff_forms.DashboardFilterForm, {}, "q"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("char", FORMAT_CHARACTERS)
def test_staff_and_customer_forms_refuse_format_characters(form_class, data, field, char):
    form = form_class(data=data | {field: f"Acme{char}1"})

    assert not form.is_valid()
    assert form.errors[field] == [INVISIBLE]


def test_staff_quote_with_a_bidi_override_in_the_company_is_refused_on_screen(
    client, django_user_model
):
    client.force_login(_user(django_user_model, "rep", services.REP_GROUP))

    response = client.post(reverse("sales:quote_new"), QUOTE | {"company": SPOOFED})

    assert response.status_code == 200
    assert response.context["form"].errors == {"company": [INVISIBLE]}
    assert Quote.objects.count() == 0


@pytest.mark.parametrize("field", ["company", "contact_name", "vat_number"])
@pytest.mark.parametrize("char", ["\u202e", "\u2067", "\u200d", "\ufeff"])
def test_partner_quote_with_a_format_character_is_a_400_naming_the_field(client, field, char):
    _partner, raw = partner_key()
    customer = CUSTOMER | {field: f"Acme{char}"}

    response = post_json(
        client, reverse("api:quote-list"), PARTNER_BODY | {"customer": customer}, **auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {f"customer.{field}": [INVISIBLE]}
    assert Quote.objects.count() == 0


def test_tco_configuration_gpu_model_with_a_bidi_override_is_refused(client):
    configuration = {"servers": 1, "gpus_per_server": 8, "gpu_model": SPOOFED, "power_w": 1,
                     "price": "1", "currency": "EUR", "rack_units": 2}  # fmt: skip

    response = post_json(client, "/api/v1/tco/", {"configuration": configuration})

    assert assert_problem(response, 400)["errors"] == {"configuration.gpu_model": [INVISIBLE]}


def test_catalog_filter_with_a_zero_width_space_is_refused(client):
    _partner, raw = partner_key()

    response = client.get(
        reverse("api:catalog-gpus"), {"vendor": "NVIDIA\u200b"}, headers=auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {"vendor": [INVISIBLE]}


def test_names_in_other_scripts_are_still_accepted(client):
    _partner, raw = partner_key()
    customer = CUSTOMER | {"company": "محمد العلي", "contact_name": "Zoë Ørsted"}

    response = post_json(
        client, reverse("api:quote-list"), PARTNER_BODY | {"customer": customer}, **auth(raw)
    )

    assert response.status_code == 201, response.content[:500]
    assert Quote.objects.get().company == "محمد العلي"


def test_invisible_character_message_is_translated():
    with translation.override("fr"):
        form = wizard_forms.QuoteRequestForm(data=QUOTE_REQUEST | {"company": SPOOFED})
        assert not form.is_valid()
        assert form.errors["company"] == [
            "Retirez les caractères de mise en forme invisibles (comme un forçage de droite à "
            "gauche ou une espace sans chasse)."
        ]


def test_single_line_drops_format_characters_from_stored_values():
    assert single_line("\u202eCorp\u200b Evil\ufeff") == "Corp Evil"
    assert single_line("Zoë\u00a0Ørsted") == "Zoë Ørsted"


def test_a_stored_company_with_a_bidi_override_is_not_reordered_in_the_email_subject(
    django_user_model, django_capture_on_commit_callbacks, eager_celery
):
    """Rows stored before the rule may hold one: the subject is written without it."""
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    Quote.objects.filter(pk=quote.pk).update(company=SPOOFED)
    quote.refresh_from_db()

    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)

    assert len(mail.outbox) == 1
    assert mail.outbox[0].subject.endswith("(Corp Evil)")
