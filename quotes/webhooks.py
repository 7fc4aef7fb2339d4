"""Partner webhooks: registration, events, signed deliveries with recorded attempts.

An event (``quote.status_changed``, ``price.changed``) becomes one ``WebhookDelivery`` per
subscribed, active webhook, created in the caller's transaction; the Celery task
``quotes.deliver_webhook`` is queued after commit. Each try POSTs the same JSON bytes it signs
(``GPUQuote-Signature: t=<unix time>,v1=<HMAC-SHA256 hex>``, see ``gpuquote.api.signing``) and is
recorded as a ``WebhookAttempt``. A 2xx answer settles the delivery; anything else raises
``WebhookDeliveryError`` for the task to retry with backoff, and the last try marks it failed.

Delivery is at least once: two copies of a task running at the same moment could both send, so
receivers deduplicate on ``GPUQuote-Delivery`` (the event id). A delivery that succeeded is
never sent again.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.signals import PRICE_CHANGES_PER_EVENT as PRICE_CHANGES_PER_EVENT
from gpuquote.api.signing import SIGNATURE_HEADER, signature_header
from gpuquote.core.outbound import (
    OutboundRefusedError,
    outbound_policy,
    outbound_request,
    outbound_url_errors,
)
from gpuquote.core.outbox import outbox_job_enqueue
from quotes.models import (
    DeliveryStatus,
    Partner,
    Quote,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
)
from quotes.partner_models import WEBHOOK_EVENTS

PING_EVENT = "webhook.ping"
WEBHOOKS_PER_PARTNER_MAX = 10
# PRICE_CHANGES_PER_EVENT (catalog.signals): a refresh changing more prices sends the first ones.
DELIVER_WEBHOOK_TASK = "quotes.deliver_webhook"  # registered by quotes.tasks, which imports this
DELIVERY_TIMEOUT_S = 10
USER_AGENT = "GPUQuote-Webhooks/1"
EVENT_HEADER = "GPUQuote-Event"
DELIVERY_HEADER = "GPUQuote-Delivery"
RESPONSE_READ_MAX_BYTES = 64 * 1024  # read (and drop) at most this much of a receiver's answer
ERROR_MAX_CHARS = 500  # WebhookAttempt.error's length
NO_ANSWER_RECORDED = "no answer recorded: the worker stopped during the request"
# All a partner reads of an attempt without an HTTP answer: a refused address, a DNS failure, a
# refused connection and a timeout look alike (the detail would make webhooks a port scanner;
# it is logged for the operator).
UNREACHABLE = "unreachable"

logger = logging.getLogger(__name__)


def attempt_error_public(error: str) -> str:
    """What a partner may read of an attempt's stored error: "" (an HTTP answer came),
    ``UNREACHABLE`` or ``NO_ANSWER_RECORDED``; older rows' connection errors read UNREACHABLE."""
    return error if error in ("", UNREACHABLE, NO_ANSWER_RECORDED) else UNREACHABLE


class WebhookDeliveryError(Exception):
    """The receiver did not answer 2xx (or could not be reached): a later try may succeed."""


# --- Selectors ----------------------------------------------------------------------------------


def webhook_queryset(*, partner: Partner | None) -> QuerySet[Webhook]:
    """The webhooks a caller may see: its own for a partner, all of them for staff (None)."""
    webhooks = Webhook.objects.select_related("partner")
    return webhooks if partner is None else webhooks.filter(partner=partner)


def webhook_deliveries_queryset(*, webhook: Webhook) -> QuerySet[WebhookDelivery]:
    """A webhook's deliveries, newest first, each with its attempts in order (one query more)."""
    return (
        WebhookDelivery.objects.filter(webhook=webhook)
        .order_by("-created_at", "-id")
        .prefetch_related("attempts")
    )


# --- Registration -------------------------------------------------------------------------------


def webhook_url_errors(url: str) -> list[str]:
    """Why a receiver URL is refused: http(s) only (in production https only), and its host
    must resolve, now, to public addresses only (``gpuquote.core.outbound``; each delivery
    checks again). Private hosts: only those in ``OUTBOUND_ALLOW_PRIVATE_HOSTS``."""
    production = not settings.DEBUG
    schemes = ["https"] if production else ["http", "https"]
    try:
        URLValidator(schemes=schemes)(url)
    except ValidationError:
        if production and url.lower().startswith("http://"):
            return [_("Use an https:// URL: webhooks are sent over TLS only.")]
        return [_("Enter a valid http:// or https:// URL.")]
    return outbound_url_errors(url, https_only=production)


def _events_clean(events: Iterable[str] | None) -> list[str]:
    if events is None:
        return list(WEBHOOK_EVENTS)
    chosen = list(dict.fromkeys(events))  # de-duplicated, order kept
    unknown = [event for event in chosen if event not in WEBHOOK_EVENTS]
    if unknown:
        raise ValidationError(
            {
                "events": [
                    _("Unknown events %(unknown)s; choose among %(known)s.")
                    % {"unknown": ", ".join(unknown), "known": ", ".join(WEBHOOK_EVENTS)}
                ]
            }
        )
    if not chosen:
        raise ValidationError({"events": [_("Choose at least one event.")]})
    return chosen


def _url_clean(url: str) -> str:
    url = url.strip()
    errors = webhook_url_errors(url)
    if errors:
        raise ValidationError({"url": errors})
    return url


