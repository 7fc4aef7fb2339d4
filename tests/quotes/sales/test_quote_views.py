"""Sales quotes on screen: permissions, the dashboard's queries, the PDF, the e-mail, the link."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from quotes.models import Quote, QuoteEvent
from quotes.sales import services
from quotes.sales.selectors import revision_digest, revision_totals_get
from tests.quotes.sales.test_quote_services import (
    _user,
    quote_make,
    sent_quote_make,
    wizard_request_make,
)

pytestmark = pytest.mark.django_db

DASHBOARD = reverse("sales:dashboard")


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def manager(django_user_model):
    return _user(django_user_model, "manager", services.MANAGER_GROUP)


def _detail(quote):
    return reverse("sales:quote_detail", args=[quote.pk])


# --- Permissions matrix ---------------------------------------------------------------------------


def test_anonymous_is_sent_to_the_login_page(client, rep):
    quote = quote_make(rep)
    for url in (DASHBOARD, _detail(quote), reverse("sales:quote_pdf", args=[quote.pk])):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("sales:login"))
    response = client.post(reverse("sales:quote_action", args=[quote.pk]), {"action": "send"})
    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.status == "draft"


def test_signed_in_outside_the_sales_groups_is_forbidden(client, rep, django_user_model):
    quote = quote_make(rep)
    client.force_login(_user(django_user_model, "outsider", None))
    assert client.get(DASHBOARD).status_code == 403
    assert client.get(_detail(quote)).status_code == 403
    response = client.post(reverse("sales:quote_action", args=[quote.pk]), {"action": "send"})
    assert response.status_code == 403
    quote.refresh_from_db()
    assert quote.status == "draft"


@pytest.mark.parametrize(("who", "approved"), [("rep", False), ("manager", True)])
def test_only_a_manager_approves_from_the_screen(client, rep, manager, who, approved):
    quote = quote_make(rep)
    services.quote_terms_update(
        user=rep, quote=quote, discount_pct=Decimal(20),
        valid_until=timezone.localdate() + dt.timedelta(30), contract_months=12,
    )  # fmt: skip
    client.force_login({"rep": rep, "manager": manager}[who])
    page = client.get(_detail(quote)).content.decode()
    assert ('value="approve_discount"' in page) is approved
    quote.refresh_from_db()
    revision = quote.current_revision
    digest = revision_digest(
        quote=quote, revision=revision, totals=revision_totals_get(quote=quote, revision=revision)
    )
    assert (f'name="digest" value="{digest}"' in page) is approved
    client.post(
        reverse("sales:quote_action", args=[quote.pk]),
        {"action": "approve_discount", "digest": digest},
    )
    quote.refresh_from_db()
    assert (quote.current_revision.approved_discount_pct is not None) is approved


def test_the_customer_link_shows_one_quote_only(client, rep):
    quote = sent_quote_make(rep)
    response = client.get(reverse("sales:quote_public", args=[quote.token]))
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert client.get(reverse("sales:quote_public", args=["x" * 43])).status_code == 404
    assert client.get(DASHBOARD).status_code == 302


# --- Dashboard --------------------------------------------------------------------------------


def test_dashboard_query_count_does_not_grow_with_quotes(client, rep):
    client.force_login(rep)
    wizard_request_make()
    for _ in range(3):
        quote_make(rep)
    with CaptureQueriesContext(connection) as few:
        assert client.get(DASHBOARD).status_code == 200
    for _ in range(20):
        quote_make(rep)
    with CaptureQueriesContext(connection) as many:
        response = client.get(DASHBOARD)
    # session, user, groups, status counts, new requests, page count, page rows, the price
    # sources' health
    assert len(many) == len(few) == 8
    assert response.content.decode().count("/staff/quotes/") >= 23


def test_dashboard_search_and_filters(client, rep):
    client.force_login(rep)
    quote_make(rep)
    other = services.quote_create(
        user=rep, origin="staff", company="Globex", contact_name="Hank",
        email="hank@globex.example", country="US",
    )  # fmt: skip
    page = client.get(DASHBOARD, {"q": "globex"}).content.decode()
    assert other.number in page
    assert "Acme" not in page.split("quote-list")[1]
    page = client.get(DASHBOARD, {"status": "sent"}).content.decode()
    assert "No quote matches." in page


def test_one_click_quote_from_a_request(client, rep):
    client.force_login(rep)
    quote_request = wizard_request_make()
    response = client.post(reverse("sales:quote_from_request", args=[quote_request.pk]))
    quote = Quote.objects.get()
    assert response["Location"] == _detail(quote)
    # Managed hosting: the monthly fee and its setup
    assert list(quote.current_revision.lines.values_list("role", flat=True)) == [
        "managed_hosting",
        "managed_setup",
    ]


def test_create_from_scratch_and_add_a_line(client, rep):
    client.force_login(rep)
    response = client.post(
        reverse("sales:quote_new"),
        {"company": "Initech", "contact_name": "Peter", "email": "p@initech.example",
         "country": "fr", "language": "en", "currency": "EUR", "is_business": "on"},
    )  # fmt: skip
    quote = Quote.objects.get()
    assert response["Location"] == _detail(quote)
    client.post(
        reverse("sales:line_add_service", args=[quote.pk]),
        {"kind": "service", "description": "Installation", "quantity": "1",
         "unit_price": "1500", "recurrence": "one_off", "discount_pct": "0"},
    )  # fmt: skip
    page = client.get(_detail(quote)).content.decode()
    assert "Installation" in page
    assert "€1,800.00" in page  # 1,500 + 20 % VAT


# --- PDF, e-mail, the customer's answer -----------------------------------------------------------


def _pdf_text(data: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_pdf_carries_number_revision_lines_totals_and_vat_note(client, rep):
    client.force_login(rep)
    quote = quote_make(rep, country="DE", vat_number="DE136695976")
    response = client.get(reverse("sales:quote_pdf", args=[quote.pk]), {"download": "1"})
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{quote.number}.pdf"'
    text = _pdf_text(response.content)
    for expected in (
        quote.number,
        "Revision A",
        "H100",
        "€50,000.00",
        "VAT-exempt intra-Community",
    ):
        assert expected in text, expected


def test_sending_mails_the_pdf_once(rep, django_capture_on_commit_callbacks, settings):
    settings.SITE_URL = "https://quotes.example.com/"
    quote = quote_make(rep)
    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.com"]
    assert quote.number in message.subject
    assert f"https://quotes.example.com/q/{quote.token}/\n" in message.body
    (name, content, mimetype) = message.attachments[0]
    assert (name, mimetype) == (f"{quote.number}.pdf", "application/pdf")
    assert "€60,000.00" in _pdf_text(content)
    # A retried task sends nothing more.
    assert (
        services.quote_email_send(quote_id=quote.pk, revision_id=quote.current_revision_id) is False
    )
    assert len(mail.outbox) == 1


def test_customer_accepts_from_the_link(client, rep, django_capture_on_commit_callbacks, settings):
    settings.SALES_NOTIFICATION_EMAIL = "sales@example.com"
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    url = reverse("sales:quote_public", args=[quote.token])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"name": "Ada Lovelace", "decision": "accept"})
    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.status == "accepted"
    event = QuoteEvent.objects.get(kind="customer_answer")
    assert (event.actor_name, event.to_status, event.actor) == ("Ada Lovelace", "accepted", None)
    assert mail.outbox[-1].to == ["sales@example.com"]
    assert "Ada Lovelace" in mail.outbox[-1].body
    page = client.get(url).content.decode()
    assert "Accepted by Ada Lovelace" in page
    # A second answer is refused and changes nothing.
    client.post(url, {"name": "Mallory", "decision": "decline"})
    quote.refresh_from_db()
    assert quote.status == "accepted"
    assert QuoteEvent.objects.filter(kind="customer_answer").count() == 1


def test_a_draft_cannot_be_answered(client, rep):
    quote = quote_make(rep)
    url = reverse("sales:quote_public", args=[quote.token])
    client.post(url, {"name": "Ada", "decision": "accept"})
    quote.refresh_from_db()
    assert quote.status == "draft"


def test_customer_page_in_french(client, rep):
    quote = sent_quote_make(rep)
    client.cookies["django_language"] = "fr"
    page = client.get(reverse("sales:quote_public", args=[quote.token])).content.decode()
    assert "60\u00a0000,00\u00a0€" in page


def test_a_line_whose_catalog_price_is_stale_is_flagged(client, rep, settings):
    from tests.factories import gpu_make, price_make

    gpu = gpu_make(sku="OLD-PRICE-GPU")
    price_make(gpu, amount=Decimal("20000.00"), observed_on=dt.date(2025, 1, 1))
    client.force_login(rep)
    client.post(
        reverse("sales:quote_new"),
        {"company": "Initech", "contact_name": "Peter", "email": "p@initech.example",
         "country": "fr", "language": "en", "currency": "EUR", "is_business": "on"},
    )  # fmt: skip
    quote = Quote.objects.get()
    client.post(
        reverse("sales:line_add_part", args=[quote.pk]),
        {"sku": "OLD-PRICE-GPU", "quantity": "1", "discount_pct": "0"},
    )
    settings.PRICE_STALE_DAYS = 100_000
    assert "badge-stale" not in client.get(_detail(quote)).content.decode()
    settings.PRICE_STALE_DAYS = 60
    page = client.get(_detail(quote)).content.decode()
    assert "OLD-PRICE-GPU" in page
    assert "badge-stale" in page
