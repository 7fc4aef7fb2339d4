"""Price refresh service: fetch, validate every row, apply all or nothing, quarantine, lock.

Feeds are served by a local HTTP server on 127.0.0.1 (pytest-httpserver_ipv4).
"""

import datetime as dt
import json
import threading
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.feeds import FeedTemporaryError
from catalog.models import (
    CloudPrice,
    Price,
    PriceKind,
    PriceRefreshRun,
    PriceSource,
    QuarantinedPrice,
    ReviewStatus,
    RunStatus,
)
from catalog.selectors import (
    cloud_price_current_get,
    cloud_prices_current_get,
    current_price_queryset,
    price_is_stale,
    stale_price_queryset,
)
from catalog.services import (
    QuarantineReviewError,
    price_source_refresh,
    quarantined_price_approve,
    quarantined_price_reject,
)
from catalog.services import feed_apply as feed_apply_module
from catalog.services import refresh as refresh_module
from engine.money import Money
from tests.factories import chassis_make, cpu_make, gpu_make, price_make
from tests.workers import wait_until

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]

OLD_DAY = dt.date(2026, 10, 1)
NEW_DAY = "2026-11-30"
HEADER = "sku,price,currency,observed_on\n"


def source_make(url: str, **overrides) -> PriceSource:
    values = {
        "name": "Distributor EU",
        "kind": "supplier",
        "location": url,
        "format": "csv",
        "currency": "EUR",
    }
    return PriceSource.objects.create(**(values | overrides))


def serve(httpserver_ipv4, body: str, path: str = "/feed") -> str:
    httpserver_ipv4.expect_request(path).respond_with_data(body)
    return httpserver_ipv4.url_for(path)


def refresh(source: PriceSource) -> PriceRefreshRun:
    run = price_source_refresh(source_id=source.pk)
    run.refresh_from_db()
    return run


def prices(part) -> list[tuple[Decimal, dt.date]]:
    return list(
        Price.objects.filter(part=part, price_kind=PriceKind.PURCHASE, currency="EUR")
        .order_by("observed_on", "id")
        .values_list("amount", "observed_on")
    )


def counts(run: PriceRefreshRun) -> dict[str, int]:
    return {
        "read": run.rows_read,
        "changed": run.rows_changed,
        "unchanged": run.rows_unchanged,
        "rejected": run.rows_rejected,
        "quarantined": run.rows_quarantined,
    }


@pytest.fixture
def catalog():
    """A GPU and a CPU with a current price, a chassis without one."""
    gpu, cpu, chassis = gpu_make(sku="GPU-A"), cpu_make(sku="CPU-A"), chassis_make(sku="CHS-A")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=OLD_DAY)
    price_make(cpu, amount=Decimal("500.00"), observed_on=OLD_DAY)
    return gpu, cpu, chassis


GOOD_FEED = HEADER + f"GPU-A,1100.00,EUR,{NEW_DAY}\nCPU-A,500.00,EUR,{NEW_DAY}\nCHS-A,2000,,\n"


def test_a_good_feed_adds_a_row_per_changed_price_and_none_for_unchanged(httpserver_ipv4, catalog):
    gpu, cpu, chassis = catalog
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))

    run = refresh(source)

    assert run.status == RunStatus.APPLIED
    assert counts(run) == {"read": 3, "changed": 2, "unchanged": 1, "rejected": 0, "quarantined": 0}
    assert run.errors == []
    assert run.bytes_read == len(GOOD_FEED)
    assert run.finished_at >= run.started_at
    assert prices(gpu) == [
        (Decimal("1000.00"), OLD_DAY),
        (Decimal("1100.00"), dt.date(2026, 11, 30)),
    ]
    assert prices(cpu) == [(Decimal("500.00"), OLD_DAY)]
    assert prices(chassis) == [(Decimal("2000.00"), timezone.localdate())]
    new = Price.objects.get(part=gpu, amount=Decimal("1100.00"))
    assert new.source == f"Distributor EU price feed: {source.location}"
    assert run.message == "2 prices recorded, 1 unchanged, 0 held for review, 0 rows rejected."


