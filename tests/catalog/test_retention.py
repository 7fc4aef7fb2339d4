"""The retention purge of price refresh runs (catalog.services.retention) and its daily task."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import timezone

from catalog.models import PriceRefreshRun, PriceSource, QuarantinedPrice, RunStatus
from catalog.services.retention import price_refresh_runs_purge
from catalog.tasks import purge_price_refresh_runs
from tests.factories import gpu_make, price_source_make

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2027, 6, 1, 3, 0, tzinfo=dt.UTC)


def _run_make(source: PriceSource, *, days_ago: int, status: str = RunStatus.APPLIED):
    started = NOW - dt.timedelta(days=days_ago)
    finished = None if status == RunStatus.RUNNING else started + dt.timedelta(minutes=1)
    return PriceRefreshRun.objects.create(
        source=source,
        status=status,
        trigger="schedule",
        started_at=started,
        finished_at=finished,
    )


def test_finished_runs_older_than_the_retention_are_purged_but_the_latest_of_each_source(
    settings,
):
    settings.PRICE_REFRESH_RUN_RETENTION_DAYS = 180
    busy = price_source_make()
    _run_make(busy, days_ago=400, status=RunStatus.FAILED)
    _run_make(busy, days_ago=300, status=RunStatus.SKIPPED)
    recent = _run_make(busy, days_ago=10)
    quiet = price_source_make()  # its only runs are old: the latest of them stays
    _run_make(quiet, days_ago=500, status=RunStatus.REJECTED)
    quiet_latest = _run_make(quiet, days_ago=400)

    assert price_refresh_runs_purge(now=NOW) == 3

    assert set(PriceRefreshRun.objects.values_list("pk", flat=True)) == {
        recent.pk,
        quiet_latest.pk,
    }
    assert price_refresh_runs_purge(now=NOW) == 0


def test_a_running_run_is_kept_and_so_is_the_latest_finished_one_before_it(settings):
    settings.PRICE_REFRESH_RUN_RETENTION_DAYS = 180
    source = price_source_make()
    older_finished = _run_make(source, days_ago=400)
    latest_finished = _run_make(source, days_ago=300, status=RunStatus.APPLIED_WITH_ERRORS)
    stuck = _run_make(source, days_ago=200, status=RunStatus.RUNNING)

    assert price_refresh_runs_purge(now=NOW) == 1

    assert set(PriceRefreshRun.objects.values_list("pk", flat=True)) == {
        latest_finished.pk,
        stuck.pk,
    }
    assert not PriceRefreshRun.objects.filter(pk=older_finished.pk).exists()


def test_a_run_holding_a_quarantined_price_is_kept(settings):
    settings.PRICE_REFRESH_RUN_RETENTION_DAYS = 180
    source = price_source_make()
    holding = _run_make(source, days_ago=400)
    _run_make(source, days_ago=10)
    QuarantinedPrice.objects.create(
        source=source,
        run=holding,
        row=2,
        part=gpu_make(),
        price_kind="purchase",
        amount=Decimal("1500.00"),
        currency="EUR",
        observed_on=dt.date(2026, 5, 1),
        previous_amount=Decimal("1000.00"),
        previous_observed_on=dt.date(2026, 4, 1),
        source_detail="Supplier feed",
    )

    assert price_refresh_runs_purge(now=NOW) == 0
    assert PriceRefreshRun.objects.filter(pk=holding.pk).exists()


def test_the_retention_is_a_setting(settings):
    source = price_source_make()
    _run_make(source, days_ago=100)
    _run_make(source, days_ago=1)

    settings.PRICE_REFRESH_RUN_RETENTION_DAYS = 180
    assert price_refresh_runs_purge(now=NOW) == 0
    settings.PRICE_REFRESH_RUN_RETENTION_DAYS = 30
    assert price_refresh_runs_purge(now=NOW) == 1


def test_the_purge_task_is_scheduled_daily():
    entries = [
        entry
        for entry in settings.CELERY_BEAT_SCHEDULE.values()
        if entry["task"] == purge_price_refresh_runs.name
    ]
    assert entries == [{"task": "catalog.purge_price_refresh_runs", "schedule": 24 * 60 * 60}]


def test_the_purge_task_deletes_old_runs_and_can_run_twice(eager_celery):
    source = price_source_make()
    started = timezone.now() - dt.timedelta(days=365)
    for status in (RunStatus.FAILED, RunStatus.APPLIED):
        PriceRefreshRun.objects.create(
            source=source, status=status, trigger="schedule", started_at=started
        )
    latest = PriceRefreshRun.objects.create(
        source=source, status=RunStatus.APPLIED, trigger="manual", started_at=timezone.now()
    )

    assert purge_price_refresh_runs.delay().get() == 2
    assert purge_price_refresh_runs.delay().get() == 0
    assert list(PriceRefreshRun.objects.values_list("pk", flat=True)) == [latest.pk]
