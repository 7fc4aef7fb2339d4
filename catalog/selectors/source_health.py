"""Whether each price source keeps to its schedule: a source is **stale** when a run was due by
its cron schedule (after its last success, or after it was created if it never succeeded) and
none has succeeded within ``PRICE_SOURCE_STALE_GRACE_MINUTES`` of that moment (the retries'
window). Disabled sources are never stale: nobody expects them to run. Shown on the price source
admin and exported as a metric (``gpuquote_price_source_stale``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from celery.schedules import crontab
from django.conf import settings
from django.db.models import Max, Q
from django.utils import timezone

from catalog.models import PriceSource, RunStatus

SUCCEEDED = (RunStatus.APPLIED, RunStatus.APPLIED_WITH_ERRORS)
# A source's last successful run's end, as an annotation (one query for a list of sources).
LAST_SUCCESS = Max("runs__finished_at", filter=Q(runs__status__in=SUCCEEDED))


@dataclass(frozen=True, slots=True)
class SourceHealth:
    name: str
    kind: str
    enabled: bool
    last_success_at: dt.datetime | None
    next_due_at: dt.datetime  # the first run due after the last success (or the creation)
    stale: bool


def next_due_after(schedule: str, moment: dt.datetime) -> dt.datetime:
    """The first time after ``moment`` that the cron ``schedule`` (5 fields, UTC) fires."""
    minute, hour, day_of_month, month_of_year, day_of_week = schedule.split()
    cron = crontab(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
    )
    start, delta, _now = cron.remaining_delta(moment.astimezone(dt.UTC))
    return start + delta


def source_health(
    source: PriceSource, last_success_at: dt.datetime | None, now: dt.datetime
) -> SourceHealth:
    grace = dt.timedelta(minutes=settings.PRICE_SOURCE_STALE_GRACE_MINUTES)
    due = next_due_after(source.schedule, last_success_at or source.created_at)
    return SourceHealth(
        name=source.name,
        kind=source.kind,
        enabled=source.enabled,
        last_success_at=last_success_at,
        next_due_at=due,
        stale=source.enabled and due + grace < now,
    )


def price_sources_health(now: dt.datetime | None = None) -> list[SourceHealth]:
    """Every source's health, by name (one query)."""
    now = now or timezone.now()
    sources = PriceSource.objects.annotate(last_success_at=LAST_SUCCESS).order_by("name")
    return [source_health(source, source.last_success_at, now) for source in sources]
