import datetime as dt
from decimal import Decimal

import pytest

from catalog.models import PriceKind
from catalog.selectors import current_price_get, current_price_queryset
from tests.factories import chassis_make, gpu_make, price_make

pytestmark = pytest.mark.django_db


def test_current_price_is_the_latest_dated_row_per_currency_and_kind():
    gpu = gpu_make()
    price_make(gpu, amount=Decimal("30000.00"), observed_on=dt.date(2026, 1, 10))
    newest = price_make(gpu, amount=Decimal("28000.00"), observed_on=dt.date(2026, 9, 1))
    # Recorded later but observed earlier: history, not the current price.
    price_make(gpu, amount=Decimal("31000.00"), observed_on=dt.date(2025, 12, 1))
    usd = price_make(gpu, amount=Decimal("31500.00"), currency="USD")
    managed = price_make(gpu, price_kind=PriceKind.MANAGED_MONTHLY, amount=Decimal("2100.00"))

    assert current_price_get(part=gpu, currency="EUR") == newest
    assert current_price_get(part=gpu, currency="USD") == usd
    assert current_price_get(part=gpu, currency="EUR", price_kind=PriceKind.MANAGED_MONTHLY) == (
        managed
    )


def test_same_day_prices_resolve_to_the_last_recorded():
    gpu = gpu_make()
    price_make(gpu, amount=Decimal("100.00"))
    second = price_make(gpu, amount=Decimal("90.00"))
    assert current_price_get(part=gpu, currency="EUR") == second


def test_current_price_queryset_returns_one_row_per_part(django_assert_num_queries):
    gpu, chassis = gpu_make(), chassis_make()
    price_make(gpu, amount=Decimal("1.00"), observed_on=dt.date(2026, 1, 1))
    price_make(gpu, amount=Decimal("2.00"), observed_on=dt.date(2026, 2, 1))
    price_make(chassis, amount=Decimal("3.00"))
    with django_assert_num_queries(1):
        rows = {row.part.sku: row.amount for row in current_price_queryset(currency="EUR")}
    assert rows == {gpu.sku: Decimal("2.00"), chassis.sku: Decimal("3.00")}


def test_part_without_price_has_no_current_price():
    assert current_price_get(part=gpu_make(), currency="EUR") is None
