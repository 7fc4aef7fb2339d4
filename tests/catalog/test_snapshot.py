"""The catalog snapshot handed to the engine: current prices, offered parts, cached per version."""

import datetime as dt
from decimal import Decimal

import pytest

from catalog.models import PriceKind
from catalog.selectors import catalog_snapshot_get, price_ages_get
from engine.build.parts import FormFactor
from engine.money import Money
from tests.factories import chassis_make, cpu_make, ecb_rates_load, gpu_make, price_make

pytestmark = pytest.mark.django_db


def test_snapshot_carries_current_prices_in_the_requested_currency():
    gpu = gpu_make(sku="H100")
    price_make(gpu, amount=Decimal("30000.00"), observed_on=dt.date(2026, 1, 1))
    price_make(gpu, amount=Decimal("27000.00"), observed_on=dt.date(2026, 6, 1))
    price_make(gpu, amount=Decimal("2000.00"), price_kind=PriceKind.MANAGED_MONTHLY)
    chassis = chassis_make(sku="HGX", accepts_pcie=True)
    price_make(chassis, amount=Decimal("99.00"), currency="USD")

    eur = catalog_snapshot_get(currency="EUR")

    (snap_gpu,) = eur.gpus
    assert snap_gpu.price == Money(Decimal("27000.00"), "EUR")
    assert snap_gpu.managed_monthly_price == Money(Decimal("2000.00"), "EUR")
    (snap_chassis,) = eur.chassis
    assert snap_chassis.gpu_form_factors == frozenset({FormFactor.SXM, FormFactor.PCIE})
    assert catalog_snapshot_get(currency="USD").chassis[0].price == Money(Decimal("99.00"), "USD")


def test_a_part_priced_in_another_currency_is_converted_at_the_built_in_rate_and_says_so():
    gpu = gpu_make(sku="H100")
    price_make(gpu, amount=Decimal("27000.00"), currency="EUR")
    chassis = chassis_make(sku="HGX", accepts_pcie=True)
    price_make(chassis, amount=Decimal("10824.00"), currency="USD")

    eur = catalog_snapshot_get(currency="EUR")
    usd = catalog_snapshot_get(currency="USD")

    # No ECB rate recorded: the engine's 2024 annual average, 1 EUR = 1.0824 USD
    assert eur.chassis[0].price == Money(Decimal("10000.00"), "EUR")
    assert eur.gpus[0].price == Money(Decimal("27000.00"), "EUR")  # observed in euros: kept
    assert usd.gpus[0].price == Money(Decimal("29224.80"), "USD")
    assert [(r.currency, r.per_eur, r.rate_date) for r in eur.exchange_rates] == [
        ("USD", Decimal("1.0824"), dt.date(2024, 12, 31))
    ]
    assert "2024 annual average" in eur.exchange_rates[0].source
    ages = price_ages_get(currency="EUR")
    assert (ages["HGX"].observed_in, ages["H100"].observed_in) == ("USD", None)


def test_a_price_observed_in_the_currency_asked_for_wins_over_a_newer_one_converted():
    gpu = gpu_make(sku="H100")
    price_make(gpu, amount=Decimal("27000.00"), currency="EUR", observed_on=dt.date(2026, 1, 1))
    price_make(gpu, amount=Decimal("1.00"), currency="USD", observed_on=dt.date(2026, 6, 1))

    eur = catalog_snapshot_get(currency="EUR")

    assert eur.gpus[0].price == Money(Decimal("27000.00"), "EUR")
    assert eur.exchange_rates == ()


def test_a_recorded_ecb_rate_replaces_the_built_in_one_in_the_next_snapshot():
    chassis = chassis_make(sku="HGX", accepts_pcie=True)
    price_make(chassis, amount=Decimal("10853.00"), currency="USD")
    before = catalog_snapshot_get(currency="EUR")
    ecb_rates_load()  # USD 1.0853 on 2026-12-04, the latest

    after = catalog_snapshot_get(currency="EUR")

    assert before.chassis[0].price == Money(Decimal("10026.79"), "EUR")  # at 1.0824
    assert after.chassis[0].price == Money(Decimal("10000.00"), "EUR")
    assert [(r.per_eur, r.rate_date) for r in after.exchange_rates] == [
        (Decimal("1.0853"), dt.date(2026, 12, 4))
    ]
    assert after.exchange_rates[0].source == "ECB euro reference rate of 2026-12-04"


def test_snapshot_leaves_out_parts_no_longer_offered():
    cpu_make(sku="OLD", active=False)
    cpu_make(sku="NEW")
    assert [c.sku for c in catalog_snapshot_get(currency="EUR").cpus] == ["NEW"]


def test_snapshot_is_reused_until_the_catalog_changes(django_assert_max_num_queries):
    gpu = gpu_make()
    price_make(gpu, amount=Decimal("10.00"))
    first = catalog_snapshot_get(currency="EUR")
    with django_assert_max_num_queries(2):  # only the version check
        assert catalog_snapshot_get(currency="EUR") is first

    price_make(gpu, amount=Decimal("11.00"), observed_on=dt.date(2026, 12, 1))

    refreshed = catalog_snapshot_get(currency="EUR")
    assert refreshed is not first
    assert refreshed.gpus[0].price == Money(Decimal("11.00"), "EUR")
