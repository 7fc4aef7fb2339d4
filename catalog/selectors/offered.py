"""Partner API reads: the offered parts with their current price, filtered, and current prices."""

from __future__ import annotations

import datetime as dt

from django.db.models import Max, OuterRef, QuerySet, Subquery

from catalog.models import Chassis, Cpu, ExchangeRate, Gpu, Part, Price
from catalog.selectors.prices import price_stale_expression
from engine.build.parts import FormFactor


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


def offered_gpu_queryset(
    *,
    vendor: str | None = None,
    gpu_class: str | None = None,
    form_factor: str | None = None,
    min_memory_gb: int | None = None,
    ecc: bool | None = None,
) -> QuerySet:
    """Offered GPUs by SKU.

    Each filter left at None is not applied.
    """
    gpus = _offered(Gpu)
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
    vendor: str | None = None,
    socket: str | None = None,
    min_cores: int | None = None,
    server_grade: bool | None = None,
) -> QuerySet:
    """Offered CPUs by SKU.

    Each filter left at None is not applied.
    """
    cpus = _offered(Cpu)
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
    vendor: str | None = None,
    form_factor: str | None = None,
    min_gpu_slots: int | None = None,
    cooling: str | None = None,
    rack_mount: bool | None = None,
) -> QuerySet:
    """Offered chassis by SKU; ``form_factor``
    keeps the chassis that accept GPUs of that form factor. None skips a filter."""
    chassis = _offered(Chassis)
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
