"""Retention purges of the quotes app: rows that would grow without end, deleted once they are of
no more use. Each purge runs in one transaction, deletes in chunks (``gpuquote.core.purge``: the
rows of one chunk are locked, then deleted, so a long purge never holds one huge statement), and
returns how many rows of its model it deleted. Running one twice deletes nothing the second time.

The Celery tasks in ``quotes.tasks`` call them daily (``settings.CELERY_BEAT_SCHEDULE``); the
periods are settings (docs/operations.md, "Retention").
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.db.models.fields.json import KT

from gpuquote.core.purge import chunks_delete
from quotes.models import (
    DeliveryStatus,
    IdempotencyRecord,
    Quote,
    QuoteRequest,
    WebhookDelivery,
    WizardResult,
)

# A delivery in these states gets no further attempt: pending ones are still being retried.
FINISHED_DELIVERY_STATUSES = (DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED)


@transaction.atomic
def idempotency_records_purge(*, now: dt.datetime) -> int:
    """Delete the Idempotency-Key records older than IDEMPOTENCY_RETENTION_HOURS: past that, a
    replayed key makes a new quote, as partners are told (the quotes themselves stay)."""
    cutoff = now - dt.timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)
    return chunks_delete(IdempotencyRecord.objects.filter(created_at__lt=cutoff))


@transaction.atomic
def webhook_deliveries_purge(*, now: dt.datetime) -> int:
    """Delete the finished webhook deliveries (succeeded, or failed after their last try) older
    than WEBHOOK_DELIVERY_RETENTION_DAYS, with their attempts; a pending one is never deleted."""
    cutoff = now - dt.timedelta(days=settings.WEBHOOK_DELIVERY_RETENTION_DAYS)
    return chunks_delete(
        WebhookDelivery.objects.filter(created_at__lt=cutoff, status__in=FINISHED_DELIVERY_STATUSES)
    )


@transaction.atomic
def abandoned_results_purge(*, now: dt.datetime) -> int:
    """Delete the wizard results older than ABANDONED_RESULT_RETENTION_DAYS that nobody asked a
    quote for and no quote was made from.

    A quote points at its result in two ways: through its quote request (``Quote.request``, whose
    ``result`` is protected anyway), and by the result's token in its snapshot (a quote made from
    a result without a request, e.g. by a partner); both keep the result.
    """
    cutoff = now - dt.timedelta(days=settings.ABANDONED_RESULT_RETENTION_DAYS)
    requested = QuoteRequest.objects.filter(result=OuterRef("pk"))
    quoted = Quote.objects.annotate(result_token=KT("snapshot__result_token")).filter(
        result_token=OuterRef("token")
    )
    return chunks_delete(
        WizardResult.objects.filter(created_at__lt=cutoff)
        .exclude(Exists(requested))
        .exclude(Exists(quoted))
    )
