"""Quote requests from the wizard, on the sales side: the staff e-mail (once per request), the
VAT number carried into the quote (reverse charge for an EU business), and what the dashboard
shows of each request."""

from __future__ import annotations

import dataclasses
import io
import re
import smtplib
from decimal import Decimal
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse
from pypdf import PdfReader

from engine.advice.pipeline import tco_configuration
from engine.assumptions import region_defaults
from engine.build.builder import BuildResult
from engine.tco import managed_offer
from quotes.models import OutboxJob, QuoteRequest
from quotes.pdf.quote import quote_pdf_render
from quotes.sales import services
from quotes.sales.request_summary import quote_request_summary_get
from quotes.sales.selectors import revision_totals_get
from quotes.wizard.forms import QuoteRequestForm
from quotes.wizard.services import quote_request_create
from tests.factories import advice_result_build, stored_result_make
from tests.quotes.sales.test_quote_services import _user

pytestmark = pytest.mark.django_db

GERMAN_VAT = "DE136491529"  # made up; its check digit is right (ISO 7064 MOD 11,10)
DASHBOARD = reverse("sales:dashboard")


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def sales_inbox(settings):
    settings.SALES_NOTIFICATION_EMAIL = "sales@example.com"
    settings.SITE_URL = "https://quotes.example.com/"


def _request(result=None, **overrides: Any):
    values: dict[str, Any] = {
        "name": "Ada Lovelace",
        "company": "Analytical Engines GmbH",
        "email": "Ada@Example.com",
        "country": "DE",
        "consent": True,
        "message": "Rack space in Frankfurt, please.",
        "vat_number": "de 136 491 529",
    }
    return quote_request_create(
        result=result or stored_result_make(advice=advice_result_build(deployment="on_premises")),
        **(values | overrides),
    )


def _managed_advice():
    """The factory's managed result with the host's offer stored, as the wizard stores it."""
    advice = advice_result_build(deployment="managed")
    chosen = advice.chosen
    assert chosen is not None
    offer = managed_offer(
        tco_configuration(chosen), region_defaults("FR", "EUR", gpu_model="NVIDIA H100")
    )
    return dataclasses.replace(advice, managed_offers={chosen.tier: offer}), offer


