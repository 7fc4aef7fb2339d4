"""Versions of the data answers are computed from, read at most once per ``DATA_VERSION_MS``
in each process.

A version (the catalog's, the cloud prices', the staff's regional assumptions') costs one or
two queries to read; everything built from the data (the catalog snapshot, the price ages, the
service tiers, the assumptions, the memoised API answers) is kept per version. A process trusts
the version it read for ``DATA_VERSION_MS`` (1 s), so a change made by any process or a bulk
update is seen by every process within that time; the process that saves a part, a price, a
service tier or an assumption forgets its versions and what it built from them at once
(``versions_forget``, connected to the models' save and delete: a row saved in a transaction
rolled back since may have had the version of the row saved next)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.db.models import Count, Max, Model, QuerySet, Value

from catalog.models import CloudPrice, Part, Price, ServiceTier

T = TypeVar("T")

# Per process: version name -> (when it was read, monotonic seconds; what it was).
_read: dict[str, tuple[float, object]] = {}
# Per process: how to empty each cache kept per version (``per_version_cache``).
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
    a feed adds a dated row); read at most once per DATA_VERSION_MS."""
    return trusted_version("cloud-prices", _cloud_prices_version_read)


def _cloud_prices_version_read() -> tuple:
    stats = CloudPrice.objects.aggregate(n=Count("id"), latest=Max("id"))
    return (stats["n"], stats["latest"])
