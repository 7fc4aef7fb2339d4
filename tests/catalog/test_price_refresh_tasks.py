"""The Celery task (eager here), beat entries per source and the refresh_prices command."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from django_celery_beat.models import PeriodicTask
from django_celery_beat.schedulers import ModelEntry

from catalog.feeds import FeedTemporaryError
from catalog.models import Price, PriceSource, RunStatus, RunTrigger
from catalog.services import PRICE_REFRESH_TASK, price_source_delete, price_source_schedule_sync
from catalog.tasks import refresh_price_source
from gpuquote.celery import app
from tests.factories import gpu_make, price_make

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]

FEED = "sku,price,currency,observed_on\nGPU-T,1100.00,EUR,2026-11-30\n"


@pytest.fixture(autouse=True)
def celery_eager():
    """These tests mean eager mode (in CI REDIS_URL is set; tests/integration runs a worker)."""
    before = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before


@pytest.fixture
def gpu():
    part = gpu_make(sku="GPU-T")
    price_make(part, amount=Decimal("1000.00"))
    return part


def source_make(location: str, **overrides) -> PriceSource:
    values = {"name": "Tasks", "kind": "supplier", "location": location, "format": "csv"}
    return PriceSource.objects.create(currency="EUR", **(values | overrides))


def test_the_task_is_registered_by_name_acks_late_and_retries_only_temporary_errors():
    task = app.tasks[PRICE_REFRESH_TASK]
    assert task.name == refresh_price_source.name == "catalog.refresh_price_source"
    assert task.acks_late is True
    assert task.reject_on_worker_lost is True
    assert task.autoretry_for == (FeedTemporaryError,)
    assert task.max_retries == django_settings.PRICE_FEED_MAX_RETRIES == 5
    assert (task.retry_backoff, task.retry_backoff_max, task.retry_jitter) == (30, 1800, True)


@pytest.fixture
def eager_retries():
    """Eager mode re-raises Celery's Retry when it propagates errors; let apply() retry instead."""
    before = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = before


@pytest.mark.usefixtures("eager_retries")
def test_temporary_failures_are_retried_until_the_feed_answers(httpserver_ipv4, gpu):
    for status in (503, 502):
        httpserver_ipv4.expect_ordered_request("/feed").respond_with_data("busy", status=status)
    httpserver_ipv4.expect_ordered_request("/feed").respond_with_data(FEED)
    source = source_make(httpserver_ipv4.url_for("/feed"))

    result = refresh_price_source.delay(source_id=source.pk).get()

    runs = list(source.runs.order_by("id").values_list("attempt", "status"))
    assert runs == [(1, RunStatus.FAILED), (2, RunStatus.FAILED), (3, RunStatus.APPLIED)]
    assert result == {"run_id": source.runs.order_by("id").last().pk, "status": "applied"}
    assert Price.objects.filter(part=gpu, amount=Decimal("1100.00")).count() == 1
    httpserver_ipv4.check_assertions()


@pytest.mark.usefixtures("eager_retries")
def test_retries_are_bounded(httpserver_ipv4, gpu, monkeypatch):
    monkeypatch.setattr(refresh_price_source, "max_retries", 2)
    httpserver_ipv4.expect_request("/feed").respond_with_data("down", status=500)
    source = source_make(httpserver_ipv4.url_for("/feed"))

    result = refresh_price_source.delay(source_id=source.pk)

    assert result.state == "FAILURE"
    with pytest.raises(FeedTemporaryError, match="HTTP 500"):
        result.get()

    assert list(source.runs.order_by("id").values_list("attempt", flat=True)) == [1, 2, 3]
    assert len(httpserver_ipv4.log) == 3


def test_permanent_failures_are_not_retried(httpserver_ipv4, gpu):
    httpserver_ipv4.expect_request("/feed").respond_with_data("gone", status=410)
    source = source_make(httpserver_ipv4.url_for("/feed"))

    result = refresh_price_source.delay(source_id=source.pk).get()

    assert result["status"] == RunStatus.FAILED
    assert len(httpserver_ipv4.log) == 1


def test_a_task_for_a_deleted_source_does_nothing():
    assert refresh_price_source.delay(source_id=987654).get() is None


# --- Beat entries ----------------------------------------------------------------------------


