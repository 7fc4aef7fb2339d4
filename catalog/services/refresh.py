"""One refresh run of a price source: take its lease, fetch the feed, apply it, record the run.

Every call is recorded as a ``PriceRefreshRun``, skipped and failed ones included. The Celery
task (``catalog.tasks``) and the admin's "refresh now" call in here.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from catalog.feeds import FeedError, FeedFormatError, FeedTemporaryError, FetchLimits, feed_open
from catalog.models import PriceRefreshRun, PriceSource, RunStatus, RunTrigger
from catalog.services.feed_apply import price_feed_apply
from catalog.services.feed_rows import FeedOutcome
from catalog.services.lease import source_lease_release, source_lease_take
from gpuquote.core.metrics import PRICE_REFRESH_RUNS
from gpuquote.core.outbound import outbound_policy
from gpuquote.core.outbox import outbox_job_enqueue

PRICE_REFRESH_TASK = "catalog.refresh_price_source"


def feed_fetch_limits() -> FetchLimits:
    return FetchLimits(
        timeout_s=settings.PRICE_FEED_FETCH_TIMEOUT_SECONDS,
        deadline_s=settings.PRICE_FEED_FETCH_DEADLINE_SECONDS,
        max_bytes=settings.PRICE_FEED_MAX_BYTES,
        file_root=Path(settings.PRICE_FEED_FILE_ROOT),
        outbound=outbound_policy(),
    )


def _runs_abandon(*, source: PriceSource, now: dt.datetime) -> None:
    """Runs still marked running once the lease is free died with their worker."""
    abandoned = PriceRefreshRun.objects.filter(source=source, status=RunStatus.RUNNING).update(
        status=RunStatus.ABANDONED,
        finished_at=now,
        message="The worker stopped before this run finished; nothing from it was applied "
        "(one transaction). A later run applied the feed again.",
    )
    if abandoned:
        PRICE_REFRESH_RUNS.labels(source.name, RunStatus.ABANDONED).inc(abandoned)


def price_source_refresh(
    *,
    source_id: int,
    trigger: str = RunTrigger.SCHEDULE,
    attempt: int = 1,
    task_id: str = "",
    user: Any = None,
) -> PriceRefreshRun:
    """Fetch one source's feed and apply it; every call is recorded as a ``PriceRefreshRun``.

    A second call while a run holds the source's lease records a SKIPPED run and does nothing.
    Network errors, timeouts and 5xx answers are recorded as FAILED and re-raised as
    ``FeedTemporaryError`` so the Celery task retries them with backoff; every other failure is
    recorded (FAILED or REJECTED) and returned. Nothing is ever half-applied.
    """
    source = PriceSource.objects.get(pk=source_id)
    token = uuid.uuid4().hex
    started = timezone.now()
    common = {
        "source": source,
        "trigger": trigger,
        "attempt": attempt,
        "task_id": task_id or "",
        "requested_by": user,
        "started_at": started,
    }
    if not source_lease_take(source_id=source.pk, token=token, now=started):
        until = PriceSource.objects.values_list("locked_until", flat=True).get(pk=source.pk)
        when = f" until {until:%Y-%m-%d %H:%M:%S} UTC" if until else ""
        skipped = PriceRefreshRun.objects.create(
            status=RunStatus.SKIPPED,
            finished_at=started,
            message=f"Another run of this source holds its lock{when}; this one did nothing.",
            **common,
        )
        PRICE_REFRESH_RUNS.labels(source.name, RunStatus.SKIPPED).inc()
        return skipped
    try:
        _runs_abandon(source=source, now=started)
        run = PriceRefreshRun.objects.create(status=RunStatus.RUNNING, **common)
        _run_execute(source=source, run=run, token=token)
        return run
    finally:
        source_lease_release(source_id=source.pk, token=token)


def _run_execute(*, source: PriceSource, run: PriceRefreshRun, token: str) -> None:
    try:
        with feed_open(source.location, limits=feed_fetch_limits()) as fetched:
            run.bytes_read = fetched.size_bytes
            outcome = price_feed_apply(
                source=source, run=run, stream=fetched.stream, lock_token=token
            )
    except FeedTemporaryError as exc:
        _run_close(
            run,
            status=RunStatus.FAILED,
            message=f"{exc}. Nothing was applied; the task retries with backoff while "
            f"attempts remain (this was attempt {run.attempt}).",
        )
        raise
    except FeedFormatError as exc:
        _run_close(run, status=RunStatus.REJECTED, message=f"Unreadable feed: {exc}.")
    except FeedError as exc:
        _run_close(run, status=RunStatus.FAILED, message=f"{exc}. Nothing was applied.")
    except Exception as exc:
        _run_close(run, status=RunStatus.FAILED, message=f"Unexpected error: {exc!r}.")
        raise
    else:
        _run_close(run, outcome=outcome)


def _run_close(
    run: PriceRefreshRun,
    *,
    outcome: FeedOutcome | None = None,
    status: str = "",
    message: str = "",
) -> None:
    run.finished_at = timezone.now()
    if outcome is not None:
        for name in (
            "status",
            "rows_read",
            "rows_changed",
            "rows_unchanged",
            "rows_rejected",
            "rows_quarantined",
            "errors",
            "message",
        ):
            setattr(run, name, getattr(outcome, name))
    else:
        run.status, run.message = status, message
    run.save()
    PRICE_REFRESH_RUNS.labels(run.source.name, run.status).inc()


def price_source_refresh_enqueue(*, source_ids: Iterable[int], user: Any = None) -> int:
    """Queue a refresh of each source after the current transaction commits ("refresh now")."""
    count = 0
    for source_id in source_ids:
        # One outbox job each: a broker outage keeps it for later, an eager run that fails is
        # recorded on its run; neither is raised here nor stops the other sources.
        outbox_job_enqueue(
            task=PRICE_REFRESH_TASK,  # by name: the tasks module imports this one
            kwargs={
                "source_id": source_id,
                "trigger": RunTrigger.MANUAL,
                "user_id": getattr(user, "pk", None),
            },
        )
        count += 1
    return count
