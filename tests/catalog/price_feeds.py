"""Price feeds for the price refresh tests: a source per feed, served on 127.0.0.1, refreshed
through the service, and readers of what the run recorded.

``OLD_DAY`` dates the prices of the ``catalog`` fixture (tests/catalog/conftest.py); the feeds
observe ``NEW_DAY``.
"""

import datetime as dt
from decimal import Decimal

from catalog.models import Price, PriceKind, PriceRefreshRun, PriceSource
from catalog.services import price_source_refresh

OLD_DAY = dt.date(2026, 10, 1)
NEW_DAY = "2026-11-30"
HEADER = "sku,price,currency,observed_on\n"

GOOD_FEED = HEADER + f"GPU-A,1100.00,EUR,{NEW_DAY}\nCPU-A,500.00,EUR,{NEW_DAY}\nCHS-A,2000,,\n"


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
