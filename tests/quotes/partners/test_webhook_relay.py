"""The one relay: catalog price announcements become partner ``price.changed`` deliveries,
whichever service recorded the prices (feeds are covered in test_webhook_events.py)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import Price, PriceRefreshRun, PriceSource, QuarantinedPrice
from catalog.services import prices_add, quarantined_price_approve
from catalog.signals import ADMIN_SOURCE_NAME, prices_changed
from quotes.models import Webhook, WebhookDelivery
from quotes.partners.relay import prices_changed_relay, quote_status_changed_relay
from quotes.signals import quote_status_changed
from tests.api_fixtures import partner_key
from tests.factories import gpu_make, price_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


@pytest.fixture
def hook():
    partner, _key = partner_key("Acme Cloud")
    return Webhook.objects.create(
        partner=partner, url="https://acme.example/hooks", events=["price.changed"]
    )


def test_the_relay_is_connected_once_to_each_announcement():
    def connected(signal):
        return [receiver[1]() for receiver in signal.receivers]  # (key, weak ref, ...)

    assert connected(prices_changed).count(prices_changed_relay) == 1
    assert connected(quote_status_changed).count(quote_status_changed_relay) == 1


def test_a_price_approved_out_of_quarantine_is_announced(hook, staff_user):
    gpu = gpu_make(sku="GPU-Q")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=dt.date(2026, 10, 1))
    source = PriceSource.objects.create(
        name="Jumpy",
        kind="supplier",
        location="https://feed.example/",
        format="csv",
        currency="EUR",
    )
    run = PriceRefreshRun.objects.create(
        source=source, status="applied", trigger="manual", started_at=timezone.now()
    )
    held = QuarantinedPrice.objects.create(
        source=source,
        run=run,
        row=2,
        part=gpu,
        price_kind="purchase",
        amount=Decimal("1500.00"),
        currency="EUR",
        observed_on=dt.date(2026, 11, 30),
        previous_amount=Decimal("1000.00"),
        previous_observed_on=dt.date(2026, 10, 1),
        source_detail="Jumpy feed",
    )

    quarantined_price_approve(quarantined_id=held.pk, user=staff_user)

    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    assert delivery.event_type == "price.changed"
    assert delivery.payload["data"] == {
        "source": "Jumpy",
        "count": 1,
        "truncated": False,
        "prices": [
            {
                "sku": "GPU-Q",
                "kind": "gpu",
                "price_kind": "purchase",
                "currency": "EUR",
                "old_amount": "1000.00",
                "new_amount": "1500.00",
                "observed_on": "2026-11-30",
            }
        ],
    }


def test_a_price_added_in_the_admin_is_announced(hook, staff_user):
    gpu = gpu_make(sku="GPU-A")

    [price] = prices_add(
        prices=[
            Price(
                part=gpu,
                price_kind="purchase",
                amount=Decimal("900.00"),
                currency="EUR",
                observed_on=dt.date(2026, 11, 1),
                source="Quote from the distributor",
            )
        ],
        user=staff_user,
    )

    assert price.created_by == staff_user
    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    assert delivery.payload["data"]["source"] == ADMIN_SOURCE_NAME
    assert delivery.payload["data"]["prices"] == [
        {
            "sku": "GPU-A",
            "kind": "gpu",
            "price_kind": "purchase",
            "currency": "EUR",
            "old_amount": None,
            "new_amount": "900.00",
            "observed_on": "2026-11-01",
        }
    ]


def test_nothing_added_announces_nothing(hook):
    assert prices_add(prices=[]) == []
    assert not WebhookDelivery.objects.exists()
