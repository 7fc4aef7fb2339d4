"""A price source is stale when a run its cron schedule made due has not succeeded within the
grace (catalog.selectors.source_health); every finished run is counted by source and status."""

from __future__ import annotations

import datetime as dt

import pytest
from prometheus_client import REGISTRY

from catalog.models import PriceRefreshRun, PriceSource, RunStatus
from catalog.selectors.source_health import next_due_after, price_sources_health
from catalog.services import price_source_refresh
from tests.factories import price_source_make

UTC = dt.UTC


def test_next_due_after_follows_the_cron_schedule():
    daily = "17 4 * * *"
    assert next_due_after(daily, dt.datetime(2026, 12, 1, 3, 0, tzinfo=UTC)) == dt.datetime(
        2026, 12, 1, 4, 17, tzinfo=UTC
    )
    assert next_due_after(daily, dt.datetime(2026, 12, 1, 5, 0, tzinfo=UTC)) == dt.datetime(
        2026, 12, 2, 4, 17, tzinfo=UTC
    )
    mondays = "0 6 * * 1"  # 2026-12-05 is a Saturday
    assert next_due_after(mondays, dt.datetime(2026, 12, 5, 12, 0, tzinfo=UTC)) == dt.datetime(
        2026, 12, 7, 6, 0, tzinfo=UTC
    )


@pytest.mark.django_db
def test_stale_once_a_due_run_has_not_succeeded_within_the_grace(settings):
    settings.PRICE_SOURCE_STALE_GRACE_MINUTES = 120
    source = price_source_make(name="Daily", schedule="17 4 * * *")
    succeeded = dt.datetime(2026, 12, 1, 4, 20, tzinfo=UTC)
    PriceRefreshRun.objects.create(
        source=source,
        status=RunStatus.APPLIED,
        trigger="schedule",
        started_at=succeeded,
        finished_at=succeeded,
    )
    PriceRefreshRun.objects.create(  # a failure later does not count as a success
        source=source,
        status=RunStatus.FAILED,
        trigger="schedule",
        started_at=succeeded + dt.timedelta(days=1),
        finished_at=succeeded + dt.timedelta(days=1),
    )

    def health(now: dt.datetime):
        [found] = price_sources_health(now)
        return found

    within_grace = health(dt.datetime(2026, 12, 2, 6, 0, tzinfo=UTC))
    past_grace = health(dt.datetime(2026, 12, 2, 6, 30, tzinfo=UTC))

    assert within_grace.last_success_at == succeeded
    assert within_grace.next_due_at == dt.datetime(2026, 12, 2, 4, 17, tzinfo=UTC)
    assert within_grace.stale is False
    assert past_grace.stale is True
    PriceSource.objects.filter(pk=source.pk).update(enabled=False)
    assert health(dt.datetime(2026, 12, 9, tzinfo=UTC)).stale is False


@pytest.mark.django_db
def test_every_finished_run_is_counted_by_source_and_status():
    source = price_source_make(name="Sample supplier", location="no-such-file.csv")

    def counted(status: str) -> float:
        labels = {"source": source.name, "status": status}
        return REGISTRY.get_sample_value("gpuquote_price_refresh_runs_total", labels) or 0

    before = counted(RunStatus.FAILED)
    run = price_source_refresh(source_id=source.pk)

    assert run.status == RunStatus.FAILED
    assert counted(RunStatus.FAILED) == before + 1


@pytest.mark.django_db
def test_the_admin_lists_each_sources_last_run_counts_last_success_and_staleness(
    client, staff_user
):
    source = price_source_make(name="Counted supplier", schedule="17 4 * * *")
    finished = dt.datetime(2026, 11, 1, 4, 20, tzinfo=UTC)
    PriceRefreshRun.objects.create(
        source=source,
        status=RunStatus.APPLIED_WITH_ERRORS,
        trigger="schedule",
        started_at=finished,
        finished_at=finished,
        rows_changed=12,
        rows_rejected=3,
        rows_quarantined=1,
    )
    client.force_login(staff_user)

    page = client.get("/admin/catalog/pricesource/").content.decode()

    assert "12 / 3 / 1" in page
    stale_cell = page.split('class="field-stale">', 1)[1].split("</td>", 1)[0]
    assert 'alt="True"' in stale_cell  # its daily run has not succeeded since 1 November