def test_running_the_same_feed_twice_is_a_no_op(httpserver_ipv4, catalog):
    source = source_make(serve(httpserver_ipv4, GOOD_FEED))
    refresh(source)
    before = list(Price.objects.order_by("id").values_list("id", "amount", "observed_on"))

    again = refresh(source)

    assert again.status == RunStatus.APPLIED
    assert counts(again) == {
        "read": 3,
        "changed": 0,
        "unchanged": 3,
        "rejected": 0,
        "quarantined": 0,
    }
    assert list(Price.objects.order_by("id").values_list("id", "amount", "observed_on")) == before


def test_existing_price_rows_are_never_modified(httpserver_ipv4, catalog):
    fields = ("id", "part_id", "price_kind", "amount", "currency", "observed_on", "source")
    before = list(Price.objects.order_by("id").values_list(*fields))
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,900.00,EUR,{NEW_DAY}\n"))

    refresh(source)

    assert list(Price.objects.order_by("id").values_list(*fields))[: len(before)] == before
    assert Price.objects.count() == len(before) + 1


def test_an_older_observation_is_kept_as_history_without_becoming_current(httpserver_ipv4, catalog):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, HEADER + "GPU-A,1200.00,EUR,2026-09-01\n"))

    run = refresh(source)

    assert run.rows_changed == 1
    current = current_price_queryset(currency="EUR").get(part=gpu)
    assert current.amount == Decimal("1000.00")


def test_a_partial_feed_applies_its_good_rows_and_names_the_bad_ones(httpserver_ipv4, catalog):
    for number in range(1, 19):
        gpu_make(sku=f"GPU-{number:02d}")
    lines = [f"GPU-{number:02d},{number}00.00,EUR,{NEW_DAY}" for number in range(1, 19)]
    lines.insert(5, f"GPU-NOPE,100.00,EUR,{NEW_DAY}")
    lines.append(f"GPU-A,1050.00,EUR,{NEW_DAY}")
    source = source_make(serve(httpserver_ipv4, HEADER + "\n".join(lines) + "\n"))

    run = refresh(source)

    assert run.status == RunStatus.APPLIED_WITH_ERRORS
    assert counts(run) == {
        "read": 20,
        "changed": 19,
        "unchanged": 0,
        "rejected": 1,
        "quarantined": 0,
    }
    assert run.errors == [
        {"row": 7, "field": "sku", "message": "is not in the catalog", "value": "GPU-NOPE"}
    ]


BAD_ROWS = (
    HEADER
    + f"GPU-A,1100.00,EUR,{NEW_DAY}\n"  # 2: good
    + f"GPU-ZZZ,10.00,EUR,{NEW_DAY}\n"  # 3: unknown SKU
    + f"CPU-A,-5,EUR,{NEW_DAY}\n"  # 4: negative
    + f"CPU-A,cheap,EUR,{NEW_DAY}\n"  # 5: not a number
    + f"CHS-A,10.00,GBP,{NEW_DAY}\n"  # 6: unknown currency
    + f"GPU-A,1100.00,EUR,{NEW_DAY}\n"  # 7: duplicate of row 2
)


def test_a_feed_with_too_many_bad_rows_is_rejected_whole_with_a_row_report(
    httpserver_ipv4, catalog
):
    before = Price.objects.count()
    source = source_make(serve(httpserver_ipv4, BAD_ROWS))

    run = refresh(source)

    assert run.status == RunStatus.REJECTED
    assert counts(run) == {"read": 6, "changed": 0, "unchanged": 0, "rejected": 5, "quarantined": 0}
    assert Price.objects.count() == before  # GPU-A's good row was not applied either
    assert run.errors == [
        {"row": 3, "field": "sku", "message": "is not in the catalog", "value": "GPU-ZZZ"},
        {"row": 4, "field": "price", "message": "must not be negative", "value": "-5"},
        {
            "row": 5,
            "field": "price",
            "message": "is not a number (use a dot for decimals, no thousands separator)",
            "value": "cheap",
        },
        {
            "row": 6,
            "field": "currency",
            "message": "unknown currency 'GBP' (known: EUR, USD)",
            "value": "GBP",
        },
        {
            "row": 7,
            "field": "row",
            "message": "duplicates row 2 (same sku and currency)",
            "value": "GPU-A / EUR",
        },
    ]
    assert run.message == (
        "5 of 6 rows (83.3 %) have errors, more than the 10 % allowed: the whole feed was "
        "rejected, nothing was applied."
    )


