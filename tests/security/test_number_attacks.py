"""Numbers that cost minutes to convert, refused by every form and API.

Each test is named after the attack and asserts the exact answer. No timing: a spy on
``int()`` (``no_huge_int``, tests/security/conftest.py) fails the test at once if a huge
value is ever converted, and the parsing rules are asserted to refuse before converting.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from gpuquote.core import numbers
from quotes.models import Quote
from quotes.sales import forms as staff_forms
from quotes.sales import services
from quotes.wizard import forms as wizard_forms
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.quotes.wizard.wizard_cases import FINE_TUNING
from tests.security.attack_requests import PARTNER_BODY, QUOTE, WORKLOAD, assert_problem, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog", "no_huge_int")]

HUGE = "1e1000000"
EXPONENT = "Write the number in full, without an exponent (such as 1e6)."
TOO_LONG = "Enter a number of at most 40 characters."


def test_number_rule_refuses_an_exponent_before_converting():
    with pytest.raises(numbers.NumberRejected) as refused:
        numbers.decimal_from_text(HUGE)
    assert refused.value.code == "exponent"


def test_number_rule_refuses_overlong_text_before_converting():
    with pytest.raises(numbers.NumberRejected) as refused:
        numbers.decimal_from_text("0." + "0" * 100_000 + "1")
    assert refused.value.code == "too_long"


def test_number_rule_compares_the_range_before_converting_to_int():
    with pytest.raises(numbers.NumberRejected) as refused:
        numbers.int_bounded(Decimal(HUGE), minimum=1, maximum=10)
    assert refused.value.code == "above"
    assert numbers.int_bounded(Decimal("7"), minimum=1, maximum=10) == 7


PROJECT = FINE_TUNING["project"] | {"nav": "next"}


@pytest.mark.parametrize("field", ["batch_size", "sequence_length", "lora_rank"])
def test_wizard_step_one_huge_exponent_is_a_form_error(client, field):
    response = client.post(
        reverse("wizard:step", kwargs={"step": "project"}), PROJECT | {field: HUGE}
    )

    assert response.status_code == 200
    assert response.context["form"].errors[field] == [EXPONENT]


def test_wizard_step_one_overlong_number_is_a_form_error(client):
    data = PROJECT | {"model": "custom", "parameters_billions": "1" * 41}
    response = client.post(reverse("wizard:step", kwargs={"step": "project"}), data)

    assert response.status_code == 200
    assert response.context["form"].errors["parameters_billions"] == [TOO_LONG]


TRAINING_PROJECT = {
    "task": "fine_tuning",
    "precision": "bf16",
    "model": "llama-3.1-8b",
    "training": {"method": "lora", "batch_size": 8, "sequence_length": 2048, "lora_rank": 16},
}


@pytest.mark.parametrize(
    ("form", "data", "field"),
    [
        ("data", {"kind": "text", "epochs": "1"}, "items"),
        ("data", {"kind": "text", "epochs": "1"}, "training_tokens"),
        ("data", {"kind": "text", "items": "100"}, "epochs"),
        ("usage", {"environment": "production", "uptime": "always_on"}, "growth_gpus"),
        ("deployment", {"deployment": "managed", "region": "FR", "currency": "EUR",
                        "utilization_pct": "70"}, "horizon_years"),
        ("deployment", {"deployment": "managed", "region": "FR", "currency": "EUR",
                        "horizon_years": "3"}, "utilization_pct"),
        ("deployment", {"deployment": "managed", "region": "FR", "currency": "EUR",
                        "horizon_years": "3", "utilization_pct": "70"}, "budget"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(
    ("raw", "message"), [(HUGE, EXPONENT), ("0." + "0" * 5000 + "1", TOO_LONG)]
)
def test_wizard_later_steps_refuse_huge_numbers(form, data, field, raw, message):
    if form == "data":
        bound = wizard_forms.DataForm(data=data | {field: raw}, project=TRAINING_PROJECT)
    else:
        bound = wizard_forms.STEP_FORMS[form](data=data | {field: raw})

    assert not bound.is_valid()
    assert bound.errors[field] == [message]


@pytest.mark.parametrize(
    ("form_class", "data", "field"),
    [
        (staff_forms.PartLineForm, {"sku": "GPU-H100", "discount_pct": "0"}, "quantity"),
        (staff_forms.PartLineForm, {"sku": "GPU-H100", "quantity": "1"}, "discount_pct"),
        (staff_forms.ServiceLineForm, {"kind": "service", "description": "Setup", "quantity": "1",
                                       "recurrence": "one_off", "discount_pct": "0"}, "unit_price"),
        (staff_forms.LineUpdateForm, {"position": "1", "discount_pct": "0"}, "quantity"),
        (staff_forms.LineUpdateForm, {"quantity": "1", "discount_pct": "0"}, "position"),
        (staff_forms.TermsForm, {"valid_until": "2030-01-01", "contract_months": "12"},
         "discount_pct"),
        (staff_forms.TermsForm, {"valid_until": "2030-01-01", "discount_pct": "0"},
         "contract_months"),
        (staff_forms.QuoteCreateForm, QUOTE, "exchange_rate"),
        (staff_forms.WorkloadForm, {"task": "inference", "environment": "production",
                                    "growth_gpus": "0"}, "parameters_billions"),
        (staff_forms.WorkloadForm, {"task": "inference", "environment": "production",
                                    "model": "llama-3.1-8b"}, "growth_gpus"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(("raw", "message"), [(HUGE, EXPONENT), ("9" * 5000, TOO_LONG)])
def test_staff_forms_refuse_huge_numbers(form_class, data, field, raw, message):
    form = form_class(data=data | {field: raw})

    assert not form.is_valid()
    assert form.errors[field] == [message]


def test_staff_discount_with_exponent_is_refused_on_screen(client, django_user_model):
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    client.force_login(rep)
    before = quote.current_revision.discount_pct

    client.post(
        reverse("sales:terms_update", args=[quote.pk]),
        {"discount_pct": HUGE, "valid_until": "2030-01-01", "contract_months": "12"},
    )

    quote.refresh_from_db()
    assert quote.current_revision.discount_pct == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/configurations/", {"workload": WORKLOAD, "environment": "production",
                                     "budget": HUGE}, "budget"),
        ("/api/v1/configurations/", {"workload": WORKLOAD, "environment": "production",
                                     "growth_gpus": HUGE}, "growth_gpus"),
        ("/api/v1/tco/", {"workload": WORKLOAD, "horizon_years": HUGE}, "horizon_years"),
        ("/api/v1/tco/", {"workload": WORKLOAD, "utilization": HUGE}, "utilization"),
        ("/api/v1/tco/", {"workload": WORKLOAD, "pue": HUGE}, "pue"),
        ("/api/v1/tco/", {"configuration": {"servers": HUGE, "gpus_per_server": 8, "power_w": 1,
                                            "price": "1", "currency": "EUR", "rack_units": 2}},
         "configuration.servers"),
        ("/api/v1/sizing/", WORKLOAD | {"gpus": HUGE}, "gpus"),
    ],
)  # fmt: skip
def test_api_bodies_refuse_numbers_with_exponents(client, path, body, field):
    problem = assert_problem(post_json(client, path, body), 400)

    assert problem["errors"] == {field: [EXPONENT]}


@pytest.mark.parametrize("field", ["utilization_pct", "budget", "growth_gpus", "horizon_years"])
def test_partner_quote_refuses_numbers_with_exponents(client, field):
    _partner, raw = partner_key()

    response = post_json(
        client, reverse("api:quote-list"), PARTNER_BODY | {field: HUGE}, **auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {field: [EXPONENT]}
    assert Quote.objects.count() == 0


def test_api_refuses_an_overlong_json_integer_literal(client):
    body = '{"task": "inference", "parameters_billions": 1%s}' % ("0" * 4200)

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 400)

    assert problem["errors"] == {"parameters_billions": [TOO_LONG]}


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"min_memory_gb": HUGE}, "min_memory_gb", EXPONENT),
        ({"min_memory_gb": "9" * 5000}, "min_memory_gb", TOO_LONG),
        ({"page": HUGE}, "page", EXPONENT),
        ({"page": "9" * 5000}, "page", TOO_LONG),
        ({"page_size": HUGE}, "page_size", EXPONENT),
        ({"page_size": "9" * 5000}, "page_size", TOO_LONG),
    ],
)
def test_api_query_parameters_refuse_huge_numbers(client, query, field, message):
    _partner, raw = partner_key()

    response = client.get(reverse("api:catalog-gpus"), query, headers=auth(raw))

    assert assert_problem(response, 400)["errors"] == {field: [message]}


def test_partner_quote_list_refuses_a_huge_page(client):
    _partner, raw = partner_key()

    response = client.get(reverse("api:quote-list"), {"page": HUGE}, headers=auth(raw))

    assert assert_problem(response, 400)["errors"] == {"page": [EXPONENT]}


# --- Digits other than 0-9: int() and Decimal() read "５１２" and "١٢" as numbers -------------

DIGITS = "Write the number with the digits 0 to 9 only."
# Fullwidth (U+FF10-FF19), Arabic-Indic (U+0660-0669), Devanagari (U+0966-096F), mathematical
# bold (U+1D7CE-1D7D7): Unicode decimal digits (category Nd) Python converts like 0-9.
FOREIGN_DIGITS = ["５１２", "١٢", "४", "𝟖", "1５", "٣.٥"]


@pytest.mark.parametrize("raw", FOREIGN_DIGITS)
def test_number_rule_refuses_digits_other_than_ascii(raw):
    assert Decimal(raw)  # the bug: Python reads them

    with pytest.raises(numbers.NumberRejected) as refused:
        numbers.decimal_from_text(raw)

    assert refused.value.code == "digits"


def test_number_rule_keeps_ascii_numbers_and_the_wizards_spacing():
    assert numbers.decimal_from_text("512") == Decimal(512)
    assert numbers.number_text_check("1\u202f000,5") == "1\u202f000,5"  # French grouping


@pytest.mark.parametrize("raw", ["５１２", "١٢"])
def test_wizard_step_one_foreign_digits_are_a_form_error(client, raw):
    response = client.post(
        reverse("wizard:step", kwargs={"step": "project"}), PROJECT | {"batch_size": raw}
    )

    assert response.status_code == 200
    assert response.context["form"].errors["batch_size"] == [DIGITS]


@pytest.mark.parametrize(
    ("form_class", "data", "field"),
    [
        (staff_forms.PartLineForm, {"sku": "GPU-H100", "discount_pct": "0"}, "quantity"),
        (staff_forms.LineUpdateForm, {"position": "1", "discount_pct": "0"}, "quantity"),
        (staff_forms.TermsForm, {"valid_until": "2030-01-01", "contract_months": "12"},
         "discount_pct"),
        (staff_forms.TermsForm, {"valid_until": "2030-01-01", "discount_pct": "0"},
         "contract_months"),
        (staff_forms.QuoteCreateForm, QUOTE, "exchange_rate"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("raw", ["５", "١٢"])
def test_staff_forms_refuse_foreign_digits(form_class, data, field, raw):
    form = form_class(data=data | {field: raw})

    assert not form.is_valid()
    assert form.errors[field] == [DIGITS]


@pytest.mark.parametrize("field", ["utilization_pct", "budget", "growth_gpus", "horizon_years"])
def test_partner_quote_refuses_foreign_digits_in_number_strings(client, field):
    _partner, raw = partner_key()

    response = post_json(
        client, reverse("api:quote-list"), PARTNER_BODY | {field: "٥"}, **auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {field: [DIGITS]}
    assert Quote.objects.count() == 0


def test_api_query_parameters_refuse_foreign_digits(client):
    _partner, raw = partner_key()

    response = client.get(
        reverse("api:catalog-gpus"), {"min_memory_gb": "８０", "page": "１"}, headers=auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {"min_memory_gb": [DIGITS]}


def test_api_page_number_refuses_foreign_digits(client):
    _partner, raw = partner_key()

    response = client.get(reverse("api:quote-list"), {"page": "١"}, headers=auth(raw))

    assert assert_problem(response, 400)["errors"] == {"page": [DIGITS]}
