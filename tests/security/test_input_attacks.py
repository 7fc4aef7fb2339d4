"""Attacks through the input itself (issue 12, items 1, 8 and 9): numbers that cost minutes to
convert, JSON that exhausts the parser, text that smuggles e-mail headers.

Each test is named after the attack and asserts the exact answer. No timing: a spy on ``int()``
fails the test at once if a huge value is ever converted, and the parsing rules are asserted to
refuse before converting.
"""

from __future__ import annotations

import builtins
import json
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from gpuquote.core import numbers
from gpuquote.core.text import control_characters_find
from quotes.models import Quote
from quotes.sales import forms as staff_forms
from quotes.sales import services
from quotes.wizard import forms as wizard_forms
from quotes.wizard.forms import fields as wizard_fields
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.quotes.wizard.wizard_cases import FINE_TUNING

pytestmark = pytest.mark.django_db

HUGE = "1e1000000"
EXPONENT = "Write the number in full, without an exponent (such as 1e6)."
TOO_LONG = "Enter a number of at most 40 characters."
SINGLE_LINE = "Enter a single line of text, without line breaks, tabs or other control characters."
MULTI_LINE = "Remove the control characters: only line breaks and tabs are allowed."
PROBLEM = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "message", "errors"}


@pytest.fixture(autouse=True)
def catalog():
    call_command("load_catalog", stdout=StringIO())


class _IntSpyMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, builtins.int)


class _IntSpy(builtins.int, metaclass=_IntSpyMeta):
    """``int`` that refuses, loudly and at once, to convert a huge Decimal (the 50 s attack)."""

    def __new__(cls, value: Any = 0, *args: Any) -> int:  # type: ignore[misc]
        if isinstance(value, Decimal) and value.is_finite() and value and value.adjusted() > 60:
            raise AssertionError(f"int() of a Decimal of {value.adjusted() + 1} digits")
        return builtins.int(value, *args)


@pytest.fixture(autouse=True)
def no_huge_int(monkeypatch):
    """Every module that turns parsed numbers into ints uses the spy instead of the builtin."""
    for module in (wizard_fields, numbers):
        monkeypatch.setattr(module, "int", _IntSpy, raising=False)


def _problem(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert set(body) == PROBLEM_KEYS
    assert body["status"] == status
    return body


# --- 1. Numbers that take minutes to convert ---------------------------------------------------


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


QUOTE = {"company": "Initech", "contact_name": "Peter", "email": "p@initech.example",
         "country": "FR", "language": "en", "currency": "EUR"}  # fmt: skip


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
        reverse("wizard:staff:terms", args=[quote.pk]),
        {"discount_pct": HUGE, "valid_until": "2030-01-01", "contract_months": "12"},
    )

    quote.refresh_from_db()
    assert quote.current_revision.discount_pct == before


def _post(client, path: str, body: Any, **headers: str):
    return client.post(path, body, content_type="application/json", headers=headers)


WORKLOAD = {"task": "inference", "model": "llama-3.1-8b"}


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
    problem = _problem(_post(client, path, body), 400)

    assert problem["errors"] == {field: [EXPONENT]}


PARTNER_BODY = {
    "customer": {"company": "Analytical Engines SA", "contact_name": "Ada Lovelace",
                 "email": "ada@example.com", "country": "fr"},
    "workload": WORKLOAD,
    "environment": "production",
    "deployment": "managed",
}  # fmt: skip


@pytest.mark.parametrize("field", ["utilization_pct", "budget", "growth_gpus", "horizon_years"])
def test_partner_quote_refuses_numbers_with_exponents(client, field):
    _partner, raw = partner_key()

    response = _post(client, reverse("api:quote-list"), PARTNER_BODY | {field: HUGE}, **auth(raw))

    assert _problem(response, 400)["errors"] == {field: [EXPONENT]}
    assert Quote.objects.count() == 0


def test_api_refuses_an_overlong_json_integer_literal(client):
    body = '{"task": "inference", "parameters_billions": 1%s}' % ("0" * 4200)

    problem = _problem(_post(client, "/api/v1/sizing/", body), 400)

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

    assert _problem(response, 400)["errors"] == {field: [message]}


def test_partner_quote_list_refuses_a_huge_page(client):
    _partner, raw = partner_key()

    response = client.get(reverse("api:quote-list"), {"page": HUGE}, headers=auth(raw))

    assert _problem(response, 400)["errors"] == {"page": [EXPONENT]}


