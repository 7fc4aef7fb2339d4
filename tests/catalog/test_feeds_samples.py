"""The sample feeds in catalog/feeds/samples apply cleanly to the seed catalog."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.models import CloudPrice, Price, PriceKind, PriceSource, RunStatus
from catalog.selectors import cloud_prices_current_get
from catalog.services import catalog_load, price_source_refresh

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ""  # locations relative to PRICE_FEED_FILE_ROOT, by default the samples
SOURCES = [
    ("EU distributor", "supplier", "supplier-eur.csv", "csv", "EUR", {}),
    (
        "US distributor",
        "supplier",
        "supplier-usd.json",
        "json",
        "USD",
        {
            "sku": "part_number",
            "price": "unit_price",
            "observed_on": "price_date",
            "source": "note",
        },
    ),
    ("Managed hosting rate card", "hosting", "hosting-eur.csv", "csv", "EUR", {}),
    ("Cloud GPU prices, USD", "cloud", "cloud-usd.csv", "csv", "USD", {}),
    ("Cloud GPU prices, EUR", "cloud", "cloud-eur.json", "json", "EUR", {}),
]


@pytest.fixture
def seed_catalog():
    data = json.loads((ROOT / "catalog" / "data" / "catalog.json").read_text(encoding="utf-8"))
    catalog_load(parts=data["parts"])


def run_all() -> dict[str, tuple]:
    results = {}
    for name, kind, path, feed_format, currency, column_map in SOURCES:
        source, _ = PriceSource.objects.get_or_create(
            name=name,
            defaults={
                "kind": kind,
                "location": SAMPLES + path,
                "format": feed_format,
                "currency": currency,
                "column_map": column_map,
            },
        )
        run = price_source_refresh(source_id=source.pk)
        results[path] = (
            run.status,
            run.rows_read,
            run.rows_changed,
            run.rows_unchanged,
            run.rows_rejected,
            run.rows_quarantined,
        )
    return results


@pytest.mark.usefixtures("seed_catalog")
def test_every_sample_feed_applies_without_errors_and_twice_is_a_no_op():
    prices_before = Price.objects.count()

    first = run_all()

    # CPU and NIC list prices did not move (13 + 6 rows of the dollar feed): unchanged. The
    # seed is priced in dollars only, so every euro row is a first euro observation, recorded:
    # none is further than the quarantine threshold from the dollar price converted.
    assert first == {
        "supplier-eur.csv": (RunStatus.APPLIED, 57, 57, 0, 0, 0),
        "supplier-usd.json": (RunStatus.APPLIED, 57, 38, 19, 0, 0),
        "hosting-eur.csv": (RunStatus.APPLIED, 22, 22, 0, 0, 0),
        "cloud-usd.csv": (RunStatus.APPLIED, 25, 25, 0, 0, 0),
        "cloud-eur.json": (RunStatus.APPLIED, 9, 9, 0, 0, 0),
    }
    assert Price.objects.count() == prices_before + 57 + 38 + 22
    assert CloudPrice.objects.count() == 34

    second = run_all()

    assert {path: result[2] for path, result in second.items()} == dict.fromkeys(first, 0)
    assert Price.objects.count() == prices_before + 57 + 38 + 22


@pytest.mark.usefixtures("seed_catalog")
def test_sample_prices_are_the_current_ones_afterwards():
    run_all()
    h100 = Price.objects.filter(
        part__sku="NVIDIA-H100-SXM5-80GB", price_kind=PriceKind.MANAGED_MONTHLY, currency="EUR"
    ).latest("observed_on", "id")
    assert (h100.amount, h100.observed_on) == (Decimal("172.01"), dt.date(2026, 12, 1))

    quotes = cloud_prices_current_get(currency="EUR", today=dt.date(2026, 11, 1))
    # Median offer per model (the lower one of two): OVHcloud vs Scaleway, Azure alone.
    assert {key: quote.price_per_gpu_hour.amount for key, quote in quotes.items()} == {
        "H100_NVL": Decimal("7.7915"),
        "H100_PCIE": Decimal("2.8000"),
        "H100_SXM": Decimal("3.1664"),
        "H200": Decimal("5.2500"),
        "L4": Decimal("0.7500"),
        "L40S": Decimal("1.4000"),
    }
    assert quotes["L4"].provider == "OVHcloud"
