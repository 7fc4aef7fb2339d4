"""Beat schedules of price sources: each source's cron entry lives in django-celery-beat's tables.

The source is the one place to edit a schedule; its ``PeriodicTask`` follows it.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from catalog.models import PriceSource
from catalog.services.refresh import PRICE_REFRESH_TASK


def price_source_schedule_sync(*, source: PriceSource) -> PeriodicTask:
    """Create or update the source's django-celery-beat entry (the schedule lives in the DB)."""
    minute, hour, day_of_month, month_of_year, day_of_week = source.schedule.split()
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
        timezone=settings.CELERY_TIMEZONE,
    )
    task = source.periodic_task or PeriodicTask()
    task.name = f"Refresh prices: {source.name} (source {source.pk})"[:200]
    task.task = PRICE_REFRESH_TASK
    task.crontab = crontab
    task.interval = task.solar = task.clocked = None
    task.args = "[]"
    task.kwargs = json.dumps({"source_id": source.pk})
    task.enabled = source.enabled
    task.description = f"Managed by the price source '{source.name}': edit the schedule there."
    task.save()
    if source.periodic_task_id != task.pk:
        source.periodic_task = task
        PriceSource.objects.filter(pk=source.pk).update(periodic_task=task)
    return task


@transaction.atomic
def price_source_delete(*, source: PriceSource) -> None:
    """Delete a source that never ran, and its beat entry (sources with runs: disable them)."""
    task = source.periodic_task
    source.delete()
    if task is not None:
        task.delete()