# --- 8. JSON that exhausts the parser ----------------------------------------------------------


def test_json_nested_ten_thousand_levels_is_a_400(client):
    body = "[" * 10_000 + "]" * 10_000

    problem = _problem(_post(client, "/api/v1/sizing/", body), 400)

    assert problem["detail"] == "The JSON body is nested more than 32 levels deep."
    assert problem["errors"] == {}


def test_json_nested_just_too_deep_is_a_400(client):
    body = {"task": "inference"}
    for _level in range(40):
        body = {"a": body}

    problem = _problem(_post(client, "/api/v1/sizing/", body), 400)

    assert problem["detail"] == "The JSON body is nested more than 32 levels deep."


def test_json_lone_surrogate_is_refused_naming_the_field(client):
    _partner, raw = partner_key()
    body = json.dumps(PARTNER_BODY).replace("Ada Lovelace", "Ada \\ud800")

    response = _post(client, reverse("api:quote-list"), body, **auth(raw))

    assert _problem(response, 400)["errors"] == {
        "customer.contact_name": ["Contains an invalid character (a lone UTF-16 surrogate)."]
    }
    assert Quote.objects.count() == 0


def test_json_lone_surrogate_in_a_key_is_refused(client):
    body = '{"task": "inference", "\\udfff": 1}'

    problem = _problem(_post(client, "/api/v1/sizing/", body), 400)

    assert problem["errors"] == {
        "non_field_errors": ["Contains an invalid character (a lone UTF-16 surrogate)."]
    }


def test_json_two_hundred_thousand_keys_are_refused_before_validation(
    client, monkeypatch, settings
):
    from quotes.api import calculators as api_views

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000_000  # the body is 3.3 MB: under the limit

    def must_not_run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("validation ran on an oversized body")

    monkeypatch.setattr(api_views, "workload_parse", must_not_run, raising=False)
    body = json.dumps({"task": "inference"} | {f"k{i}": 1 for i in range(200_000)})

    response = _post(client, "/api/v1/sizing/", body)

    problem = _problem(response, 400)
    assert problem["detail"] == "The JSON body has more than 1000 keys."
    assert len(response.content) < 1000


def test_many_unknown_fields_report_the_first_twenty_and_a_count(client):
    body = {"task": "inference", "model": "llama-3.1-8b"} | {f"extra{i:03}": 1 for i in range(300)}

    problem = _problem(_post(client, "/api/v1/sizing/", body), 400)

    assert len(problem["errors"]) == 20
    assert list(problem["errors"])[:2] == ["extra000", "extra001"]
    assert problem["detail"] == "The request has invalid fields: the first 20 of 300 are listed."


