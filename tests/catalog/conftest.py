"""Fixtures of the catalog tests: the loaded seed catalog and a partner's key for the catalog API
tests, a few priced parts for the price refresh tests."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.api_fixtures import partner_key
from tests.catalog.price_feeds import OLD_DAY
from tests.factories import chassis_make, cpu_make, gpu_make, price_make

# The catalog API tests check error answers with a helper: let pytest explain its asserts too.
pytest.register_assert_rewrite("tests.catalog.catalog_api")


@pytest.fixture
def loaded_catalog(seed_catalog) -> None:
    """The committed catalog and its seed prices, as ``load_catalog`` loads them (copied:
    tests/conftest.py ``seed_catalog``)."""


@pytest.fixture
def raw_key() -> str:
    _partner, raw = partner_key("Acme Cloud")
    return raw


@pytest.fixture
def catalog():
    """A GPU and a CPU with a current price, a chassis without one."""
    gpu, cpu, chassis = gpu_make(sku="GPU-A"), cpu_make(sku="CPU-A"), chassis_make(sku="CHS-A")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=OLD_DAY)
    price_make(cpu, amount=Decimal("500.00"), observed_on=OLD_DAY)
    return gpu, cpu, chassis
