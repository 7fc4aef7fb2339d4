"""Applying a 100,000-row supplier price feed. Target: under 20 s, bounded memory.

Runs on the database DATABASE_URL points at (the development SQLite file by default; CI and the
reference figures use PostgreSQL) and says which. Everything it creates (100,000 parts with a
current price, a source, the runs and the new prices; the first three built by
``tests/factories.py``) lives in one transaction that is rolled back, so the database is left as
it was. The feed is a CSV file read from disk like any file source: 50 % of the prices changed by
+5 %, 45 % unchanged, 4.9 % moved by +60 % (quarantined) and 0.1 % unknown SKUs (reported row by
row). Three runs: the timed first apply, the same feed again (a no-op), and the first apply once
more under tracemalloc for the peak of Python allocations.
"""

from __future__ import annotations

import csv
import datetime as dt
import resource
import tempfile
import time
import tracemalloc
from decimal import Decimal
from pathlib import Path

from benchmarks.timing import django_setup

ROWS = 100_000
TARGET_S = 20.0
OLD_DAY = dt.date(2026, 10, 1)


def _write_feed(path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sku", "price", "currency", "observed_on"])
        for i in range(ROWS):
            sku, price = f"BENCH-{i:06d}", Decimal(100 + i % 900)
            bucket = i % 1000
            if bucket < 500:
                price = price * Decimal("1.05")
            elif bucket < 549:
                price = price * Decimal("1.60")
            elif bucket == 999:
                sku = f"UNKNOWN-{i:06d}"
            writer.writerow([sku, f"{price:.2f}", "EUR", "2026-11-30"])


def main() -> bool:
    django_setup()
    from django.conf import settings
    from django.db import connection, transaction

    from catalog.models import Part, Price, QuarantinedPrice
    from catalog.services import price_source_refresh
    from engine.build.parts import PartKind
    from tests.factories import part_build, price_build, price_source_make

    vendor = connection.vendor
    print(f"   database: {vendor} ({connection.settings_dict['NAME']})")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        feed = Path(tmp) / "bench-feed.csv"
        _write_feed(feed)
        settings.PRICE_FEED_FILE_ROOT = Path(tmp)
        with transaction.atomic():
            started = time.perf_counter()
            parts = Part.objects.bulk_create(
                (
                    part_build(
                        kind=PartKind.DRIVE,
                        sku=f"BENCH-{i:06d}",
                        vendor="Benchmark",
                        model=f"Benchmark part {i}",
                        source="benchmarks/bench_feeds.py",
                    )
                    for i in range(ROWS)
                ),
                batch_size=5000,
            )
            Price.objects.bulk_create(
                (
                    price_build(
                        part, amount=Decimal(100 + i % 900), observed_on=OLD_DAY, source="benchmark"
                    )
                    for i, part in enumerate(parts)
                ),
                batch_size=5000,
            )
            source = price_source_make(name="Benchmark feed", location=feed.name)
            print(
                f"   set-up: {ROWS:,} parts with a price, feed of {feed.stat().st_size:,} bytes "
                f"({time.perf_counter() - started:.1f} s)"
            )
            before = transaction.savepoint()

            started = time.perf_counter()
            run = price_source_refresh(source_id=source.pk)
            first_s = time.perf_counter() - started
            started = time.perf_counter()
            again = price_source_refresh(source_id=source.pk)
            again_s = time.perf_counter() - started
            held = QuarantinedPrice.objects.count()
            transaction.savepoint_rollback(before)

            tracemalloc.start()
            price_source_refresh(source_id=source.pk)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            transaction.set_rollback(True)

    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ok = run.status == "applied_with_errors" and first_s < TARGET_S
    print(
        f"   first apply: {first_s:.2f} s ({ROWS / first_s:,.0f} rows/s), {run.status}: "
        f"{run.rows_changed:,} changed, {run.rows_unchanged:,} unchanged, "
        f"{run.rows_quarantined:,} quarantined ({held:,} held), {run.rows_rejected:,} rejected"
        f"  target < {TARGET_S:g} s: {'met' if ok else 'MISSED'}"
    )
    print(
        f"   same feed again: {again_s:.2f} s, {again.rows_changed} changed, "
        f"{again.rows_unchanged:,} unchanged (a no-op)"
    )
    print(
        f"   peak Python memory during an apply (tracemalloc): {peak / 2**20:.1f} MB; "
        f"process max RSS, set-up included: {rss_mb:.0f} MB"
    )
    return ok