@transaction.atomic
def webhook_create(*, partner: Partner, url: str, events: Iterable[str] | None = None) -> Webhook:
    """Register a receiver; its signing secret is generated (show it to the partner once)."""
    url, chosen = _url_clean(url), _events_clean(events)
    Partner.objects.select_for_update().filter(pk=partner.pk).first()  # serialise the count
    if Webhook.objects.filter(partner=partner).count() >= WEBHOOKS_PER_PARTNER_MAX:
        raise ValidationError(
            {
                "non_field_errors": [
                    _("A partner may register at most %(max)d webhooks; delete one first.")
                    % {"max": WEBHOOKS_PER_PARTNER_MAX}
                ]
            }
        )
    return Webhook.objects.create(partner=partner, url=url, events=chosen)


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    url: str | None = None,
    events: Iterable[str] | None = None,
    is_active: bool | None = None,
) -> Webhook:
    """Change what is given (None: unchanged). The secret never changes."""
    changed: list[str] = []
    if url is not None:
        webhook.url = _url_clean(url)
        changed.append("url")
    if events is not None:
        webhook.events = _events_clean(events)
        changed.append("events")
    if is_active is not None:
        webhook.is_active = is_active
        changed.append("is_active")
    if changed:
        webhook.save(update_fields=changed)
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete the webhook with its deliveries and their attempts."""
    webhook.delete()


# --- Events -------------------------------------------------------------------------------------


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


# --- Delivery -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PostResult:
    """What one POST gave: an HTTP status, or the error that prevented one (for the logs and
    the task's retry message only; the partner reads ``UNREACHABLE``)."""

    status: int | None
    error: str
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _post(*, url: str, body: bytes, headers: dict[str, str]) -> PostResult:
    """POST through the SSRF guard: the host is resolved and checked again now (it may point
    elsewhere since registration) and the connection goes to the checked address. A redirect
    is an answer (3xx, not delivered): following it would re-send the body to a host nobody
    registered."""
    started = time.monotonic()
    status, error = None, ""
    try:
        with outbound_request(
            url,
            policy=outbound_policy(),
            method="POST",
            body=body,
            headers=headers,
            timeout_s=DELIVERY_TIMEOUT_S,
        ) as response:
            response.read(RESPONSE_READ_MAX_BYTES)
            status = response.status
    except OutboundRefusedError as exc:
        error = f"refused: {exc}"
    except (http.client.HTTPException, OSError) as exc:  # DNS, timeouts, resets, bad answers
        error = f"{type(exc).__name__}: {exc}"
    duration_ms = round((time.monotonic() - started) * 1000)
    return PostResult(status=status, error=error[:ERROR_MAX_CHARS], duration_ms=duration_ms)


def _attempt_start(delivery_id: int) -> tuple[WebhookDelivery, WebhookAttempt] | None:
    """Under the delivery's row lock: still pending? Then number and record the attempt.
    The lock is released before the request is sent."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("webhook")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != DeliveryStatus.PENDING:
            return None
        if not delivery.webhook.is_active:
            delivery.status = DeliveryStatus.FAILED
            delivery.save(update_fields=["status"])
            return None
        WebhookDelivery.objects.filter(pk=delivery.pk).update(attempt_count=F("attempt_count") + 1)
        delivery.refresh_from_db(fields=["attempt_count"])
        attempt = WebhookAttempt.objects.create(
            delivery=delivery, number=delivery.attempt_count, error=NO_ANSWER_RECORDED
        )
        return delivery, attempt


@transaction.atomic
def _attempt_finish(
    *, delivery: WebhookDelivery, attempt: WebhookAttempt, result: PostResult, last: bool
) -> None:
    attempt.response_status = result.status
    attempt.error = "" if result.status is not None else UNREACHABLE
    if result.status is None:
        logger.warning(
            "webhook delivery %s attempt %s unreachable: %s",
            delivery.pk,
            attempt.number,
            result.error,
        )
    attempt.duration_ms = result.duration_ms
    attempt.save(update_fields=["response_status", "error", "duration_ms"])
    if result.ok:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.SUCCEEDED, delivered_at=timezone.now()
        )
    elif last:
        WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.FAILED
        )


def webhook_request_body(delivery: WebhookDelivery) -> bytes:
    """The exact bytes sent and signed."""
    return json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False).encode()


def webhook_deliver(*, delivery_id: int, last_attempt: bool = False) -> bool:
    """One try at a delivery; True once it has succeeded (now or before).

    A delivery that is no longer pending is not sent again. A non-2xx answer or a network error
    raises ``WebhookDeliveryError`` (for the task to retry), except on the ``last_attempt``,
    which marks the delivery failed and returns False."""
    started = _attempt_start(delivery_id)
    if started is None:
        status = (
            WebhookDelivery.objects.filter(pk=delivery_id).values_list("status", flat=True).first()
        )
        return status == DeliveryStatus.SUCCEEDED
    delivery, attempt = started
    body = webhook_request_body(delivery)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: signature_header(delivery.webhook.secret, int(time.time()), body),
        EVENT_HEADER: delivery.event_type,
        DELIVERY_HEADER: str(delivery.event_id),
    }
    result = _post(url=delivery.webhook.url, body=body, headers=headers)
    _attempt_finish(delivery=delivery, attempt=attempt, result=result, last=last_attempt)
    if result.ok:
        return True
    if last_attempt:
        return False
    reason = f"HTTP {result.status}" if result.status is not None else result.error
    raise WebhookDeliveryError(
        f"delivery {delivery.pk} attempt {attempt.number} to {delivery.webhook.url}: {reason}"
    )