def test_saving_a_source_creates_then_updates_its_beat_entry():
    source = source_make("supplier-eur.csv", schedule="17 4 * * 1")

    entry = price_source_schedule_sync(source=source)

    source.refresh_from_db()
    assert source.periodic_task == entry
    assert entry.task == PRICE_REFRESH_TASK
    assert json.loads(entry.kwargs) == {"source_id": source.pk}
    assert entry.enabled is True
    cron = entry.crontab
    assert (cron.minute, cron.hour, cron.day_of_month, cron.month_of_year, cron.day_of_week) == (
        "17",
        "4",
        "*",
        "*",
        "1",
    )
    assert str(cron.timezone) == "UTC"

    source.schedule, source.enabled, source.name = "0 */6 * * *", False, "Renamed"
    source.save()
    updated = price_source_schedule_sync(source=source)

    assert updated.pk == entry.pk
    assert PeriodicTask.objects.filter(task=PRICE_REFRESH_TASK).count() == 1
    assert (updated.crontab.minute, updated.crontab.hour, updated.enabled) == ("0", "*/6", False)
    assert updated.name == f"Refresh prices: Renamed (source {source.pk})"


def test_deleting_a_source_deletes_its_beat_entry():
    source = source_make("x.csv")
    entry = price_source_schedule_sync(source=source)
    price_source_delete(source=source)
    assert not PeriodicTask.objects.filter(pk=entry.pk).exists()


def test_a_beat_dispatch_of_the_entry_refreshes_the_source(httpserver_ipv4, gpu):
    source = source_make(httpserver_ipv4.url_for("/feed"))
    httpserver_ipv4.expect_request("/feed").respond_with_data(FEED)
    entry = ModelEntry(price_source_schedule_sync(source=source), app=app)

    # What beat's scheduler does with a due entry (eager here: it runs in-process).
    app.tasks[entry.task].apply_async(entry.args, entry.kwargs, **entry.options)

    run = source.runs.get()
    assert (run.status, run.trigger) == (RunStatus.APPLIED, RunTrigger.SCHEDULE)
    assert run.task_id  # the Celery task id is recorded


# --- Management command -------------------------------------------------------------------------


def test_the_command_refreshes_a_named_source_and_reports(httpserver_ipv4, gpu):
    httpserver_ipv4.expect_request("/feed").respond_with_data(FEED + "GPU-NONE,1.00,EUR,\n")
    source_make(httpserver_ipv4.url_for("/feed"), name="EU list")
    source_make("unused.csv", name="Other", enabled=False)
    out = StringIO()

    with pytest.raises(CommandError, match="1 of 1 price sources failed"):
        call_command("refresh_prices", "EU list", stdout=out)

    assert out.getvalue().splitlines() == [
        "EU list: Rejected: nothing applied. 1 of 2 rows (50.0 %) have errors, more than the "
        "10 % allowed: the whole feed was rejected, nothing was applied.",
        "  row 3, sku: is not in the catalog 'GPU-NONE'",
    ]


def test_the_command_refreshes_every_enabled_source_by_default(httpserver_ipv4, gpu):
    httpserver_ipv4.expect_request("/feed").respond_with_data(FEED)
    source = source_make(httpserver_ipv4.url_for("/feed"), name="EU list")
    source_make("unused.csv", name="Disabled", enabled=False)
    out = StringIO()

    call_command("refresh_prices", stdout=out)

    assert out.getvalue() == (
        "EU list: Applied. 1 prices recorded, 0 unchanged, 0 held for review, 0 rows rejected.\n"
    )
    assert source.runs.get().trigger == RunTrigger.COMMAND
    call_command("refresh_prices", str(source.pk), stdout=StringIO())  # by id, too
    assert source.runs.count() == 2


def test_the_command_names_unknown_sources():
    source_make("a.csv", name="Known")
    with pytest.raises(CommandError, match="No price source 'Nope' \\(known: Known\\)"):
        call_command("refresh_prices", "Nope")


def test_the_command_survives_a_temporary_failure(httpserver_ipv4, gpu):
    httpserver_ipv4.expect_request("/feed").respond_with_data("down", status=503)
    source_make(httpserver_ipv4.url_for("/feed"), name="Flaky")
    out = StringIO()
    with pytest.raises(CommandError, match="1 of 1"):
        call_command("refresh_prices", "Flaky", stdout=out)
    assert out.getvalue().startswith("Flaky: Failed: nothing applied. http://127.0.0.1:")
