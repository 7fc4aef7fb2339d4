"""Managed hosting's service tiers as the engine sees them (``engine.commerce.service_tiers``).

The offered tiers are read in one query per catalog version (a tier's save or delete changes
the version: ``catalog.selectors.versions``) and cached per process in every currency; a request
in between reads no row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from catalog.models import MONTHLY_PRICE_FIELDS, ServiceTier
from catalog.selectors.versions import catalog_version_get, per_version_cache
from engine.commerce.service_tiers import Coverage
from engine.commerce.service_tiers import ServiceTier as EngineServiceTier
from engine.money import CURRENCIES, Money


def service_tiers_get(*, currency: str) -> tuple[EngineServiceTier, ...]:
    """The offered tiers, by position, priced per server and month in ``currency``."""
    return _offered().tiers[_known(currency)]


def service_tier_get(*, code: str | None, currency: str) -> EngineServiceTier | None:
    """The offered tier ``code`` priced in ``currency``; the default tier when ``code`` is None
    or empty. None when no offered tier has that code (or none is the default)."""
    offered = _offered()
    wanted = code or offered.default_code
    return next((tier for tier in offered.tiers[_known(currency)] if tier.code == wanted), None)


@dataclass(frozen=True, slots=True)
class _Offered:
    tiers: Mapping[str, tuple[EngineServiceTier, ...]]  # by currency
    default_code: str | None


def _known(currency: str) -> str:
    if currency not in CURRENCIES:
        raise ValueError(f"unknown currency {currency!r}: one of {CURRENCIES}")
    return currency


def _offered() -> _Offered:
    return _offered_at(catalog_version_get())


# Per process, per catalog version (as the price ages are: ``catalog.selectors.prices``).
@lru_cache(maxsize=4)
def _offered_at(_version: tuple) -> _Offered:
    rows = list(ServiceTier.objects.filter(active=True).order_by("position", "code"))
    return _Offered(
        tiers=MappingProxyType(
            {
                currency: tuple(_engine_tier(row, currency) for row in rows)
                for currency in CURRENCIES
            }
        ),
        default_code=next((row.code for row in rows if row.is_default), None),
    )


per_version_cache(_offered_at.cache_clear)


def _engine_tier(row: ServiceTier, currency: str) -> EngineServiceTier:
    names = {"en": row.name_en}
    if row.name_fr:
        names["fr"] = row.name_fr
    return EngineServiceTier(
        code=row.code,
        names=MappingProxyType(names),
        coverage=Coverage(row.coverage),
        response_minutes=row.response_minutes,
        replacement_hours=row.replacement_hours,
        os_driver_upkeep=row.os_driver_upkeep,
        monitoring=row.monitoring,
        backups=row.backups,
        monthly=Money(getattr(row, MONTHLY_PRICE_FIELDS[currency]), currency),
    )
