"""The partner catalog API's lists: the offered parts and their current prices, what each
filter returns, stale flags, pages, and a fixed number of queries per list.

Expected rows come from the database through the existing selectors (``current_price_queryset``)
or plain ORM filters, never from the API's own selectors, so the two are checked against each
other. Seed prices are dated: stale flags are computed with ``price_is_stale``, not hard-coded.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from catalog.models import Chassis, Cpu, Gpu, Part, Price, PriceKind
from catalog.selectors import current_price_queryset, price_is_stale
from catalog.services import price_record
from engine.commerce.exchange import built_in_rates, convert_price
from engine.money import CURRENCIES, Money
from tests.catalog.catalog_api import (
    CHASSIS,
    CPUS,
    GPU_DETAIL,
    GPUS,
    H100,
    PAGE_MAX,
    PRICES,
    SEED_PRICES,
    all_rows,
    api_get,
    assert_problem,
    skus_of,
)
from tests.factories import gpu_make

SEED = Path(settings.BASE_DIR) / "catalog" / "data" / "catalog.json"


def seed_count(kind: str) -> int:
    """Parts of ``kind`` in the seed catalog: a new GPU row changes no count here."""
    return sum(1 for part in json.loads(SEED.read_text())["parts"] if part["kind"] == kind)


pytestmark = pytest.mark.django_db


def _current_prices() -> dict[tuple[str, str, str], Price]:
    """(SKU, price kind, currency) -> the current price of every offered part."""
    return {
        (price.part.sku, price.price_kind, price.currency): price
        for kind in PriceKind.values
        for currency in CURRENCIES
        for price in current_price_queryset(price_kind=kind, currency=currency).filter(
            part__active=True
        )
    }


# --- What the lists show ----------------------------------------------------------------------


@pytest.mark.usefixtures("loaded_catalog")
def test_gpus_are_the_offered_ones_by_sku_with_their_current_eur_purchase_price(client, raw_key):
    """The seed prices are observed in USD: in euros they are converted at the day's rate (no
    ECB rate recorded here: the built-in annual average), and say so."""
    Gpu.objects.filter(sku="NVIDIA-RTX4090-24GB").update(active=False)
    unpriced = gpu_make(sku="ZZ-UNPRICED")

    response = api_get(client, GPUS, raw_key)

    body = response.json()
    offered = sorted(Gpu.objects.filter(active=True).values_list("sku", flat=True))
    # The seed's GPUs less the one withdrawn, plus the unpriced one.
    assert body["count"] == seed_count("gpu") - 1 + 1
    assert skus_of(response) == offered
    assert "NVIDIA-RTX4090-24GB" not in offered
    rows = {row["sku"]: row for row in body["results"]}
    assert rows[unpriced.sku]["price"] is None
    h200 = rows["NVIDIA-H200-SXM5-141GB"]
    rates = built_in_rates()
    assert h200.pop("source") == Gpu.objects.get(sku="NVIDIA-H200-SXM5-141GB").source
    assert h200 == {
        "sku": "NVIDIA-H200-SXM5-141GB",
        "name": "NVIDIA H200 SXM5 141GB",
        "vendor": "NVIDIA",
        "model": "H200 SXM5 141GB",
        "architecture": "Hopper",
        "gpu_class": "datacenter",
        "form_factor": "sxm",
        "memory_gb": 141,
        "memory_bandwidth_gbs": 4800,
        "bf16_tflops": "989.4",
        "fp8_tflops": "1978.9",
        "tdp_w": 700,
        "nvlink_gbs": 900,
        "ecc": True,
        "mig": True,
        "pcie_gen": 5,
        "price": {
            "amount": str(convert_price(Money(Decimal(33500), "USD"), "EUR", rates).amount),
            "currency": "EUR",
            "observed_on": "2026-10-15",
            "stale": price_is_stale(dt.date(2026, 10, 15)),
            "observed_currency": "USD",
            "exchange_rate": {
                "currency": "USD",
                "per_eur": str(rates["USD"].per_eur),
                "rate_date": rates["USD"].rate_date.isoformat(),
                "source": rates["USD"].source,
            },
        },
    }
    assert h200["price"]["amount"] == "30949.74"  # 33,500 / 1.0824, to the cent


@pytest.mark.usefixtures("loaded_catalog")
def test_the_price_follows_the_requested_currency_and_the_latest_observation(client, raw_key):
    h100 = Gpu.objects.get(sku=H100)
    price_record(
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("24000.00"),
        currency="USD",
        observed_on=timezone.localdate(),
        source="test",
    )
    price_record(  # older than the current price: history, not current
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("1.00"),
        currency="USD",
        observed_on=dt.date(2020, 1, 1),
        source="test",
    )

    usd = api_get(client, f"{GPUS}?currency=USD&page_size=200", raw_key).json()["results"]

    prices = {row["sku"]: row["price"] for row in usd}
    assert prices[H100] == {
        "amount": "24000.00",
        "currency": "USD",
        "observed_on": timezone.localdate().isoformat(),
        "stale": False,
        "observed_currency": "USD",
        "exchange_rate": None,
    }
    assert prices["NVIDIA-H200-SXM5-141GB"]["amount"] == "33500.00"


@pytest.mark.usefixtures("loaded_catalog")
def test_gpu_detail_shows_one_offered_gpu(client, raw_key):
    response = api_get(client, f"{GPU_DETAIL}?currency=USD", raw_key)

    body = response.json()
    assert (body["sku"], body["memory_gb"], body["price"]["amount"]) == (H100, 80, "25500.00")


@pytest.mark.usefixtures("loaded_catalog")
def test_gpu_detail_of_an_unknown_or_withdrawn_sku_is_a_404(client, raw_key):
    Gpu.objects.filter(sku=H100).update(active=False)

    for url in (GPU_DETAIL, f"{GPUS}NO-SUCH-GPU/"):
        assert_problem(api_get(client, url, raw_key), 404, "not-found")


@pytest.mark.usefixtures("loaded_catalog")
def test_cpus_and_chassis_list_every_offered_part_with_its_fields(client, raw_key):
    cpus = api_get(client, f"{CPUS}?page_size=200", raw_key).json()
    chassis = api_get(client, f"{CHASSIS}?page_size=200", raw_key).json()

    assert [row["sku"] for row in cpus["results"]] == sorted(
        Cpu.objects.values_list("sku", flat=True)
    )
    assert [row["sku"] for row in chassis["results"]] == sorted(
        Chassis.objects.values_list("sku", flat=True)
    )
    epyc = next(row for row in cpus["results"] if row["sku"] == "AMD-EPYC-9654")
    assert (epyc["cores"], epyc["socket"], epyc["base_ghz"]) == (96, "SP5", "2.40")
    assert epyc["price"]["currency"] == "EUR"
    tower = next(row for row in chassis["results"] if row["sku"] == "SMC-SYS-551A-T")
    assert (tower["rack_mount"], tower["gpu_slots"], tower["accepts_pcie"]) == (False, 4, True)


GPU_FILTERS = [
    ("vendor=amd", {"vendor__iexact": "amd"}),
    ("gpu_class=consumer", {"gpu_class": "consumer"}),
    ("form_factor=pcie", {"form_factor": "pcie"}),
    ("min_memory_gb=94", {"memory_gb__gte": 94}),
    ("ecc=false", {"ecc": False}),
    (
        "ecc=true&form_factor=sxm&min_memory_gb=100",
        {"ecc": True, "form_factor": "sxm", "memory_gb__gte": 100},
    ),
]
CPU_FILTERS = [
    ("vendor=INTEL", {"vendor__iexact": "intel"}),
    ("socket=sp5", {"socket__iexact": "sp5"}),
    ("min_cores=64", {"cores__gte": 64}),
    ("vendor=amd&min_cores=96", {"vendor": "AMD", "cores__gte": 96}),
]
CHASSIS_FILTERS = [
    ("rack_mount=false", {"rack_mount": False}),
    ("min_gpu_slots=8", {"gpu_slots__gte": 8}),
    ("form_factor=oam", {"accepts_oam": True}),
    ("cooling=liquid", {"cooling": "liquid"}),
    ("vendor=dell&form_factor=sxm", {"vendor": "Dell", "accepts_sxm": True}),
]


@pytest.mark.usefixtures("loaded_catalog")
@pytest.mark.parametrize(
    ("url", "model", "query", "lookups"),
    [(GPUS, Gpu, *case) for case in GPU_FILTERS]
    + [(CPUS, Cpu, *case) for case in CPU_FILTERS]
    + [(CHASSIS, Chassis, *case) for case in CHASSIS_FILTERS],
)
def test_part_filters_return_exactly_the_matching_offered_parts(
    client, raw_key, url, model, query, lookups
):
    expected = sorted(model.objects.filter(active=True, **lookups).values_list("sku", flat=True))

    response = api_get(client, f"{url}?{query}&page_size=200", raw_key)

    assert response.status_code == 200
    assert skus_of(response) == expected
    assert 0 < len(expected) < model.objects.count()  # the filter kept some, not all


@pytest.mark.usefixtures("loaded_catalog")
def test_prices_are_the_current_ones_of_offered_parts_one_row_each(client, raw_key):
    h100 = Gpu.objects.get(sku=H100)
    newer = price_record(
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("21000.00"),
        currency="EUR",
        observed_on=dt.date(2026, 11, 1),
        source="supplier quote 42",
    )
    assert newer is not None
    Part.objects.filter(sku="NVIDIA-RTX4090-24GB").update(active=False)
    withdrawn = Price.objects.filter(part__sku="NVIDIA-RTX4090-24GB").count()

    count, rows = all_rows(client, f"{PRICES}?page_size=200", raw_key)

    expected = _current_prices()
    # The seed's observed prices, the new one (a EUR observation) less the withdrawn GPU's
    assert withdrawn > 0
    assert count == len(expected) == SEED_PRICES + 1 - withdrawn
    assert [(r["sku"], r["price_kind"], r["currency"]) for r in rows] == sorted(expected)
    row = next(
        r for r in rows if (r["sku"], r["price_kind"], r["currency"]) == (H100, "purchase", "EUR")
    )
    assert row == {
        "sku": H100,
        "part_kind": "gpu",
        "price_kind": "purchase",
        "amount": "21000.00",
        "currency": "EUR",
        "observed_on": "2026-11-01",
        "source": "supplier quote 42",
        "stale": price_is_stale(newer.observed_on),
    }


PRICE_FILTERS = [
    ("currency=USD", lambda key, price: key[2] == "USD"),
    ("price_kind=managed_monthly", lambda key, price: key[1] == "managed_monthly"),
    ("part_kind=cpu", lambda key, price: price.part.kind == "cpu"),
    (f"sku={H100}", lambda key, price: key[0] == H100),
    ("stale=true", lambda key, price: price_is_stale(price.observed_on)),
    ("stale=false", lambda key, price: not price_is_stale(price.observed_on)),
    (
        "part_kind=gpu&price_kind=purchase&currency=EUR",
        lambda key, price: key[1:] == ("purchase", "EUR") and price.part.kind == "gpu",
    ),
]


@pytest.mark.usefixtures("loaded_catalog")
@pytest.mark.parametrize(("query", "keeps"), PRICE_FILTERS)
def test_price_filters_return_exactly_the_matching_current_prices(client, raw_key, query, keeps):
    today = timezone.localdate()
    stale_on = today - dt.timedelta(days=settings.PRICE_STALE_DAYS + 1)
    for sku, observed_on in (("ZZ-OLD", stale_on), ("ZZ-FRESH", today)):
        part = gpu_make(sku=sku)
        price_record(
            part=part,
            price_kind=PriceKind.PURCHASE,
            amount=Decimal("123.45"),
            currency="EUR",
            observed_on=observed_on,
            source="test",
        )
    # The seed sets no managed-hosting fee (the host computes it): one set by sales
    price_record(
        part=part,
        price_kind=PriceKind.MANAGED_MONTHLY,
        amount=Decimal("900.00"),
        currency="EUR",
        observed_on=today,
        source="sales",
    )
    current = _current_prices()
    expected = sorted(key for key, price in current.items() if keeps(key, price))

    response = api_get(client, f"{PRICES}?{query}&page_size=200", raw_key)
    _count, rows = all_rows(client, f"{PRICES}?{query}&page_size=200", raw_key)

    assert response.status_code == 200
    assert [(r["sku"], r["price_kind"], r["currency"]) for r in rows] == expected
    assert 0 < len(expected) < len(current)  # the filter kept some, not all


@pytest.mark.usefixtures("loaded_catalog")
def test_a_stale_price_is_flagged_and_a_fresh_one_is_not(client, raw_key):
    today = timezone.localdate()
    stale_on = today - dt.timedelta(days=settings.PRICE_STALE_DAYS + 1)
    old, fresh = gpu_make(sku="ZZ-OLD"), gpu_make(sku="ZZ-FRESH")
    for gpu, observed_on in ((old, stale_on), (fresh, today)):
        price_record(
            part=gpu,
            price_kind=PriceKind.PURCHASE,
            amount=Decimal("100.00"),
            currency="EUR",
            observed_on=observed_on,
            source="test",
        )

    stale = [row["sku"] for row in all_rows(client, f"{PRICES}?stale=true", raw_key)[1]]
    not_stale = [row["sku"] for row in all_rows(client, f"{PRICES}?stale=false", raw_key)[1]]
    gpus = {
        row["sku"]: row["price"]
        for row in api_get(client, f"{GPUS}?page_size=200", raw_key).json()["results"]
    }

    assert ("ZZ-OLD" in stale, "ZZ-OLD" in not_stale) == (True, False)
    assert ("ZZ-FRESH" in stale, "ZZ-FRESH" in not_stale) == (False, True)
    assert (gpus["ZZ-OLD"]["stale"], gpus["ZZ-FRESH"]["stale"]) == (True, False)


# --- Pages ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("loaded_catalog")
def test_lists_are_paginated(client, raw_key):
    pages = -(-seed_count("gpu") // 5)
    first = api_get(client, f"{GPUS}?page_size=5", raw_key).json()
    last = api_get(client, f"{GPUS}?page_size=5&page={pages}", raw_key).json()

    every = sorted(Gpu.objects.values_list("sku", flat=True))
    assert (first["count"], len(first["results"])) == (seed_count("gpu"), 5)
    assert first["next"] == "http://testserver/api/v1/catalog/gpus/?page=2&page_size=5"
    assert first["previous"] is None
    assert [row["sku"] for row in first["results"]] == every[:5]
    assert ([row["sku"] for row in last["results"]], last["next"]) == (
        every[(pages - 1) * 5 :],
        None,
    )


@pytest.mark.usefixtures("loaded_catalog")
def test_page_size_is_capped_at_200(client, raw_key):
    extra = PAGE_MAX + 10 - SEED_PRICES  # more prices than one page holds
    assert extra > 0
    for index in range(extra):
        price_record(
            part=gpu_make(sku=f"ZZ-{index:03}"),
            price_kind=PriceKind.PURCHASE,
            amount=Decimal("100.00"),
            currency="EUR",
            observed_on=timezone.localdate(),
            source="test",
        )
    body = api_get(client, f"{PRICES}?page_size=500", raw_key).json()
    _count, rows = all_rows(client, f"{PRICES}?page_size=500", raw_key)

    assert (body["count"], len(body["results"])) == (PAGE_MAX + 10, PAGE_MAX)
    assert body["next"] is not None
    assert len(rows) == PAGE_MAX + 10


@pytest.mark.usefixtures("loaded_catalog")
@pytest.mark.parametrize(
    ("url", "query", "num_queries"),
    [
        # key lookup, last change (3: parts, prices, rates), count, page (the data versions
        # and the current prices: read by the request before, kept)
        (GPUS, "", 6),
        (CPUS, "", 6),
        (CHASSIS, "", 6),
        (PRICES, "page_size=200", 6),
        (GPU_DETAIL, "", 5),  # no count
    ],
)
def test_a_list_costs_a_fixed_number_of_queries(
    client, raw_key, django_assert_num_queries, url, query, num_queries
):
    api_get(client, url, raw_key)  # records the key's last use (written once a minute)

    with django_assert_num_queries(num_queries):
        assert api_get(client, f"{url}?{query}", raw_key).status_code == 200
