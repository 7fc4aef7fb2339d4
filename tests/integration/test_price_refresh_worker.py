"""A real Celery worker (subprocess, solo pool) on the real Redis broker and PostgreSQL.

From a beat-style dispatch of a price source's scheduled task to prices in the database; retries
of a failing feed; the lock held across processes; a worker killed mid-run losing nothing.
CI sets REDIS_URL and DATABASE_URL (.ci/run); without them these tests are skipped.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
import uuid
from collections.abc import Iterator
from decimal import Decimal

import pytest
from django.utils import timezone
from django_celery_beat.schedulers import ModelEntry
from pytest_httpserver import HTTPServer
from werkzeug import Response

from catalog.models import Price, PriceRefreshRun, PriceSource, RunStatus, RunTrigger
from catalog.services import price_source_schedule_sync
from catalog.tasks import refresh_price_source
from gpuquote.celery import app
from tests.factories import gpu_make, price_make
from tests.workers import Worker, http_server, wait_until

REDIS_URL = os.environ.get("REDIS_URL", "")
DATABASE_URL = os.environ.get("DATABASE_URL", "")
RESULT_TIMEOUT_S = 60
FEED = "sku,price,currency,observed_on\nGPU-W,1100.00,EUR,2026-11-30\n"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not REDIS_URL, reason="needs REDIS_URL (Redis broker) and DATABASE_URL (PostgreSQL)"
    ),
    pytest.mark.skipif(
        not DATABASE_URL.startswith(("postgres://", "postgresql://")),
        reason="needs DATABASE_URL on PostgreSQL: a worker process cannot share SQLite's "
        "in-memory test database",
    ),
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("outbound_allows_loopback"),
]


# The feed retries of these tests wait one or two seconds, not minutes; the feed server is on
# 127.0.0.1 (the worker's side of ``outbound_allows_loopback``).
WORKER_ENV = {
    "OUTBOUND_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
    "PRICE_FEED_RETRY_BACKOFF_SECONDS": "1",
    "PRICE_FEED_RETRY_BACKOFF_MAX_SECONDS": "2",
    "PRICE_FEED_FETCH_TIMEOUT_SECONDS": "20",
}


@pytest.fixture
def queue() -> str:
    return f"gpuquote-it-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def start_worker(queue, tmp_path) -> Iterator:
    workers: list[Worker] = []

    def start() -> Worker:
        worker = Worker(tmp_path / f"worker-{len(workers)}.log", queue=queue, env=WORKER_ENV)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def feed_server() -> Iterator[HTTPServer]:
    with http_server() as server:
        yield server


@pytest.fixture
def gpu():
    part = gpu_make(sku="GPU-W")
    price_make(part, amount=Decimal("1000.00"), observed_on=dt.date(2026, 10, 1))
    return part


def beat_dispatch(source: PriceSource, queue: str):
    """Send the source's beat entry the way celery beat does (Scheduler.apply_async)."""
    entry = ModelEntry(price_source_schedule_sync(source=source), app=app)
    assert entry.task == refresh_price_source.name
    task = app.tasks[entry.task]
    return task.apply_async(entry.args, entry.kwargs, **(entry.options | {"queue": queue}))


def source_make(location: str) -> PriceSource:
    return PriceSource.objects.create(
        name="Worker feed", kind="supplier", location=location, format="csv", currency="EUR"
    )


def test_a_beat_dispatch_runs_on_a_real_worker_and_records_prices(
    start_worker, queue, feed_server, gpu
):
    feed_server.expect_request("/feed").respond_with_data(FEED)
    source = source_make(feed_server.url_for("/feed"))
    worker = start_worker()

    result = beat_dispatch(source, queue)
    outcome = result.get(timeout=RESULT_TIMEOUT_S)

    run = PriceRefreshRun.objects.get(source=source)
    assert outcome == {"run_id": run.pk, "status": RunStatus.APPLIED}, worker.output()
    assert (run.trigger, run.task_id, run.rows_changed) == (RunTrigger.SCHEDULE, result.id, 1)
    assert list(
        Price.objects.filter(part=gpu).order_by("observed_on").values_list("amount", flat=True)
    ) == [
        Decimal("1000.00"),
        Decimal("1100.00"),
    ]
    # Beat fires again: same feed, nothing new.
    assert beat_dispatch(source, queue).get(timeout=RESULT_TIMEOUT_S)["status"] == "applied"
    assert Price.objects.filter(part=gpu).count() == 2


def test_a_failing_feed_is_retried_by_the_worker_with_backoff(
    start_worker, queue, feed_server, gpu
):
    feed_server.expect_ordered_request("/feed").respond_with_data("busy", status=503)
    feed_server.expect_ordered_request("/feed").respond_with_data(FEED)
    source = source_make(feed_server.url_for("/feed"))
    worker = start_worker()

    outcome = beat_dispatch(source, queue).get(timeout=RESULT_TIMEOUT_S)

    assert outcome["status"] == RunStatus.APPLIED, worker.output()
    runs = list(source.runs.order_by("id").values_list("attempt", "status"))
    assert runs == [(1, RunStatus.FAILED), (2, RunStatus.APPLIED)]
    assert Price.objects.filter(part=gpu, amount=Decimal("1100.00")).count() == 1


def test_the_lock_holds_across_workers_and_a_killed_worker_loses_nothing(
    start_worker, queue, feed_server, gpu
):
    release = threading.Event()
    calls = []

    def slow_first_time(_request):
        calls.append(time.monotonic())
        if len(calls) == 1:
            release.wait(timeout=30)  # the first fetch hangs until its worker is killed
        return Response(FEED, content_type="text/csv")

    feed_server.expect_request("/feed").respond_with_handler(slow_first_time)
    source = source_make(feed_server.url_for("/feed"))
    first = start_worker()

    beat_dispatch(source, queue)
    running = wait_until(
        lambda: source.runs.filter(status=RunStatus.RUNNING).first(),
        what="the first run to start",
        process=first,
    )
    wait_until(lambda: calls, what="the first fetch", process=first)

    # A second worker (another host) gets the next dispatch while the first run holds the lock.
    second = start_worker()
    skipped = beat_dispatch(source, queue).get(timeout=RESULT_TIMEOUT_S)
    assert skipped["status"] == RunStatus.SKIPPED, second.output()

    first.kill()
    release.set()
    source.refresh_from_db()
    assert source.lock_token  # the dead run's lease is still there...
    assert Price.objects.filter(part=gpu).count() == 1  # ...and nothing was applied

    # Time passes: the lease expires (PRICE_FEED_LOCK_SECONDS), then beat fires again.
    PriceSource.objects.filter(pk=source.pk).update(
        locked_until=timezone.now() - dt.timedelta(seconds=1)
    )
    finished = beat_dispatch(source, queue).get(timeout=RESULT_TIMEOUT_S)

    assert finished["status"] == RunStatus.APPLIED, second.output()
    running.refresh_from_db()
    assert running.status == RunStatus.ABANDONED
    assert Price.objects.filter(part=gpu, amount=Decimal("1100.00")).count() == 1
