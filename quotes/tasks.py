"""Celery entry points for sales quotes: ids in, one service call each, safe to run twice.

``send_quote_email`` retries only errors a later attempt can fix (the mail server refusing or
unreachable), with exponential backoff; the service records the sent e-mail, so a retried or
duplicated message never mails the customer twice; ``notify_quote_answer`` and
``notify_quote_request`` (a new request from the wizard) mail the sales team once each, and
``notify_approval_waiting`` the sales managers (a send refused until they approve), the same
way. ``expire_quotes`` runs daily (the beat entry is in ``settings.CELERY_BEAT_SCHEDULE``).
``deliver_webhook`` makes one try at a partner
webhook delivery per run and retries while the receiver fails; its last try marks it failed.
Services queue them by name after commit through the outbox (``gpuquote.core.outbox``);
``outbox_redispatch`` runs every minute and queues again the jobs a broker outage kept back.
The ``purge_*`` tasks run daily and delete what would grow without end (``quotes.retention``):
old idempotency records, finished webhook deliveries, abandoned wizard results.
"""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.utils import timezone

from gpuquote.core.outbox import outbox_jobs_redispatch
from quotes.partners.webhooks.delivery import (
    DELIVER_WEBHOOK_TASK,
    WebhookDeliveryError,
    webhook_deliver,
)
from quotes.retention import (
    abandoned_results_purge,
    idempotency_records_purge,
    webhook_deliveries_purge,
)
from quotes.sales.services import (
    NOTIFY_APPROVAL_WAITING_TASK,
    NOTIFY_QUOTE_ANSWER_TASK,
    NOTIFY_QUOTE_REQUEST_TASK,
    SEND_QUOTE_EMAIL_TASK,
    approval_waiting_notify,
    quote_answer_notify,
    quote_email_send,
    quote_expire_due,
    quote_request_notify,
)

logger = logging.getLogger(__name__)

RETRYABLE = (smtplib.SMTPException, ConnectionError, TimeoutError)


@shared_task(
    name=SEND_QUOTE_EMAIL_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=RETRYABLE,
    max_retries=5,
    retry_backoff=30,
    retry_backoff_max=30 * 60,
    retry_jitter=True,
)
def send_quote_email(quote_id: int, revision_id: int) -> bool:
    return quote_email_send(quote_id=quote_id, revision_id=revision_id)


@shared_task(
    name=NOTIFY_QUOTE_ANSWER_TASK,
    acks_late=True,  # idempotent: the staff_notified event is checked under the answer's lock
    reject_on_worker_lost=True,
    autoretry_for=RETRYABLE,
    max_retries=5,
    retry_backoff=30,
    retry_jitter=True,
)
def notify_quote_answer(event_id: int) -> bool:
    return quote_answer_notify(event_id=event_id)


@shared_task(
    name=NOTIFY_APPROVAL_WAITING_TASK,
    acks_late=True,  # idempotent: the staff_notified event is checked under the request's lock
    reject_on_worker_lost=True,
    autoretry_for=RETRYABLE,
    max_retries=5,
    retry_backoff=30,
    retry_jitter=True,
)
def notify_approval_waiting(event_id: int) -> bool:
    return approval_waiting_notify(event_id=event_id)


@shared_task(
    name=NOTIFY_QUOTE_REQUEST_TASK,
    acks_late=True,  # idempotent: staff_notified_at is checked under the request's lock
    reject_on_worker_lost=True,
    autoretry_for=RETRYABLE,
    max_retries=5,
    retry_backoff=30,
    retry_jitter=True,
)
def notify_quote_request(request_id: int) -> bool:
    return quote_request_notify(request_id=request_id)


@shared_task(name="quotes.outbox_redispatch", acks_late=True)
def outbox_redispatch() -> int:
    return outbox_jobs_redispatch()


@shared_task(name="quotes.expire_quotes", acks_late=True)
def expire_quotes() -> int:
    return len(quote_expire_due())


# The purges run in one transaction each and delete nothing the second time: safe to run twice.
@shared_task(name="quotes.purge_idempotency_records", acks_late=True)
def purge_idempotency_records() -> int:
    deleted = idempotency_records_purge(now=timezone.now())
    logger.info("Purged %d idempotency records.", deleted)
    return deleted


@shared_task(name="quotes.purge_webhook_deliveries", acks_late=True)
def purge_webhook_deliveries() -> int:
    deleted = webhook_deliveries_purge(now=timezone.now())
    logger.info("Purged %d finished webhook deliveries.", deleted)
    return deleted


@shared_task(name="quotes.purge_abandoned_results", acks_late=True)
def purge_abandoned_results() -> int:
    deleted = abandoned_results_purge(now=timezone.now())
    logger.info("Purged %d abandoned wizard results.", deleted)
    return deleted


# Nine tries over at most about two hours: the waits are capped at 30 s, 1, 2, 4, 8, 16, 32 min
# and 1 h, each drawn at random below its cap ("full jitter": a receiver coming back up is not
# hit by every pending retry at once).
WEBHOOK_MAX_RETRIES = 8


@shared_task(
    bind=True,
    name=DELIVER_WEBHOOK_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(WebhookDeliveryError,),
    max_retries=WEBHOOK_MAX_RETRIES,
    retry_backoff=30,
    retry_backoff_max=60 * 60,
    retry_jitter=True,
)
def deliver_webhook(self, delivery_id: int) -> bool:
    return webhook_deliver(
        delivery_id=delivery_id, last_attempt=self.request.retries >= self.max_retries
    )
