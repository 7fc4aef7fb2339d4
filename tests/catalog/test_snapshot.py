"""The catalog snapshot handed to the engine: current prices, offered parts, cached per version."""

import datetime as dt
from decimal import Decimal

import pytest

from catalog.models import PriceKind
from catalog.selectors import catalog_snapshot_get
from engine.money import Money
from engine.parts import FormFactor
from tests.factories import chassis_make, cpu_make, gpu_make, price_make

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
    assert snap_chassis.price is None  # only priced in USD
    assert snap_chassis.gpu_form_factors == frozenset({FormFactor.SXM, FormFactor.PCIE})
    assert catalog_snapshot_get(currency="USD").chassis[0].price == Money(Decimal("99.00"), "USD")


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
