"""Versions of the data answers are computed from, read at most once per ``DATA_VERSION_MS``
in each process.

A version (the catalog's, the cloud prices', the staff's regional assumptions') costs one or
two queries to read; everything built from the data (the catalog snapshot, the price ages, the
service tiers, the assumptions, the cached API answers) is cached per version. A process trusts
the version it read for ``DATA_VERSION_MS`` (1 s), so a change made by any process or a bulk
update is seen by every process within that time; the process that saves a part, a price, a
service tier or an assumption forgets its versions and what it built from them at once
(``versions_forget``, connected to the models' save and delete: a row saved in a transaction
rolled back since may have had the version of the row saved next)."""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from django.conf import settings
from django.db.models import Count, DecimalField, Max, Model, QuerySet, Sum, Value

from catalog.models import (
    CloudOffer,
    CloudPrice,
    ExchangeRate,
    HostingOffer,
    Part,
    Price,
    ServiceTier,
)

T = TypeVar("T")

# Per process: version name -> (when it was read, monotonic seconds; what it was).
_read: dict[str, tuple[float, object]] = {}
# Per process: how to empty each per-version cache (``per_version_cache``).
_caches: list[Callable[[], None]] = []


def per_version_cache(clear: Callable[[], None]) -> None:
    """Register a per-process cache whose keys include a version: ``versions_forget`` empties
    it too."""
    _caches.append(clear)


def trusted_version(name: str, read: Callable[[], T]) -> T:
    """``read()``'s last answer in this process if it is younger than ``DATA_VERSION_MS``,
    else a fresh one."""
    now = time.monotonic()
    kept = _read.get(name)
    if kept is not None and (now - kept[0]) * 1000 < settings.DATA_VERSION_MS:
        return kept[1]  # type: ignore[return-value]  # stored by this function under name
    value = read()
    _read[name] = (now, value)
    return value


def versions_forget(**_signal_kwargs: object) -> None:
    """Read every version again on next use and drop what was built from them (a signal
    receiver: this process changed data)."""
    _read.clear()
    for clear in _caches:
        clear()


def catalog_version_get() -> tuple:
    """Changes whenever a part, a price or a service tier changes: the key for caching
    snapshots and the answers that quote a tier (read at most once per DATA_VERSION_MS, see
    ``versions``)."""
    return trusted_version("catalog", _catalog_version_read)


def _catalog_version_read() -> tuple:
    # The tables edited in place (count and last edit), in one query; the price history's rows
    # are never edited (count and newest id).
    edited = {
        row["of"]: (row["n"], row["latest"])
        for row in _edit_stats(Part, "part").union(_edit_stats(ServiceTier, "tier"), all=True)
    }
    price_stats = Price.objects.aggregate(n=Count("id"), latest=Max("id"))
    return (
        *edited.get("part", (0, None)),
        price_stats["n"],
        price_stats["latest"],
        *edited.get("tier", (0, None)),
    )


def _edit_stats(model: type[Model], label: str) -> QuerySet:
    """One row: ``label`` (as ``of``), how many rows ``model`` has and when one was last
    edited."""
    return (
        model._default_manager.order_by()
        .values(of=Value(label))
        .annotate(n=Count("id"), latest=Max("updated_at"))
        .values("of", "n", "latest")
    )


def cloud_prices_version_get() -> tuple:
    """Changes whenever a cloud GPU price is added or removed (rows are never edited in place:
    a feed adds a dated row) or a run replaces a source's cloud offers (new ids); read at most
    once per DATA_VERSION_MS, with the other market data (one query)."""
    market = _market_versions()
    return (*market.get("prices", (0, None, 0)), *market.get("offers", (0, None, 0)))


def hosting_offers_version_get() -> tuple:
    """Changes whenever a price source's hosting offers change (a run replaces the ones that
    changed: new ids) or a source with offers is enabled or disabled."""
    return _market_versions().get("hosting", (0, None, 0))


def exchange_rates_version_get() -> tuple:
    """Changes whenever an ECB rate is added or corrected in place (the sum of the rates
    moves)."""
    return _market_versions().get("rates", (0, None, 0))


def _market_versions() -> dict[str, tuple]:
    return trusted_version("market-data", _market_versions_read)


def _market_versions_read() -> dict[str, tuple]:
    # Rows added by feeds, replaced by runs or corrected in place: count, newest id and (for
    # the rates, corrected in place) the sum of their values, in one query.
    parts = (
        _id_stats(CloudPrice._default_manager.all(), "prices"),
        _id_stats(CloudOffer._default_manager.all(), "offers"),
        _id_stats(HostingOffer._default_manager.filter(price_source__enabled=True), "hosting"),
        _id_stats(ExchangeRate._default_manager.all(), "rates", total="per_eur"),
    )
    rows = parts[0].union(*parts[1:], all=True)
    return {row["of"]: (row["n"], row["latest"], row["total"] or 0) for row in rows}


def _id_stats(rows: QuerySet, label: str, total: str | None = None) -> QuerySet:
    """One row: ``label`` (as ``of``), how many ``rows``, the newest id and the sum of the field
    ``total`` (0 without one)."""
    return (
        rows.order_by()
        .values(of=Value(label))
        .annotate(
            n=Count("id"),
            latest=Max("id"),
            total=Sum(total) if total else Value(Decimal(0), output_field=DecimalField()),
        )
        .values("of", "n", "latest", "total")
    )
