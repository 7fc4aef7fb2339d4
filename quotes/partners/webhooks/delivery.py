"""One try at a webhook delivery: sign, POST through the SSRF guard, record the attempt.

Each try POSTs the same JSON bytes it signs (``GPUQuote-Signature: t=<unix time>,v1=<HMAC-SHA256
hex>``, see ``gpuquote.api.signing``) and is recorded as a ``WebhookAttempt``. A 2xx answer
settles the delivery; anything else raises ``WebhookDeliveryError`` for the task
(``quotes.deliver_webhook``, registered by ``quotes.tasks``) to retry with backoff, and the last
try marks it failed. A delivery that succeeded is never sent again.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from gpuquote.api.signing import SIGNATURE_HEADER, signature_header
from gpuquote.core.metrics import WEBHOOK_ATTEMPTS
from gpuquote.core.outbound import OutboundRefusedError, outbound_policy, outbound_request
from quotes.models import DeliveryStatus, WebhookAttempt, WebhookDelivery

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
            deadline_s=settings.WEBHOOK_DELIVERY_DEADLINE_S,
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
            "webhook delivery %s attempt %s unreachable after %s ms: %s",
            delivery.pk,
            attempt.number,
            result.duration_ms,
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
    # The attempt was made (the request went out), whatever becomes of this transaction.
    WEBHOOK_ATTEMPTS.labels("succeeded" if result.ok else "failed" if last else "retrying").inc()


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
