"""Current prices of parts: the latest row of each price history, and how old it is.

The current price of a part is a query over its price history (rows are never updated); a price
observed more than PRICE_STALE_DAYS ago is stale. A part priced only in another currency is
priced in the one asked for at the rate of the day (``conversion_rates_get``: the ECB's latest
reference rate, else the engine's built-in annual average), and says which currency it was
observed in: the catalog keeps prices as they were observed, never a converted copy.
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
from catalog.selectors.exchange_rates import conversion_rates_get
from catalog.selectors.versions import (
    catalog_version_get,
    exchange_rates_version_get,
    per_version_cache,
)
from engine.build.parts import PriceAge
from engine.commerce.exchange import EUR, DatedRate, convert_price
from engine.money import CURRENCIES, Money


@dataclass(frozen=True, slots=True)
class CurrentPrice:
    """A part's current price in one currency, observed in it or converted into it."""

    sku: str
    amount: Money
    age: PriceAge


@dataclass(frozen=True, slots=True)
class CurrentPrices:
    """The current prices of one kind in one currency, by part id, and the reference rates the
    converted ones were converted at (by currency; empty when none was)."""

    by_part: Mapping[int, CurrentPrice]
    rates: Mapping[str, DatedRate]
    ages: Mapping[str, PriceAge]  # by SKU

    def money(self, part_id: int) -> Money | None:
        found = self.by_part.get(part_id)
        return None if found is None else found.amount


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


def current_prices_get(
    *, currency: str, price_kind: str = PriceKind.PURCHASE, today: dt.date | None = None
) -> CurrentPrices:
    """Every part's current price of one kind in ``currency``: its latest price observed in that
    currency, else its latest in another one converted at the rate of ``today`` (one query; kept
    per catalog and exchange-rate version, day and PRICE_STALE_DAYS)."""
    return _current_prices(
        currency,
        price_kind,
        today or timezone.localdate(),
        (catalog_version_get(), exchange_rates_version_get()),
        settings.PRICE_STALE_DAYS,
    )


def price_ages_get(*, currency: str, today: dt.date | None = None) -> Mapping[str, PriceAge]:
    """SKU -> the date of its current purchase price in ``currency``, whether it is stale and,
    when it was converted, the currency it was observed in (every configuration answer shows
    it)."""
    return current_prices_get(currency=currency, today=today).ages


@lru_cache(maxsize=16)
def _current_prices(
    currency: str, price_kind: str, today: dt.date, _versions: tuple, _stale_days: int
) -> CurrentPrices:
    latest = (
        Price.objects.filter(
            part=OuterRef("part"), price_kind=price_kind, currency=OuterRef("currency")
        )
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    rows = (
        Price.objects.filter(price_kind=price_kind, id=Subquery(latest))
        .annotate(stale=price_stale_expression(today=today))
        .values_list("part_id", "part__sku", "currency", "amount", "observed_on", "stale")
    )
    observed: dict[int, dict[str, tuple]] = {}
    for part_id, sku, observed_in, amount, observed_on, stale in rows:
        observed.setdefault(part_id, {})[observed_in] = (sku, amount, observed_on, stale)
    rates = conversion_rates_get(on=today)
    used: dict[str, DatedRate] = {}
    by_part: dict[int, CurrentPrice] = {}
    for part_id, by_currency in observed.items():
        # The part's own price in this currency first; else the first other one (CURRENCIES'
        # order), converted.
        code = next((c for c in (currency, *CURRENCIES) if c in by_currency), None)
        if code is None:
            continue
        sku, amount, observed_on, stale = by_currency[code]
        if code == currency:
            by_part[part_id] = CurrentPrice(
                sku, Money(amount, currency), PriceAge(observed_on, stale)
            )
            continue
        used.update({c: rates[c] for c in (code, currency) if c != EUR})
        by_part[part_id] = CurrentPrice(
            sku,
            convert_price(Money(amount, code), currency, rates),
            PriceAge(observed_on, stale, observed_in=code),
        )
    ages = {p.sku: p.age for p in by_part.values()}
    return CurrentPrices(MappingProxyType(by_part), MappingProxyType(used), MappingProxyType(ages))


per_version_cache(_current_prices.cache_clear)
