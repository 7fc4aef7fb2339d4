"""The customer's private quote page /q/<token>/: its PDF (the last sent revision only),
accepting as the primary action, and why an answer is refused when it is."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from quotes.models import Quote, QuoteEvent
from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user, quote_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def sent(rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    quote.refresh_from_db()
    return quote


def _page(quote: Quote) -> str:
    return reverse("sales:quote_public", args=[quote.token])


def _pdf(quote: Quote) -> str:
    return reverse("sales:quote_public_pdf", args=[quote.token])


# --- The PDF -------------------------------------------------------------------------------------


def test_the_customer_downloads_the_sent_revisions_pdf(client, sent):
    page = client.get(_page(sent)).content.decode()
    assert f'href="{_pdf(sent)}"' in page

    response = client.get(_pdf(sent))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{sent.number}.pdf"'
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert response["Cache-Control"] == "private, no-store"
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
    assert sent.number in text
    assert "€60,000.00" in text  # 2 x 25,000 + 20 % VAT


def test_a_quote_never_sent_has_no_customer_page_nor_pdf(client, rep):
    draft = quote_make(rep)

    assert client.get(_page(draft)).status_code == 404
    assert client.get(_pdf(draft)).status_code == 404
    assert client.get(reverse("sales:quote_public_pdf", args=["x" * 43])).status_code == 404


def test_while_the_next_revision_is_prepared_the_pdf_is_the_sent_one(client, rep, sent):
    services.quote_terms_update(
        user=rep, quote=sent, discount_pct=Decimal(5),
        valid_until=timezone.localdate() + dt.timedelta(30), contract_months=12,
    )  # fmt: skip
    sent.refresh_from_db()
    assert sent.current_revision.label == "B"  # the draft revision the rep prepares

    response = client.get(_pdf(sent))

    assert response.status_code == 200
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
    assert "€60,000.00" in text  # revision A's total, not the 5 % draft's
    assert "€57,000.00" not in text


# --- Answering -----------------------------------------------------------------------------------


def test_accept_is_the_primary_button_and_decline_the_secondary(client, sent):
    page = client.get(_page(sent)).content.decode()

    accept = page.index('name="decision" value="accept"')
    decline = page.index('name="decision" value="decline"')
    assert accept < decline  # the first button: what Enter does
    assert 'class="button primary" name="decision" value="accept"' in page
    assert 'class="button secondary" name="decision" value="decline"' in page
    assert "css/documents.css" in page


def test_declining_with_the_secondary_button(client, sent):
    response = client.post(_page(sent), {"name": "Ada Lovelace", "decision": "decline"})

    assert response.status_code == 302
    sent.refresh_from_db()
    assert sent.status == "declined"


@pytest.mark.parametrize(
    ("make_closed", "reason"),
    [
        ("expired", "This quote expired on"),
        ("accepted", "This quote was already accepted on"),
        ("declined", "This quote was declined on"),
        ("revising", "Our sales team has withdrawn this quote to prepare a new version"),
    ],
)
def test_a_refused_answer_says_why_and_changes_nothing(client, rep, sent, make_closed, reason):
    if make_closed == "expired":
        sent.current_revision.valid_until = timezone.localdate() - dt.timedelta(days=1)
        sent.current_revision.save(update_fields=["valid_until"])
    elif make_closed in ("accepted", "declined"):
        services.quote_customer_answer(
            token=sent.token, accept=make_closed == "accepted", name="Ada"
        )
    else:
        services.quote_terms_update(
            user=rep, quote=sent, discount_pct=Decimal(5),
            valid_until=timezone.localdate() + dt.timedelta(30), contract_months=12,
        )  # fmt: skip
    sent.refresh_from_db()
    status, answers = sent.status, QuoteEvent.objects.filter(kind="customer_answer").count()

    shown = client.get(_page(sent)).content.decode()
    response = client.post(_page(sent), {"name": "Mallory", "decision": "accept"})

    assert reason in shown
    assert 'id="accept-button"' not in shown
    page = response.content.decode()
    assert response.status_code == 200
    assert reason in page
    assert 'id="closed-reason" role="alert"' in page
    sent.refresh_from_db()
    assert sent.status == status
    assert QuoteEvent.objects.filter(kind="customer_answer").count() == answers
