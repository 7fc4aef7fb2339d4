"""Partner webhook events: each goes to the subscribed, active webhooks of the partners it
concerns (quote status changes to that quote's partner, price changes to all), only once
the change is committed.

The receiver is pytest-httpserver on 127.0.0.1; tasks run in-process (``eager_celery``, autouse
in tests/quotes/conftest.py).
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from catalog.models import PriceSource
from catalog.services import price_source_refresh
from gpuquote.core.outbox import outbox_jobs_drain
from quotes.models import DeliveryStatus, OutboxJob, Partner, QuoteOrigin, WebhookDelivery
from quotes.partners.webhooks.events import (
    PRICE_CHANGES_PER_EVENT,
    webhook_event_emit,
    webhooks_prices_changed,
    webhooks_quote_status_changed,
)
from quotes.sales.services import quote_create
from tests.factories import cpu_make, gpu_make, price_make
from tests.quotes.partners.webhook_cases import HOOK, webhook_make

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


def test_an_event_goes_to_every_subscribed_active_webhook_with_one_event_id(
    acme, globex, django_capture_on_commit_callbacks
):
    everything = webhook_make(acme[0], "https://acme.example/all")
    quotes_only = webhook_make(globex[0], "https://globex.example/q", events=["price.changed"])
    prices = webhook_make(globex[0], "https://globex.example/p", events=["quote.status_changed"])
    webhook_make(acme[0], "https://acme.example/off", is_active=False)
    dormant = Partner.objects.create(name="Dormant", is_active=False)
    webhook_make(dormant, "https://dormant.example/")

    with django_capture_on_commit_callbacks() as callbacks:
        deliveries = webhook_event_emit(
            partner_ids=None, event_type="price.changed", data={"amount": Decimal("1.50")}
        )

    assert {d.webhook_id for d in deliveries} == {everything.pk, quotes_only.pk}
    assert prices.pk not in {d.webhook_id for d in deliveries}
    assert len({d.event_id for d in deliveries}) == 1
    # One job per delivery, left for the drain process (embedded mode: never run in the caller)
    assert callbacks == []
    assert OutboxJob.objects.filter(task="quotes.deliver_webhook", dispatched_at=None).count() == 2
    stored = WebhookDelivery.objects.get(webhook=everything)
    assert stored.status == DeliveryStatus.PENDING
    assert stored.payload["id"] == str(stored.event_id)
    assert stored.payload["type"] == "price.changed"
    assert stored.payload["data"] == {"amount": "1.50"}
    assert dt.datetime.fromisoformat(stored.payload["created_at"]) <= timezone.now()


def test_an_event_for_some_partners_reaches_only_theirs(acme, globex):
    webhook_make(acme[0], "https://acme.example/")
    webhook_make(globex[0], "https://globex.example/")

    deliveries = webhook_event_emit(
        partner_ids=[globex[0].pk], event_type="quote.status_changed", data={}
    )

    assert [d.webhook.partner for d in deliveries] == [globex[0]]


def test_an_event_without_subscribers_creates_nothing(acme):
    assert webhook_event_emit(partner_ids=None, event_type="price.changed", data={}) == []
    assert not WebhookDelivery.objects.exists()
    with pytest.raises(ValueError, match="unknown webhook event"):
        webhook_event_emit(partner_ids=None, event_type="quote.deleted", data={})


@transaction.atomic
def _emit_then_fail() -> None:
    webhook_event_emit(partner_ids=None, event_type="price.changed", data={})
    raise RuntimeError("the caller's transaction fails")


def test_a_rolled_back_event_leaves_no_delivery_and_sends_nothing(
    acme, receiver, django_capture_on_commit_callbacks
):
    webhook_make(acme[0], receiver.url_for(HOOK))

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError, match="transaction fails"),
    ):
        _emit_then_fail()

    assert callbacks == []
    assert not WebhookDelivery.objects.exists()
    assert receiver.log == []


def _partner_quote(partner: Partner | None):
    return quote_create(
        user=None,
        origin=QuoteOrigin.PARTNER_API if partner else QuoteOrigin.STAFF,
        company="Lab GmbH",
        contact_name="Ada",
        email="ada@lab.example",
        country="DE",
        partner=partner,
    )


def test_a_partner_quote_changing_status_notifies_that_partner_only(
    receiver, acme, globex, django_capture_on_commit_callbacks
):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    own = webhook_make(acme[0], receiver.url_for(HOOK))
    other = webhook_make(globex[0], receiver.url_for("/globex"))
    quote = _partner_quote(acme[0])

    with django_capture_on_commit_callbacks(execute=True):
        deliveries = webhooks_quote_status_changed(
            quote=quote, from_status="draft", to_status="sent"
        )
    assert outbox_jobs_drain() == 1

    assert [d.webhook_id for d in deliveries] == [own.pk]
    assert not WebhookDelivery.objects.filter(webhook=other).exists()
    [(request, _)] = receiver.log
    sent = json.loads(request.get_data())
    assert sent["type"] == "quote.status_changed"
    assert sent["data"] == {
        "quote_id": quote.pk,
        "number": quote.number,
        "status": "sent",
        "previous_status": "draft",
        "revision": "A",
        "updated_at": quote.updated_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED


def test_a_quote_without_a_partner_notifies_nobody(acme, staff_user):
    webhook_make(acme[0], "https://acme.example/")
    quote = quote_create(
        user=staff_user,
        origin=QuoteOrigin.STAFF,
        company="Lab GmbH",
        contact_name="Ada",
        email="ada@lab.example",
        country="DE",
    )

    assert webhooks_quote_status_changed(quote=quote, from_status="draft", to_status="sent") == []
    assert not WebhookDelivery.objects.exists()


FEED_DAY = "2026-11-30"


def test_a_price_refresh_sends_the_changed_prices_to_every_partner(
    receiver, acme, globex, django_capture_on_commit_callbacks
):
    gpu, cpu = gpu_make(sku="GPU-W"), cpu_make(sku="CPU-W")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=dt.date(2026, 10, 1))
    price_make(cpu, amount=Decimal("500.00"), observed_on=dt.date(2026, 10, 1))
    feed = (
        "sku,price,currency,observed_on\n"
        f"GPU-W,1100.00,EUR,{FEED_DAY}\nCPU-W,500.00,EUR,{FEED_DAY}\n"
    )
    receiver.expect_request("/feed").respond_with_data(feed)
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook_make(acme[0], receiver.url_for(HOOK))
    webhook_make(globex[0], receiver.url_for(HOOK))
    webhook_make(globex[0], "https://globex.example/q", events=["quote.status_changed"])
    source = PriceSource.objects.create(
        name="Distributor EU",
        kind="supplier",
        location=receiver.url_for("/feed"),
        format="csv",
        currency="EUR",
    )

    with django_capture_on_commit_callbacks(execute=True):
        run = price_source_refresh(source_id=source.pk)
    assert outbox_jobs_drain() == 2

    assert run.status == "applied"
    deliveries = WebhookDelivery.objects.filter(event_type="price.changed")
    assert deliveries.count() == 2
    assert set(deliveries.values_list("status", flat=True)) == {DeliveryStatus.SUCCEEDED}
    hooks = [request for request, _ in receiver.log if request.path == HOOK]
    assert len(hooks) == 2
    sent = json.loads(hooks[0].get_data())
    assert sent["type"] == "price.changed"
    assert sent["data"] == {
        "source": "Distributor EU",
        "count": 1,
        "truncated": False,
        "prices": [
            {
                "sku": "GPU-W",
                "kind": "gpu",
                "price_kind": "purchase",
                "currency": "EUR",
                "old_amount": "1000.00",
                "new_amount": "1100.00",
                "observed_on": FEED_DAY,
            }
        ],
    }


def test_a_rejected_price_feed_sends_nothing(receiver, acme, django_capture_on_commit_callbacks):
    gpu_make(sku="GPU-R")
    receiver.expect_request("/feed").respond_with_data(
        "sku,price,currency,observed_on\nGPU-R,1.00,EUR,2026-11-30\nNOPE,2.00,EUR,2026-11-30\n"
    )
    webhook_make(acme[0], receiver.url_for(HOOK))
    source = PriceSource.objects.create(
        name="Bad",
        kind="supplier",
        location=receiver.url_for("/feed"),
        format="csv",
        currency="EUR",
    )

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = price_source_refresh(source_id=source.pk)

    assert run.status == "rejected"
    assert callbacks == []
    assert not WebhookDelivery.objects.exists()


def test_a_price_event_carries_at_most_the_cap_and_says_it_was_truncated(acme):
    webhook_make(acme[0], "https://acme.example/")
    changed = [{"sku": f"SKU-{n}", "new_amount": Decimal(n)} for n in range(501)]

    [delivery] = webhooks_prices_changed(source_name="Big", changed=changed, changed_total=900)

    data = delivery.payload["data"]
    assert PRICE_CHANGES_PER_EVENT == 500
    assert (data["count"], data["truncated"], len(data["prices"])) == (900, True, 500)
    assert data["prices"][-1] == {"sku": "SKU-499", "new_amount": "499"}
    assert webhooks_prices_changed(source_name="Quiet", changed=[]) == []
