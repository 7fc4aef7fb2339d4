"""Text that smuggles e-mail headers: control characters refused in every
single-line field, and e-mails written as plain text.

Each test is named after the attack and asserts the exact answer.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from gpuquote.core.text import control_characters_find
from quotes.models import Quote
from quotes.sales import forms as staff_forms
from quotes.sales import services
from quotes.wizard import forms as wizard_forms
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.security.attack_requests import PARTNER_BODY, QUOTE, assert_problem, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog", "no_huge_int")]

SINGLE_LINE = "Enter a single line of text, without line breaks, tabs or other control characters."
MULTI_LINE = "Remove the control characters: only line breaks and tabs are allowed."


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

    response = post_json(
        client, reverse("api:quote-list"), PARTNER_BODY | {"customer": customer}, **auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {f"customer.{field}": [SINGLE_LINE]}
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

    response = post_json(
        client, "/api/v1/webhooks/", {"url": "https://hooks.example.com/\nX: y"}, **auth(raw)
    )

    assert assert_problem(response, 400)["errors"] == {"url": [SINGLE_LINE]}


def test_catalog_filter_with_control_characters_is_refused(client):
    _partner, raw = partner_key()

    response = client.get(reverse("api:catalog-gpus"), {"vendor": "NVIDIA\x07"}, headers=auth(raw))

    assert assert_problem(response, 400)["errors"] == {"vendor": [SINGLE_LINE]}


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
            reverse("sales:quote_public", args=[quote.token]),
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


def test_a_client_cannot_choose_the_server_request_id(client):
    chosen = "310cc99fc44345de85a722c4b7760f86"  # e.g. another request's id, to blur the logs

    first = client.get("/livez", headers={"X-Request-ID": chosen})
    second = client.get("/livez", headers={"X-Request-ID": chosen})

    assert first["X-Request-ID"] != chosen
    assert second["X-Request-ID"] not in (chosen, first["X-Request-ID"])
    assert first["X-Client-Request-ID"] == second["X-Client-Request-ID"] == chosen
