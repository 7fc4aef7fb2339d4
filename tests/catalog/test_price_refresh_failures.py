"""Price refresh when things go wrong: broken, empty, oversized or slow feeds and server errors
apply nothing; one run at a time under a lock; a killed worker loses nothing.

Feeds are served by a local HTTP server on 127.0.0.1 (pytest-httpserver_ipv4).
"""

import datetime as dt
import threading
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.feeds import FeedTemporaryError
from catalog.models import Price, PriceSource, RunStatus
from catalog.services import feed_kinds, price_source_refresh
from catalog.services import refresh as refresh_module
from tests.catalog.price_feeds import (
    GOOD_FEED,
    HEADER,
    OLD_DAY,
    prices,
    refresh,
    serve,
    source_make,
)
from tests.workers import wait_until

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]


def test_a_malformed_feed_applies_nothing(httpserver_ipv4, catalog):
    before = Price.objects.count()
    body = '[{"sku": "GPU-A", "price": 1100}, {"sku": "CHS-A", "price": 2000}, {"sku": "CPU'
    source = source_make(serve(httpserver_ipv4, body), format="json")

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message.startswith("Unreadable feed: invalid JSON in item 3: ")
    assert Price.objects.count() == before


def test_an_empty_feed_is_rejected(httpserver_ipv4, catalog):
    run = refresh(source_make(serve(httpserver_ipv4, HEADER)))
    assert run.status == RunStatus.REJECTED
    assert run.message == "The feed has no rows: nothing was applied."


def test_a_feed_over_the_size_limit_fails_and_applies_nothing(httpserver_ipv4, catalog, settings):
    settings.PRICE_FEED_MAX_BYTES = 50
    before = Price.objects.count()
    run = refresh(source_make(serve(httpserver_ipv4, GOOD_FEED)))
    assert run.status == RunStatus.FAILED
    assert "the limit is 50" in run.message
    assert Price.objects.count() == before


def test_a_slow_feed_times_out_as_a_temporary_failure(httpserver_ipv4, catalog, settings):
    from werkzeug import Response

    settings.PRICE_FEED_FETCH_TIMEOUT_SECONDS = 0.2
    gave_up = threading.Event()

    def slow(_request):
        gave_up.wait(timeout=10)  # answers only once the client has timed out
        return Response(GOOD_FEED)

    httpserver_ipv4.expect_request("/slow").respond_with_handler(slow)
    source = source_make(httpserver_ipv4.url_for("/slow"))

    try:
        with pytest.raises(FeedTemporaryError, match="timed out"):
            price_source_refresh(source_id=source.pk)
    finally:
        gave_up.set()
        # The session's server has one thread: let it finish the slow answer (logged once sent)
        # before the next test uses it.
        wait_until(lambda: httpserver_ipv4.log, timeout=10, what="the slow answer")

    run = source.runs.get()
    assert run.status == RunStatus.FAILED
    assert "timed out after 0.2 s" in run.message
    assert "retries with backoff" in run.message


def test_a_server_error_is_recorded_and_raised_for_the_task_to_retry(httpserver_ipv4, catalog):
    httpserver_ipv4.expect_request("/feed").respond_with_data("oops", status=503)
    source = source_make(httpserver_ipv4.url_for("/feed"))

    with pytest.raises(FeedTemporaryError, match="HTTP 503"):
        price_source_refresh(source_id=source.pk, attempt=2)

    run = source.runs.get()
    assert (run.status, run.attempt) == (RunStatus.FAILED, 2)
    source.refresh_from_db()
    assert (source.lock_token, source.locked_until) == ("", None)


def test_a_missing_page_fails_without_retry(httpserver_ipv4, catalog):
    httpserver_ipv4.expect_request("/feed").respond_with_data("no", status=404)
    run = refresh(source_make(httpserver_ipv4.url_for("/feed")))
    assert run.status == RunStatus.FAILED
    assert "HTTP 404" in run.message


# --- The lock ---------------------------------------------------------------------------------


def test_a_run_while_another_holds_the_lock_is_skipped(httpserver_ipv4, catalog):
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))
    until = timezone.now() + dt.timedelta(minutes=5)
    PriceSource.objects.filter(pk=source.pk).update(lock_token="other-run", locked_until=until)
    before = Price.objects.count()

    run = refresh(source)

    assert run.status == RunStatus.SKIPPED
    assert run.message.startswith("Another run of this source holds its lock until ")
    assert Price.objects.count() == before
    source.refresh_from_db()
    assert source.lock_token == "other-run"  # untouched
    assert httpserver_ipv4.log == []  # not even fetched


def test_the_lock_is_released_after_success_and_failure(httpserver_ipv4, catalog):
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))
    refresh(source)
    source.refresh_from_db()
    assert (source.lock_token, source.locked_until) == ("", None)
    source.location = serve(httpserver_ipv4, "not,a,feed\n", path="/bad")
    source.save()
    refresh(source)
    source.refresh_from_db()
    assert (source.lock_token, source.locked_until) == ("", None)


def test_a_run_that_lost_its_lock_applies_nothing(httpserver_ipv4, catalog, monkeypatch):
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))
    real_open = refresh_module.feed_open

    @contextmanager
    def open_then_lose_the_lock(location, *, limits):
        with real_open(location, limits=limits) as fetched:
            # Meanwhile the lease expired and another run took it over.
            PriceSource.objects.filter(pk=source.pk).update(lock_token="thief")
            yield fetched

    monkeypatch.setattr(refresh_module, "feed_open", open_then_lose_the_lock)
    before = Price.objects.count()

    run = refresh(source)

    assert run.status == RunStatus.FAILED
    assert "another run took the source over" in run.message
    assert Price.objects.count() == before
    source.refresh_from_db()
    assert source.lock_token == "thief"  # not ours to release


class WorkerKilledError(BaseException):
    """Stands for SIGKILL: no except clause or finally-time release runs after it."""


def test_a_worker_killed_mid_run_loses_nothing_and_the_next_run_finishes(
    httpserver_ipv4, catalog, monkeypatch
):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))
    real_apply = feed_kinds.APPLIERS[source.kind]

    def apply_then_die(**kwargs):
        real_apply(**kwargs)  # rows written inside the transaction...
        raise WorkerKilledError  # ...then the process dies before it commits

    with monkeypatch.context() as patch:
        patch.setitem(feed_kinds.APPLIERS, source.kind, apply_then_die)
        patch.setattr(refresh_module, "source_lease_release", lambda **kwargs: None)
        with pytest.raises(WorkerKilledError):
            price_source_refresh(source_id=source.pk)

    dead = source.runs.get()
    assert dead.status == RunStatus.RUNNING
    assert prices(gpu) == [(Decimal("1000.00"), OLD_DAY)]  # nothing half-applied
    assert refresh(source).status == RunStatus.SKIPPED  # the dead run's lease still holds

    PriceSource.objects.filter(pk=source.pk).update(
        locked_until=timezone.now() - dt.timedelta(seconds=1)
    )
    run = refresh(source)

    assert run.status == RunStatus.APPLIED
    assert run.rows_changed == 2
    assert prices(gpu)[-1] == (Decimal("1100.00"), dt.date(2026, 11, 30))
    dead.refresh_from_db()
    assert dead.status == RunStatus.ABANDONED
    assert dead.finished_at == run.started_at