def test_the_error_rate_threshold_is_a_setting(httpserver_ipv4, catalog, settings):
    settings.PRICE_FEED_MAX_ERROR_PCT = 90
    run = refresh(source_make(serve(httpserver_ipv4, BAD_ROWS)))
    assert run.status == RunStatus.APPLIED_WITH_ERRORS
    assert run.rows_changed == 1


def test_the_stored_error_report_is_capped(httpserver_ipv4, catalog, settings):
    settings.PRICE_FEED_MAX_REPORTED_ERRORS = 2
    run = refresh(source_make(serve(httpserver_ipv4, BAD_ROWS)))
    assert run.rows_rejected == 5
    assert [error["row"] for error in run.errors] == [3, 4]


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


def test_a_file_source_is_read_from_the_feed_root(tmp_path, settings, catalog):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    (tmp_path / "eu.csv").write_text(GOOD_FEED)
    run = refresh(source_make("eu.csv"))
    assert run.status == RunStatus.APPLIED
    assert run.rows_changed == 2


def test_a_json_feed_with_a_column_map(httpserver_ipv4, catalog):
    gpu = catalog[0]
    body = json.dumps([{"Part": "GPU-A", "Net": "1010.10", "Date": NEW_DAY, "Ref": "Q-17"}])
    source = source_make(
        serve(httpserver_ipv4, body),
        format="json",
        column_map={"sku": "Part", "price": "Net", "observed_on": "Date", "source": "Ref"},
    )
    run = refresh(source)
    assert run.status == RunStatus.APPLIED
    assert Price.objects.filter(part=gpu, amount=Decimal("1010.10"), source="Q-17").count() == 1


def test_hosting_feeds_record_managed_monthly_prices_for_gpus_and_chassis(
    httpserver_ipv4, catalog, settings
):
    settings.PRICE_FEED_MAX_ERROR_PCT = 40  # one bad row in three: let the rest apply
    body = HEADER + f"GPU-A,167.00,EUR,{NEW_DAY}\nCHS-A,2120.00,EUR,{NEW_DAY}\nCPU-A,9.00,EUR,\n"
    source = source_make(serve(httpserver_ipv4, body), kind="hosting")

    run = refresh(source)

    assert run.status == RunStatus.APPLIED_WITH_ERRORS
    assert run.errors == [
        {
            "row": 4,
            "field": "sku",
            "message": "is a cpu: managed-hosting prices apply to GPUs and chassis",
            "value": "CPU-A",
        }
    ]
    managed = Price.objects.filter(price_kind=PriceKind.MANAGED_MONTHLY)
    assert set(managed.values_list("part__sku", "amount")) == {
        ("GPU-A", Decimal("167.00")),
        ("CHS-A", Decimal("2120.00")),
    }


def test_the_models_choices_match_the_feed_parser():
    from catalog import feeds, models

    assert models.PriceSourceKind.values == [kind.value for kind in feeds.FeedKind]
    assert models.FeedFormat.values == [fmt.value for fmt in feeds.FeedFormat]
    assert models.Commitment.values == [term.value for term in feeds.Commitment]


# --- Quarantine ----------------------------------------------------------------------------


def test_a_price_moving_more_than_the_threshold_is_quarantined_not_applied(
    httpserver_ipv4, catalog
):
    gpu, cpu, _ = catalog
    body = HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\nCPU-A,700.00,EUR,{NEW_DAY}\n"  # +50 %, +40 %
    source = source_make(serve(httpserver_ipv4, body))

    run = refresh(source)

    assert run.status == RunStatus.APPLIED
    assert counts(run) == {"read": 2, "changed": 1, "unchanged": 0, "rejected": 0, "quarantined": 1}
    assert prices(gpu) == [(Decimal("1000.00"), OLD_DAY)]  # not applied
    assert prices(cpu)[-1] == (Decimal("700.00"), dt.date(2026, 11, 30))  # exactly 40 %: applied
    held = QuarantinedPrice.objects.get()
    assert (held.part, held.price_kind, held.amount, held.currency) == (
        gpu.part_ptr,
        PriceKind.PURCHASE,
        Decimal("1500.00"),
        "EUR",
    )
    assert (held.previous_amount, held.previous_observed_on) == (Decimal("1000.00"), OLD_DAY)
    assert (held.status, held.run, held.row, held.change_pct) == (
        ReviewStatus.PENDING,
        run,
        2,
        Decimal(50),
    )


