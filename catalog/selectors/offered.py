"""Partner API reads: the offered parts with their current price, filtered, and current prices."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TypedDict

from django.db.models import BooleanField, ExpressionWrapper, Max, OuterRef, Q, QuerySet, Subquery

from catalog.models import Chassis, Cpu, FormFactor, Gpu, Part, Price, PriceKind
from catalog.selectors.prices import price_stale_before, price_stale_expression


def catalog_changed_at_get() -> dt.datetime | None:
    """When the catalog last changed: a part's last edit or the last price recorded."""
    part_changed_at = Part.objects.aggregate(latest=Max("updated_at"))["latest"]
    # Price rows are never updated, so the newest row (primary-key index) holds the latest time.
    price_recorded_at = Price.objects.order_by("-id").values_list("created_at", flat=True).first()
    return max((when for when in (part_changed_at, price_recorded_at) if when), default=None)


class OfferedPrice(TypedDict):
    """What ``_offered_with_price`` annotates each part with (None when it has no price)."""

    price_amount: Decimal | None
    price_observed_on: dt.date | None
    price_stale: bool | None


def _offered_with_price(
    model: type[Part], *, currency: str, price_kind: str, today: dt.date | None
) -> QuerySet:
    """Offered parts of one kind, each with its current price as ``price_amount``,
    ``price_observed_on`` and ``price_stale`` (all None when it has no price in ``currency``)."""
    latest = Price.objects.filter(
        part=OuterRef("pk"), price_kind=price_kind, currency=currency
    ).order_by("-observed_on", "-id")
    return (
        model.objects.filter(active=True)
        .annotate(
            price_amount=Subquery(latest.values("amount")[:1]),
            price_observed_on=Subquery(latest.values("observed_on")[:1]),
        )
        .annotate(
            price_stale=ExpressionWrapper(
                Q(price_observed_on__lt=price_stale_before(today=today)),
                output_field=BooleanField(),
            )
        )
        .order_by("sku")
    )


def offered_gpu_queryset(
    *,
    currency: str,
    vendor: str | None = None,
    gpu_class: str | None = None,
    form_factor: str | None = None,
    min_memory_gb: int | None = None,
    ecc: bool | None = None,
    today: dt.date | None = None,
) -> QuerySet:
    """Offered GPUs by SKU, with their current purchase price in ``currency``.

    Each filter left at None is not applied.
    """
    gpus = _offered_with_price(Gpu, currency=currency, price_kind=PriceKind.PURCHASE, today=today)
    if vendor is not None:
        gpus = gpus.filter(vendor__iexact=vendor)
    if gpu_class is not None:
        gpus = gpus.filter(gpu_class=gpu_class)
    if form_factor is not None:
        gpus = gpus.filter(form_factor=form_factor)
    if min_memory_gb is not None:
        gpus = gpus.filter(memory_gb__gte=min_memory_gb)
    if ecc is not None:
        gpus = gpus.filter(ecc=ecc)
    return gpus


def offered_cpu_queryset(
    *,
    currency: str,
    vendor: str | None = None,
    socket: str | None = None,
    min_cores: int | None = None,
    server_grade: bool | None = None,
    today: dt.date | None = None,
) -> QuerySet:
    """Offered CPUs by SKU, with their current purchase price in ``currency``.

    Each filter left at None is not applied.
    """
    cpus = _offered_with_price(Cpu, currency=currency, price_kind=PriceKind.PURCHASE, today=today)
    if vendor is not None:
        cpus = cpus.filter(vendor__iexact=vendor)
    if socket is not None:
        cpus = cpus.filter(socket__iexact=socket)
    if min_cores is not None:
        cpus = cpus.filter(cores__gte=min_cores)
    if server_grade is not None:
        cpus = cpus.filter(server_grade=server_grade)
    return cpus


# A GPU form factor -> the chassis flag that accepts it.
_CHASSIS_ACCEPTS: dict[str, str] = {
    FormFactor.SXM: "accepts_sxm",
    FormFactor.PCIE: "accepts_pcie",
    FormFactor.OAM: "accepts_oam",
}


def offered_chassis_queryset(
    *,
    currency: str,
    vendor: str | None = None,
    form_factor: str | None = None,
    min_gpu_slots: int | None = None,
    cooling: str | None = None,
    rack_mount: bool | None = None,
    today: dt.date | None = None,
) -> QuerySet:
    """Offered chassis by SKU with their current purchase price in ``currency``; ``form_factor``
    keeps the chassis that accept GPUs of that form factor. None skips a filter."""
    chassis = _offered_with_price(
        Chassis, currency=currency, price_kind=PriceKind.PURCHASE, today=today
    )
    if vendor is not None:
        chassis = chassis.filter(vendor__iexact=vendor)
    if form_factor is not None:
        chassis = chassis.filter(**{_CHASSIS_ACCEPTS[form_factor]: True})
    if min_gpu_slots is not None:
        chassis = chassis.filter(gpu_slots__gte=min_gpu_slots)
    if cooling is not None:
        chassis = chassis.filter(cooling=cooling)
    if rack_mount is not None:
        chassis = chassis.filter(rack_mount=rack_mount)
    return chassis


def offered_current_price_queryset(
    *,
    currency: str | None = None,
    price_kind: str | None = None,
    part_kind: str | None = None,
    sku: str | None = None,
    stale: bool | None = None,
    today: dt.date | None = None,
) -> QuerySet:
    """The current price of every offered part, per price kind and currency (one row each),
    ordered by SKU, price kind, currency; each row carries ``stale``. None skips a filter.

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
    prices = Price.objects.filter(part__active=True)
    if currency is not None:
        prices = prices.filter(currency=currency)
    if price_kind is not None:
        prices = prices.filter(price_kind=price_kind)
    if part_kind is not None:
        prices = prices.filter(part__kind=part_kind)
    if sku is not None:
        prices = prices.filter(part__sku=sku)
    prices = (
        prices.filter(id=Subquery(latest))
        .select_related("part")
        .annotate(stale=price_stale_expression(today=today))
        .order_by("part__sku", "price_kind", "currency")
    )
    if stale is not None:
        prices = prices.filter(stale=stale)
    return prices
