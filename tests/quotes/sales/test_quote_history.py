"""The quote's history reads as sentences, not as recorded data."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from quotes.models import QuoteEvent
from quotes.sales import services
from quotes.sales.history import event_details, status_label
from tests.quotes.sales.test_quote_services import TODAY, _user, quote_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def test_a_terms_change_reads_before_and_after(rep):
    quote = quote_make(rep)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(15),
        valid_until=TODAY + dt.timedelta(30),
        contract_months=36,
        today=TODAY,
    )
    event = QuoteEvent.objects.filter(quote=quote, kind="edited").latest("id")

    with translation.override("en"):
        text = event_details(event)
    assert "Quote discount: 0 % → 15 %" in text
    assert "Contract length: 12 months → 36 months" in text
    assert "discount_pct" not in text
    with translation.override("fr"):
        assert "Remise sur le devis : 0 % → 15 %" in event_details(event)


def test_the_staff_quote_page_shows_readable_history_and_statuses(client, rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    client.force_login(rep)

    html = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()

    history = html[html.index('class="history stack doc-table"') :]
    assert f"{status_label('draft')} → {status_label('sent')}" in history
    assert "=[" not in history
    assert "={" not in history
