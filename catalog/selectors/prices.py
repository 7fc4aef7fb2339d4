"""Current prices of parts: the latest row of each price history, and how old it is.

The current price of a part is a query over its price history (rows are never updated); a price
observed more than PRICE_STALE_DAYS ago is stale.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from django.conf import settings
from django.db.models import BooleanField, ExpressionWrapper, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from catalog.models import Part, Price, PriceKind
from catalog.selectors.versions import catalog_version_get, per_version_cache


@dataclass(frozen=True, slots=True)
class PriceAge:
    observed_on: dt.date
    stale: bool


def price_stale_before(*, today: dt.date | None = None) -> dt.date:
    """Prices observed before this date are stale (older than PRICE_STALE_DAYS)."""
    return (today or timezone.localdate()) - dt.timedelta(days=settings.PRICE_STALE_DAYS)


def price_is_stale(observed_on: dt.date, *, today: dt.date | None = None) -> bool:
    return observed_on < price_stale_before(today=today)


def price_stale_expression(*, today: dt.date | None = None) -> ExpressionWrapper:
    """``stale`` for an annotation over price rows: observed before ``price_stale_before``."""
    return ExpressionWrapper(
        Q(observed_on__lt=price_stale_before(today=today)), output_field=BooleanField()
    )


def current_price_queryset(
    *, price_kind: str = PriceKind.PURCHASE, currency: str, today: dt.date | None = None
) -> QuerySet:
    """The latest price row per part for one kind and currency (price date, then recording).

    Each row carries ``stale``: True when observed more than PRICE_STALE_DAYS ago.
    """
    latest = (
        Price.objects.filter(part=OuterRef("part"), price_kind=price_kind, currency=currency)
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    return (
        Price.objects.filter(price_kind=price_kind, currency=currency, id=Subquery(latest))
        .select_related("part")
        .annotate(stale=price_stale_expression(today=today))
    )


def stale_price_queryset(
    *, price_kind: str = PriceKind.PURCHASE, currency: str, today: dt.date | None = None
) -> QuerySet:
    """Current prices that are stale: what the next feeds (or staff) should refresh first."""
    return current_price_queryset(price_kind=price_kind, currency=currency, today=today).filter(
        stale=True
    )


def current_price_get(
    *, part: Part, currency: str, price_kind: str = PriceKind.PURCHASE
) -> Price | None:
    return (
        Price.objects.filter(part=part, price_kind=price_kind, currency=currency)
        .order_by("-observed_on", "-id")
        .first()
    )


def price_ages_get(*, currency: str, today: dt.date | None = None) -> Mapping[str, PriceAge]:
    """SKU -> the date of its current purchase price in ``currency`` and whether it is stale;
    kept per catalog version, day and PRICE_STALE_DAYS (every configuration answer shows it)."""
    return _price_ages(
        currency, today or timezone.localdate(), catalog_version_get(), settings.PRICE_STALE_DAYS
    )


@lru_cache(maxsize=16)
def _price_ages(
    currency: str, today: dt.date, _version: tuple, _stale_days: int
) -> Mapping[str, PriceAge]:
    rows = current_price_queryset(currency=currency, today=today).values_list(
        "part__sku", "observed_on", "stale"
    )
    return MappingProxyType({sku: PriceAge(observed_on, stale) for sku, observed_on, stale in rows})


per_version_cache(_price_ages.cache_clear)
