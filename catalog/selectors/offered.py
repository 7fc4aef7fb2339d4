"""Partner API reads: the offered parts and their current prices (the API filters them)."""

from __future__ import annotations

import datetime as dt

from django.db.models import Max, OuterRef, QuerySet, Subquery

from catalog.models import Chassis, Cpu, ExchangeRate, Gpu, Part, Price
from catalog.selectors.prices import price_stale_expression


def catalog_changed_at_get() -> dt.datetime | None:
    """When the catalog's answers last changed: a part's last edit, the last price recorded or
    the last reference rate (prices observed in another currency are converted at it)."""
    part_changed_at = Part.objects.aggregate(latest=Max("updated_at"))["latest"]
    # Price and rate rows are added, so the newest row (primary-key index) holds the latest time.
    price_recorded_at = Price.objects.order_by("-id").values_list("created_at", flat=True).first()
    rate_recorded_at = (
        ExchangeRate.objects.order_by("-id").values_list("created_at", flat=True).first()
    )
    changes = (part_changed_at, price_recorded_at, rate_recorded_at)
    return max((when for when in changes if when), default=None)


def _offered(model: type[Part]) -> QuerySet:
    """Offered parts of one kind by SKU; their current price is ``current_prices_get``'s (in the
    currency asked for, converted when it was observed in another one)."""
    return model.objects.filter(active=True).order_by("sku")


def offered_gpu_queryset() -> QuerySet:
    """Offered GPUs by SKU (the API's filters: ``catalog.api.filters.GpuFilter``)."""
    return _offered(Gpu)


def offered_cpu_queryset() -> QuerySet:
    """Offered CPUs by SKU (the API's filters: ``catalog.api.filters.CpuFilter``)."""
    return _offered(Cpu)


def offered_chassis_queryset() -> QuerySet:
    """Offered chassis by SKU (the API's filters: ``catalog.api.filters.ChassisFilter``)."""
    return _offered(Chassis)


def offered_current_price_queryset(*, today: dt.date | None = None) -> QuerySet:
    """The current price of every offered part, per price kind and currency (one row each),
    ordered by SKU, price kind, currency; each row carries ``stale`` (the API's filters:
    ``catalog.api.filters.PriceFilter``).

    ``current_price_queryset`` answers one kind and currency; this one answers them all.
    """
    latest = (
        Price.objects.filter(
            part=OuterRef("part"),
            price_kind=OuterRef("price_kind"),
            currency=OuterRef("currency"),
        )
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    return (
        Price.objects.filter(part__active=True, id=Subquery(latest))
        .select_related("part")
        .annotate(stale=price_stale_expression(today=today))
        .order_by("part__sku", "price_kind", "currency")
    )