def test_a_price_drop_is_quarantined_too_and_the_threshold_is_a_setting(
    httpserver_ipv4, catalog, settings
):
    settings.PRICE_QUARANTINE_CHANGE_PCT = 5
    body = HEADER + f"GPU-A,930.00,EUR,{NEW_DAY}\nCPU-A,510.00,EUR,{NEW_DAY}\n"  # -7 %, +2 %
    run = refresh(source_make(serve(httpserver_ipv4, body)))
    assert (run.rows_quarantined, run.rows_changed) == (1, 1)
    assert QuarantinedPrice.objects.get().amount == Decimal("930.00")


def test_rerunning_a_feed_does_not_quarantine_the_same_price_twice(httpserver_ipv4, catalog):
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    again = refresh(source)
    assert counts(again) == {
        "read": 1,
        "changed": 0,
        "unchanged": 0,
        "rejected": 0,
        "quarantined": 1,
    }
    assert QuarantinedPrice.objects.count() == 1


def test_approving_records_the_price_through_the_same_service(httpserver_ipv4, catalog, staff_user):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    held = QuarantinedPrice.objects.get()

    approved = quarantined_price_approve(quarantined_id=held.pk, user=staff_user)

    assert approved.status == ReviewStatus.APPROVED
    assert approved.reviewed_by == staff_user
    assert approved.reviewed_at is not None
    price = Price.objects.get(part=gpu, amount=Decimal("1500.00"))
    assert (approved.price, price.created_by, price.observed_on) == (
        price,
        staff_user,
        dt.date(2026, 11, 30),
    )
    assert price.source == f"Distributor EU price feed: {source.location}"
    # The same feed again: the price is recorded now, nothing new happens.
    assert counts(refresh(source))["unchanged"] == 1
    with pytest.raises(QuarantineReviewError, match="already approved by staff"):
        quarantined_price_approve(quarantined_id=held.pk, user=staff_user)


def test_rejecting_keeps_the_price_out_and_the_decision(httpserver_ipv4, catalog, staff_user):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    held = QuarantinedPrice.objects.get()

    rejected = quarantined_price_reject(quarantined_id=held.pk, user=staff_user)

    assert (rejected.status, rejected.reviewed_by) == (ReviewStatus.REJECTED, staff_user)
    assert prices(gpu) == [(Decimal("1000.00"), OLD_DAY)]
    # The rejected observation sent again is not held again.
    again = refresh(source)
    assert (again.rows_unchanged, again.rows_quarantined) == (1, 0)
    assert QuarantinedPrice.objects.count() == 1
    with pytest.raises(QuarantineReviewError):
        quarantined_price_reject(quarantined_id=held.pk, user=staff_user)


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
    real_apply = feed_apply_module.part_chunk_apply

    def apply_then_die(**kwargs):
        real_apply(**kwargs)  # rows written inside the transaction...
        raise WorkerKilledError  # ...then the process dies before it commits

    with monkeypatch.context() as patch:
        patch.setattr(feed_apply_module, "part_chunk_apply", apply_then_die)
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


# --- Cloud prices ----------------------------------------------------------------------------

