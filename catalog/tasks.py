"""Celery entry points for the catalog: thin shells over one service call each.

``refresh_price_source`` is what each price source's beat entry sends (see
``catalog.services.price_source_schedule_sync``). It takes ids, not objects; it can run twice
(the apply is idempotent and all-or-nothing), so it acknowledges late: a worker killed mid-run
leaves the message to be delivered again. Only ``FeedTemporaryError`` (network errors, timeouts,
5xx answers) is retried, with exponential backoff and full jitter, a bounded number of times.
``purge_price_refresh_runs`` runs daily and deletes old finished runs
(``catalog.services.retention``).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from catalog.feeds import FeedTemporaryError
from catalog.models import PriceSource, RunTrigger
from catalog.services import PRICE_REFRESH_TASK, price_source_refresh
from catalog.services.retention import price_refresh_runs_purge

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name=PRICE_REFRESH_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(FeedTemporaryError,),
    max_retries=settings.PRICE_FEED_MAX_RETRIES,
    retry_backoff=settings.PRICE_FEED_RETRY_BACKOFF_SECONDS,
    retry_backoff_max=settings.PRICE_FEED_RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=True,
)
def refresh_price_source(
    self, source_id: int, trigger: str = RunTrigger.SCHEDULE, user_id: int | None = None
) -> dict[str, object] | None:
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    try:
        run = price_source_refresh(
            source_id=source_id,
            trigger=trigger,
            attempt=self.request.retries + 1,
            task_id=self.request.id or "",
            user=user,
        )
    except PriceSource.DoesNotExist:
        logger.warning("Price source %s no longer exists; nothing to refresh.", source_id)
        return None
    return {"run_id": run.pk, "status": run.status}


# One transaction, nothing left to delete the second time: safe to run twice.
@shared_task(name="catalog.purge_price_refresh_runs", acks_late=True)
def purge_price_refresh_runs() -> int:
    deleted = price_refresh_runs_purge(now=timezone.now())
    logger.info("Purged %d price refresh runs.", deleted)
    return deleted
