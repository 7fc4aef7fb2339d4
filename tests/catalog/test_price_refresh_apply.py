"""Price refresh: every row validated, good feeds applied as new price rows (never edits),
too many bad rows reject the feed whole; file, JSON and hosting sources; stale prices.

Feeds are served by a local HTTP server on 127.0.0.1 (pytest-httpserver_ipv4).
"""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import Price, PriceKind, RunStatus
from catalog.selectors import current_price_queryset, price_is_stale, stale_price_queryset
from tests.catalog.price_feeds import (
    GOOD_FEED,
    HEADER,
    NEW_DAY,
    OLD_DAY,
    counts,
    prices,
    refresh,
    serve,
    source_make,
)
from tests.factories import gpu_make, price_make

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]


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


def test_the_models_choices_are_the_feed_parsers_enums():
    from catalog import feeds, models

    def values(model, field):
        return [value for value, _label in model._meta.get_field(field).choices]

    assert values(models.PriceSource, "kind") == [kind.value for kind in feeds.FeedKind]
    assert values(models.PriceSource, "format") == [fmt.value for fmt in feeds.FeedFormat]
    assert values(models.CloudPrice, "commitment") == [term.value for term in feeds.Commitment]
    assert values(models.QuarantinedPrice, "commitment") == [t.value for t in feeds.Commitment]


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