CLOUD_FEED = (
    "gpu_model,provider,commitment,price,gpu_count,currency,observed_on,source\n"
    "NVIDIA H100 SXM,RunPod,on_demand,3.99,1,USD,2026-11-09,https://www.runpod.io/pricing\n"
    "NVIDIA HGX H100,CoreWeave,on_demand,49.24,8,USD,2026-11-20,https://www.coreweave.com/pricing\n"
    "H100 SXM,Lambda,on_demand,2.99,1,USD,2026-11-25,https://lambda.ai/instances\n"
    "H100 SXM,Google Cloud,on_demand,11.06,1,USD,2025-03-17,https://cloud.google.com\n"
    "NVIDIA L4,RunPod,on_demand,0.44,1,USD,2025-01-01,https://www.runpod.io/pricing\n"
    "H100 SXM,Google Cloud,reserved_1y,7.67,1,USD,2025-03-17,https://cloud.google.com\n"
)


def test_cloud_feeds_record_cloud_prices_idempotently(httpserver_ipv4):
    source = source_make(
        serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud", currency="USD"
    )

    first, second = refresh(source), refresh(source)

    assert (first.status, first.rows_changed) == (RunStatus.APPLIED, 6)
    assert (second.rows_changed, second.rows_unchanged) == (0, 6)
    coreweave = CloudPrice.objects.get(provider="CoreWeave")
    assert (coreweave.gpu_model, coreweave.price_per_gpu_hour, coreweave.price_source) == (
        "H100_SXM",
        Decimal("6.1550"),
        source,
    )


def test_the_current_cloud_price_is_the_median_fresh_offer(httpserver_ipv4):
    refresh(source_make(serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud"))
    today = dt.date(2026, 12, 2)

    quotes = cloud_prices_current_get(currency="USD", today=today)

    # H100_SXM fresh offers: Lambda 2.99, RunPod 3.99, CoreWeave 6.155 (Google's is stale).
    h100 = quotes["H100_SXM"]
    assert (h100.provider, h100.price_per_gpu_hour, h100.stale) == (
        "RunPod",
        Money(Decimal("3.9900"), "USD"),
        False,
    )
    assert h100.source == "https://www.runpod.io/pricing"
    # Only a stale offer: it is still the answer, flagged.
    assert quotes["L4"].stale is True
    assert cloud_price_current_get(
        gpu_model="H100_SXM", currency="USD", commitment="reserved_1y", today=today
    ).price_per_gpu_hour == Money(Decimal("7.6700"), "USD")
    assert cloud_prices_current_get(currency="EUR", today=today) == {}


def test_a_cloud_price_jump_is_quarantined_and_approval_records_it(httpserver_ipv4, staff_user):
    source = source_make(serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud")
    refresh(source)
    source.location = serve(
        httpserver_ipv4,
        "gpu_model,provider,price,currency,observed_on\nH100 SXM,Lambda,4.49,USD,2026-11-30\n",
        path="/later",
    )
    source.save()

    run = refresh(source)

    assert run.rows_quarantined == 1
    held = QuarantinedPrice.objects.get()
    assert (held.gpu_model, held.provider, held.previous_amount) == (
        "H100_SXM",
        "Lambda",
        Decimal("2.99"),
    )
    approved = quarantined_price_approve(quarantined_id=held.pk, user=staff_user)
    assert approved.cloud_price.price_per_gpu_hour == Decimal("4.4900")
    assert approved.cloud_price.created_by == staff_user


# --- Staleness ---------------------------------------------------------------------------------


def test_prices_older_than_the_staleness_threshold_are_stale(settings):
    today = dt.date(2026, 12, 2)
    assert price_is_stale(dt.date(2026, 10, 2), today=today) is True  # 61 days
    assert price_is_stale(dt.date(2026, 10, 3), today=today) is False  # 60 days
    settings.PRICE_STALE_DAYS = 90
    assert price_is_stale(dt.date(2026, 10, 2), today=today) is False


def test_current_prices_carry_a_stale_flag(catalog, django_assert_num_queries):
    cpu = catalog[1]
    price_make(cpu, amount=Decimal("510.00"), observed_on=dt.date(2026, 11, 30))
    today = dt.date(2026, 12, 2)

    with django_assert_num_queries(1):
        flags = {
            row.part.sku: row.stale for row in current_price_queryset(currency="EUR", today=today)
        }

    assert flags == {"GPU-A": True, "CPU-A": False}
    assert [row.part.sku for row in stale_price_queryset(currency="EUR", today=today)] == ["GPU-A"]