def test_oversized_json_body_is_a_413_problem(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps(WORKLOAD | {"model": "x" * 20_000})

    problem = _problem(_post(client, "/api/v1/sizing/", body), 413)

    assert problem["detail"] == "The request body is larger than 10000 bytes."
    assert problem["type"] == "https://gpuquote.example/problems/payload-too-large"


def test_oversized_form_body_on_the_api_is_a_413_problem(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000

    response = client.post("/api/v1/sizing/", {"task": "x" * 20_000})

    assert _problem(response, 413)["detail"] == "The request body is larger than 10000 bytes."


def test_api_errors_carry_the_problem_content_type(client):
    _problem(client.get("/api/v1/no-such-thing/"), 404)
    _problem(client.post("/api/v1/quotes/", {}, content_type="application/json"), 401)
    _problem(client.post("/api/v1/sizing/", "{", content_type="application/json"), 400)


# --- 9. Header injection and e-mail text -------------------------------------------------------


def test_text_rule_finds_control_characters():
    assert control_characters_find("Evil Corp\nBcc: x@evil.test", multiline=False)
    assert control_characters_find("Evil\u0085Corp", multiline=False)
    assert not control_characters_find("Line one\n\tLine two", multiline=True)
    assert control_characters_find("Line\x00", multiline=True)
    assert not control_characters_find("O'Brien & Søn", multiline=False)


@pytest.mark.parametrize("field", ["company", "contact_name", "vat_number"])
def test_partner_quote_with_header_injection_is_refused(client, field):
    _partner, raw = partner_key()
    customer = PARTNER_BODY["customer"] | {field: "Evil\nBcc: x@e.t"}

    response = _post(
        client, reverse("api:quote-list"), PARTNER_BODY | {"customer": customer}, **auth(raw)
    )

    assert _problem(response, 400)["errors"] == {f"customer.{field}": [SINGLE_LINE]}
    assert Quote.objects.count() == 0


@pytest.mark.parametrize("field", ["name", "company"])
def test_wizard_quote_request_with_header_injection_is_refused(field):
    data = {"name": "Ada", "company": "Initech", "email": "a@initech.example", "country": "FR",
            "consent": "on"}  # fmt: skip
    form = wizard_forms.QuoteRequestForm(data=data | {field: "Evil Corp\r\nBcc: x@evil.test"})

    assert not form.is_valid()
    assert form.errors[field] == [SINGLE_LINE]


def test_wizard_quote_request_message_keeps_line_breaks_but_not_nul():
    data = {"name": "Ada", "company": "Initech", "email": "a@initech.example", "country": "FR",
            "consent": "on"}  # fmt: skip
    assert wizard_forms.QuoteRequestForm(data=data | {"message": "Hi,\n\tthanks"}).is_valid()
    form = wizard_forms.QuoteRequestForm(data=data | {"message": "Hi\x07"})
    assert form.errors["message"] == [MULTI_LINE]


@pytest.mark.parametrize(
    ("form_class", "data", "field"),
    [
        (staff_forms.QuoteCreateForm, QUOTE, "company"),
        (staff_forms.QuoteCreateForm, QUOTE, "contact_name"),
        (staff_forms.QuoteCreateForm, QUOTE, "vat_number"),
        (staff_forms.ServiceLineForm, {"kind": "service", "quantity": "1", "unit_price": "1",
                                       "recurrence": "one_off", "discount_pct": "0"},
         "description"),
        (staff_forms.CustomerAnswerForm, {"decision": "accept"}, "name"),
    ],
)  # fmt: skip
def test_staff_and_customer_forms_refuse_control_characters(form_class, data, field):
    form = form_class(data=data | {field: "Evil\nBcc: x@e.t"})

    assert not form.is_valid()
    assert form.errors[field] == [SINGLE_LINE]


def test_webhook_url_with_a_line_break_is_refused(client):
    _partner, raw = partner_key()

    response = _post(
        client, "/api/v1/webhooks/", {"url": "https://hooks.example.com/\nX: y"}, **auth(raw)
    )

    assert _problem(response, 400)["errors"] == {"url": [SINGLE_LINE]}


def test_catalog_filter_with_control_characters_is_refused(client):
    _partner, raw = partner_key()

    response = client.get(reverse("api:catalog-gpus"), {"vendor": "NVIDIA\x07"}, headers=auth(raw))

    assert _problem(response, 400)["errors"] == {"vendor": [SINGLE_LINE]}


def test_quote_email_is_plain_text_not_html_escaped(
    django_user_model, django_capture_on_commit_callbacks, eager_celery
):
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    Quote.objects.filter(pk=quote.pk).update(contact_name="Seán O'Brien & Co <ops>")
    quote.refresh_from_db()

    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)

    assert len(mail.outbox) == 1
    assert mail.outbox[0].body.startswith("Hello Seán O'Brien & Co <ops>,\n")


def test_answer_notification_is_plain_text_not_html_escaped(
    client, django_user_model, django_capture_on_commit_callbacks, settings, eager_celery
):
    settings.SALES_NOTIFICATION_EMAIL = "sales@example.com"
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    Quote.objects.filter(pk=quote.pk).update(company="O'Brien Ltd")
    quote.refresh_from_db()
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("wizard:staff:public", args=[quote.token]),
            {"name": "Pat O'Brien", "decision": "accept", "reason": 'Fine & "good"'},
        )

    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    assert body.startswith("Pat O'Brien (O'Brien Ltd) accepted quote ")
    assert 'Comment: Fine & "good"' in body


def test_a_stored_company_with_a_line_break_cannot_leave_a_quote_sent_without_email(
    django_user_model, django_capture_on_commit_callbacks, eager_celery
):
    """Old rows may still hold a line break: the subject is made one line, the e-mail goes."""
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    Quote.objects.filter(pk=quote.pk).update(company="Evil Corp\nBcc: x@evil.test")
    quote.refresh_from_db()

    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)

    assert len(mail.outbox) == 1
    assert "\n" not in mail.outbox[0].subject
    assert mail.outbox[0].subject.endswith("(Evil Corp Bcc: x@evil.test)")
    assert mail.outbox[0].bcc == []
