"""The seed loader is idempotent and keeps price history."""

import copy
import importlib
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.core.management import CommandError, call_command

from catalog.models import Gpu, Part, Price
from catalog.services import CatalogDataError, catalog_load
from tests.factories import gpu_make, price_make

pytestmark = pytest.mark.django_db

SEED_FILE = Path(__file__).resolve().parents[2] / "catalog" / "data" / "catalog.json"

GPU_ENTRY = {
    "kind": "gpu",
    "sku": "TEST-L4",
    "vendor": "NVIDIA",
    "model": "L4",
    "source": "https://www.nvidia.com/en-us/data-center/l4/",
    "spec": {
        "architecture": "Ada Lovelace",
        "memory_gb": 24,
        "memory_bandwidth_gbs": 300,
        "bf16_tflops": 121,
        "fp8_tflops": 242.5,
        "tdp_w": 72,
        "form_factor": "pcie",
        "nvlink_gbs": None,
        "ecc": True,
        "mig": False,
        "gpu_class": "datacenter",
        "pcie_gen": 4,
    },
    "prices": [
        {
            "price_kind": "purchase",
            "amount": "2500.00",
            "currency": "EUR",
            "observed_on": "2026-10-01",
            "source": "test list",
        },
    ],
}


def test_loading_twice_changes_nothing():
    first = catalog_load(parts=[GPU_ENTRY])
    snapshot = list(Price.objects.values_list("id", "amount"))
    updated_at = Part.objects.get(sku="TEST-L4").updated_at

    second = catalog_load(parts=[GPU_ENTRY])

    assert (first.created, first.prices_added) == (1, 1)
    assert (second.created, second.updated, second.unchanged, second.prices_added) == (0, 0, 1, 0)
    assert list(Price.objects.values_list("id", "amount")) == snapshot
    assert Part.objects.get(sku="TEST-L4").updated_at == updated_at


def test_a_changed_price_adds_exactly_one_history_row():
    catalog_load(parts=[GPU_ENTRY])
    changed = copy.deepcopy(GPU_ENTRY)
    changed["prices"][0] |= {"amount": "2399.00", "observed_on": "2026-11-01"}

    report = catalog_load(parts=[changed])
    catalog_load(parts=[changed])

    assert report.prices_added == 1
    amounts = list(Price.objects.order_by("observed_on").values_list("amount", flat=True))
    assert amounts == [Decimal("2500.00"), Decimal("2399.00")]


def test_a_changed_spec_updates_the_part_in_place():
    catalog_load(parts=[GPU_ENTRY])
    changed = copy.deepcopy(GPU_ENTRY)
    changed["spec"]["tdp_w"] = 75
    report = catalog_load(parts=[changed])
    assert report.updated == 1
    assert Gpu.objects.get(sku="TEST-L4").tdp_w == 75


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda e: e["prices"][0].update(amount="-3"), "non-negative"),
        (lambda e: e["prices"][0].update(currency="GBP"), "currency"),
        (lambda e: e["prices"][0].update(observed_on="yesterday"), "ISO date"),
        (lambda e: e["spec"].update(warp_drive=True), "unknown gpu fields"),
        (lambda e: e.update(source=""), "specification source"),
    ],
)
def test_bad_data_names_the_part_and_writes_nothing(mutate, message):
    good = copy.deepcopy(GPU_ENTRY) | {"sku": "TEST-GOOD"}
    bad = copy.deepcopy(GPU_ENTRY)
    mutate(bad)
    with pytest.raises(CatalogDataError, match=message):
        catalog_load(parts=[good, bad])
    assert Part.objects.count() == 0
    assert Price.objects.count() == 0


def test_the_seed_file_loads_and_reloads_as_a_no_op(capsys):
    call_command("load_catalog")
    counts = {kind: Part.objects.filter(kind=kind).count() for kind in ("gpu", "cpu", "chassis")}
    prices = Price.objects.count()
    call_command("load_catalog")
    out = capsys.readouterr().out
    assert "0 created, 0 updated" in out.splitlines()[-1]
    assert "0 added" in out.splitlines()[-1]
    assert Price.objects.count() == prices
    assert counts["gpu"] >= 13
    assert counts["cpu"] >= 8
    assert counts["chassis"] >= 6


def test_every_seed_part_is_sourced_and_priced_as_observed_in_usd_without_converted_copies():
    parts = json.loads(SEED_FILE.read_text(encoding="utf-8"))["parts"]
    for entry in parts:
        assert entry["source"].strip(), entry["sku"]
        currencies = [p["currency"] for p in entry["prices"] if p["price_kind"] == "purchase"]
        # Prices in euros are converted where they are used, at the day's ECB rate
        assert currencies == ["USD"], entry["sku"]
        assert all(p["source"].strip() for p in entry["prices"]), entry["sku"]
        assert all("planning rate" not in p["source"] for p in entry["prices"]), entry["sku"]


def test_the_migration_drops_only_the_seed_s_planning_rate_copies():
    migration = importlib.import_module(
        "catalog.migrations.0015_seed_prices_observed_currency_only"
    )
    gpu = gpu_make(sku="GPU-X")
    observed = price_make(gpu, amount=Decimal("1160.00"), currency="USD")
    copy = price_make(
        gpu,
        amount=Decimal("1000.00"),
        currency="EUR",
        source="Estimate. -- EUR converted at the GPUQuote planning rate 1 EUR = 1.16 USD "
        "(fixed for every 2026-10-15 price)",
    )
    staff = price_make(gpu, amount=Decimal("990.00"), currency="EUR", source="supplier quote 7")

    migration.drop_planning_rate_copies(django_apps, None)

    assert set(Price.objects.values_list("pk", flat=True)) == {observed.pk, staff.pk}
    assert not Price.objects.filter(pk=copy.pk).exists()


def test_the_seed_catalog_has_the_required_gpus():
    call_command("load_catalog")
    models = " | ".join(Gpu.objects.values_list("model", flat=True))
    for name in (
        "H200",
        "H100 SXM",
        "H100 PCIe",
        "H100 NVL",
        "A100",
        "L40S",
        "L4",
        "6000 Ada",
        "4090",
        "5090",
        "B200",
        "MI300X",
    ):
        assert name in models, name


def test_command_reports_a_missing_file():
    with pytest.raises(CommandError, match="Could not load"):
        call_command("load_catalog", "/nonexistent/catalog.json")
