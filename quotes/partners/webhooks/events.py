"""Webhook events: one ``WebhookDelivery`` per subscribed, active webhook, created in the
caller's transaction, each queued after commit through the outbox (``gpuquote.core.outbox``) as
the Celery task ``quotes.deliver_webhook``.

``quote.status_changed`` and ``price.changed`` reach here through the one relay
(``quotes.partners.relay``); ``webhook.ping`` from the partner API.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.signals import PRICE_CHANGES_PER_EVENT as PRICE_CHANGES_PER_EVENT
from gpuquote.core.outbox import outbox_job_enqueue
from quotes.models import WEBHOOK_EVENTS, Quote, Webhook, WebhookDelivery
from quotes.partners.webhooks.delivery import DELIVER_WEBHOOK_TASK

PING_EVENT = "webhook.ping"
# PRICE_CHANGES_PER_EVENT (catalog.signals): a refresh changing more prices sends the first ones.


def _payload(*, event_id: uuid.UUID, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """The event as receivers get it; decimals become strings, dates ISO 8601 (JSON-safe)."""
    envelope = {
        "id": str(event_id),
        "type": event_type,
        "created_at": timezone.now(),
        "data": data,
    }
    return json.loads(json.dumps(envelope, cls=DjangoJSONEncoder))


def _deliveries_enqueue(deliveries: Iterable[WebhookDelivery]) -> None:
    """One outbox job per delivery, queued after the caller's commit: a broker refusing one
    (or an eager run failing) neither fails the caller nor drops the others."""
    for delivery in deliveries:
        outbox_job_enqueue(task=DELIVER_WEBHOOK_TASK, args=[delivery.pk])


@transaction.atomic
def webhook_event_emit(
    *, partner_ids: Iterable[int] | None, event_type: str, data: dict[str, Any]
) -> list[WebhookDelivery]:
    """One delivery per active webhook subscribed to ``event_type`` (of these partners; None:
    every partner), all with the same event id; each is sent after the caller's commit."""
    if event_type not in WEBHOOK_EVENTS:
        raise ValueError(f"unknown webhook event {event_type!r}")
    webhooks = Webhook.objects.filter(is_active=True, partner__is_active=True)
    if partner_ids is not None:
        webhooks = webhooks.filter(partner_id__in=list(partner_ids))
    # Filtered in Python: JSON "contains" on a list is not supported by every database.
    subscribed = [webhook for webhook in webhooks.order_by("id") if event_type in webhook.events]
    if not subscribed:
        return []
    event_id = uuid.uuid4()
    payload = _payload(event_id=event_id, event_type=event_type, data=data)
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(webhook=webhook, event_id=event_id, event_type=event_type, payload=payload)
        for webhook in subscribed
    )
    _deliveries_enqueue(deliveries)
    return deliveries


@transaction.atomic
def webhook_ping(*, webhook: Webhook) -> WebhookDelivery:
    """A ``webhook.ping`` test event to this webhook only, whatever its subscriptions."""
    if not webhook.is_active:
        raise ValidationError(
            {"is_active": [_("The webhook is inactive: activate it before pinging it.")]}
        )
    event_id = uuid.uuid4()
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        event_id=event_id,
        event_type=PING_EVENT,
        payload=_payload(event_id=event_id, event_type=PING_EVENT, data={"webhook_id": webhook.pk}),
    )
    _deliveries_enqueue([delivery])
    return delivery


def webhooks_quote_status_changed(
    *, quote: Quote, from_status: str, to_status: str
) -> list[WebhookDelivery]:
    """``quote.status_changed`` to the quote's partner (nothing for quotes without one).
    Call it inside the transaction that changes the status."""
    if quote.partner_id is None:
        return []
    revision = quote.current_revision
    return webhook_event_emit(
        partner_ids=[quote.partner_id],
        event_type="quote.status_changed",
        data={
            "quote_id": quote.pk,
            "number": quote.number,
            "status": to_status,
            "previous_status": from_status,
            "revision": revision.label if revision is not None else None,
            "updated_at": quote.updated_at,
        },
    )


def webhooks_prices_changed(
    *, source_name: str, changed: list[dict[str, Any]], changed_total: int | None = None
) -> list[WebhookDelivery]:
    """``price.changed`` to every partner: the changed part prices of one feed refresh.

    ``changed`` items: sku, kind, price_kind, currency, old_amount (None for a first price),
    new_amount, observed_on. An event carries at most PRICE_CHANGES_PER_EVENT of them;
    ``count`` says how many changed (``changed_total``, when the caller kept only the first
    ones) and ``truncated`` whether some were left out."""
    if not changed:
        return []
    total = max(changed_total or 0, len(changed))
    prices = changed[:PRICE_CHANGES_PER_EVENT]
    return webhook_event_emit(
        partner_ids=None,
        event_type="price.changed",
        data={
            "source": source_name,
            "count": total,
            "truncated": total > len(prices),
            "prices": prices,
        },
    )
