"""Proof that the background machinery runs, for ``/healthz`` (``gpuquote.ops.health``).

Celery beat sends the task ``gpuquote.heartbeat`` four times per
``HEALTH_HEARTBEAT_MAX_AGE_SECONDS`` (its schedule entry, ``gpuquote.settings.base``); the
moment it publishes one is marked by the publishing process (beat ran its schedule), the moment
a worker runs it by the worker (a worker answered). Both marks are in the shared cache (Redis in
production), so every web host reads the same. A heartbeat nobody ran within that age expires
rather than pile up behind a stopped worker."""

from __future__ import annotations

import time

from celery import shared_task
from celery.signals import before_task_publish
from django.core.cache import cache

HEARTBEAT_TASK = "gpuquote.heartbeat"  # its name from before gpuquote/ops/, kept
WORKER_MARK = "health:worker-answered-at"
BEAT_MARK = "health:beat-sent-at"
_MARK_KEPT_SECONDS = 24 * 60 * 60


def mark_age_seconds(key: str, now: float | None = None) -> float | None:
    """How long ago the mark ``key`` was set, or None if it never was (or was evicted)."""
    marked = cache.get(key)
    if marked is None:
        return None
    return max(0.0, (time.time() if now is None else now) - float(marked))


@shared_task(name=HEARTBEAT_TASK, ignore_result=True)
def heartbeat() -> None:
    cache.set(WORKER_MARK, time.time(), _MARK_KEPT_SECONDS)


@before_task_publish.connect(sender=HEARTBEAT_TASK, weak=False)
def _beat_sent(**_kwargs: object) -> None:
    # Only beat publishes the heartbeat (its schedule entry, gpuquote.settings.base).
    cache.set(BEAT_MARK, time.time(), _MARK_KEPT_SECONDS)