def _pdf_text(data: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


# --- The staff e-mail ----------------------------------------------------------------------------


def test_a_new_request_emails_the_sales_team_once(sales_inbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        request, created = _request()

    assert created is True
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["sales@example.com"]
    assert message.reply_to == ["ada@example.com"]
    assert message.subject == "New quote request: Analytical Engines GmbH (DE)"
    assert message.body == (
        "Ada Lovelace (Analytical Engines GmbH, Germany, ada@example.com) asks for a quote.\n"
        "VAT number: DE136491529\n\n"
        "Configuration: 2 servers with 8 × NVIDIA H100 each.\n"
        "Amount: €460,000 to buy the servers.\n\n"
        "Message:\nRack space in Frankfurt, please.\n\n"
        "Open the sales dashboard to make the quote:\n"
        f"https://quotes.example.com/staff/#request-{request.pk}\n"
    )
    request.refresh_from_db()
    assert request.staff_notified_at is not None
    # A retried (or duplicated) task finds the flag and sends nothing.
    assert services.quote_request_notify(request_id=request.pk) is False
    assert len(mail.outbox) == 1


def test_a_repeated_request_emails_nobody(sales_inbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first, _created = _request()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again, created = _request(result=first.result, email="ADA@example.com", name="Ada L.")

    assert (again.pk, created) == (first.pk, False)
    assert callbacks == []
    assert OutboxJob.objects.filter(task="quotes.notify_quote_request").count() == 1
    assert len(mail.outbox) == 1


def test_the_email_waits_for_the_commit(sales_inbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request, _created = _request()

    assert mail.outbox == []  # nothing before the commit
    assert len(callbacks) == 1
    job = OutboxJob.objects.get()
    assert (job.task, job.args) == ("quotes.notify_quote_request", [request.pk])


def test_a_mail_server_failure_leaves_the_request_to_notify_again(sales_inbox, monkeypatch):
    request, _created = _request()

    def refuse(self, fail_silently=False):
        raise smtplib.SMTPServerDisconnected("try later")

    monkeypatch.setattr("django.core.mail.EmailMessage.send", refuse)
    with pytest.raises(smtplib.SMTPServerDisconnected):
        services.quote_request_notify(request_id=request.pk)
    request.refresh_from_db()
    assert request.staff_notified_at is None
    monkeypatch.undo()

    assert services.quote_request_notify(request_id=request.pk) is True
    assert len(mail.outbox) == 1


def test_a_managed_request_gives_the_monthly_fee(sales_inbox, django_capture_on_commit_callbacks):
    advice, offer = _managed_advice()
    contract = offer.term(36)
    with django_capture_on_commit_callbacks(execute=True):
        request, _created = _request(result=stored_result_make(advice=advice))

    summary = quote_request_summary_get(quote_request=request)
    assert summary is not None
    assert (summary.servers, summary.gpus_per_server, summary.gpu) == (2, 8, "NVIDIA H100")
    assert summary.managed_monthly == contract.monthly.amount * 2
    assert summary.months == 36
    fee = f"€{contract.monthly.amount * 2:,.0f}"
    assert f"Amount: {fee} per month in managed hosting (36-month contract)." in (
        mail.outbox[0].body
    )


def test_a_result_without_configuration_says_so(sales_inbox, django_capture_on_commit_callbacks):
    advice = advice_result_build(deployment="on_premises")
    empty = dataclasses.replace(
        advice, build=BuildResult(options=(), unmet=()), chosen_tier=None, tco=None
    )
    with django_capture_on_commit_callbacks(execute=True):
        request, _created = _request(result=stored_result_make(advice=empty))

    assert quote_request_summary_get(quote_request=request) is None
    assert "Their result has no configuration: talk with them about their needs." in (
        mail.outbox[0].body
    )


# --- The VAT number ------------------------------------------------------------------------------


def test_the_request_stores_the_vat_number_normalised():
    request, _created = _request()

    assert request.vat_number == GERMAN_VAT


@pytest.mark.parametrize(
    ("country", "vat_number"),
    [("DE", "DE136491520"), ("DE", "FR11999999998"), ("FR", GERMAN_VAT)],
)
def test_a_vat_number_of_another_country_or_wrong_digits_is_refused(country, vat_number):
    with pytest.raises(ValidationError) as refused:
        _request(country=country, vat_number=vat_number)

    assert list(refused.value.message_dict) == ["vat_number"]
    assert "This VAT number is not valid for" in refused.value.message_dict["vat_number"][0]
    assert QuoteRequest.objects.count() == 0
    assert OutboxJob.objects.count() == 0


def test_the_wizard_form_names_the_vat_number_field():
    data = {
        "name": "Ada",
        "company": "Analytical Engines GmbH",
        "email": "ada@example.com",
        "country": "DE",
        "vat_number": "DE136491520",
        "consent": "on",
    }
    form = QuoteRequestForm(data)

    assert not form.is_valid()
    assert form.errors == {
        "vat_number": [
            "This VAT number is not valid for Germany: it must start with DE and its check "
            "digits must be right."
        ]
    }
    assert str(form.fields["vat_number"].label) == "VAT number"
    assert not form.fields["vat_number"].required  # the page adds "(optional)" itself
    assert QuoteRequestForm({**data, "vat_number": ""}).is_valid()


def test_the_wizard_view_records_the_vat_number(client):
    result = stored_result_make(advice=advice_result_build(deployment="on_premises"))
    url = reverse("wizard:quote_request", kwargs={"token": result.token})
    data = {
        "name": "Ada",
        "company": "Analytical Engines GmbH",
        "email": "ada@example.com",
        "country": "DE",
        "consent": "on",
    }

    refused = client.post(url, {**data, "vat_number": "DE136491520"})
    assert refused.status_code == 200
    assert "This VAT number is not valid for Germany" in refused.content.decode()
    assert QuoteRequest.objects.count() == 0

    accepted = client.post(url, {**data, "vat_number": "DE 136491529"})
    assert accepted.status_code == 302
    assert QuoteRequest.objects.get().vat_number == GERMAN_VAT


@pytest.mark.parametrize(
    ("deployment", "mention"),
    [
        ("managed", "Autoliquidation / Reverse charge: the VAT is due by the customer"),
        ("on_premises", "VAT-exempt intra-Community supply of goods (article 138"),
    ],
)
def test_a_german_company_with_its_vat_number_pays_no_french_vat(rep, deployment, mention):
    """End to end: the request's VAT number goes into the quote, whose figures and PDF carry the
    reverse charge (hosting, a service) or the exempt intra-Community supply (parts, goods)
    instead of 20 % French VAT."""
    advice = (
        _managed_advice()[0]
        if deployment == "managed"
        else advice_result_build(deployment="on_premises")
    )
    request, _created = _request(result=stored_result_make(advice=advice))

    quote = services.quote_create_from_request(user=rep, quote_request=request)

    assert (quote.country.code, quote.vat_number, quote.is_business) == ("DE", GERMAN_VAT, True)
    totals = revision_totals_get(quote=quote, revision=quote.revision)
    assert totals.vat_regime == "reverse_charge"
    assert totals.vat_rate_pct == 0
    assert totals.one_off.vat.amount == totals.monthly.vat.amount == 0
    assert totals.contract.total.amount == totals.contract.net.amount > 0
    text = re.sub(r"\s+", " ", _pdf_text(quote_pdf_render(quote=quote)))
    assert mention in text
    assert "VAT (0 %)" in text
    assert "VAT (20 %)" not in text
    assert f"DE · VAT number {GERMAN_VAT}" in text


def test_the_same_company_without_a_vat_number_pays_french_vat(rep):
    request, _created = _request(vat_number="")

    quote = services.quote_create_from_request(user=rep, quote_request=request)

    totals = revision_totals_get(quote=quote, revision=quote.revision)
    assert (totals.vat_regime, totals.vat_rate_pct) == ("eu_french_vat", Decimal(20))
    assert totals.one_off.vat.amount == Decimal("92000.00")
