"""Reads from the catalog. The current price of a part is a query over its price history."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.utils import timezone

from catalog.models import (
    Chassis,
    CloudPrice,
    Commitment,
    Cpu,
    Drive,
    FormFactor,
    Gpu,
    MemoryModule,
    NetworkCard,
    Part,
    Price,
    PriceKind,
)
from engine import parts
from engine.money import Money
from engine.parts import CatalogSnapshot


def price_stale_before(*, today: dt.date | None = None) -> dt.date:
    """Prices observed before this date are stale (older than PRICE_STALE_DAYS)."""
    return (today or timezone.localdate()) - dt.timedelta(days=settings.PRICE_STALE_DAYS)


def price_is_stale(observed_on: dt.date, *, today: dt.date | None = None) -> bool:
    return observed_on < price_stale_before(today=today)


def _stale_flag(*, today: dt.date | None = None) -> ExpressionWrapper:
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
        .annotate(stale=_stale_flag(today=today))
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


def _prices_by_part(*, price_kind: str, currency: str) -> dict[int, Decimal]:
    rows = current_price_queryset(price_kind=price_kind, currency=currency)
    return dict(rows.values_list("part_id", "amount"))


def catalog_version_get() -> tuple:
    """Changes whenever a part or a price changes: the key for caching snapshots."""
    part_stats = Part.objects.aggregate(n=Count("id"), latest=Max("updated_at"))
    price_stats = Price.objects.aggregate(n=Count("id"), latest=Max("id"))
    return (part_stats["n"], part_stats["latest"], price_stats["n"], price_stats["latest"])


def catalog_snapshot_get(*, currency: str) -> CatalogSnapshot:
    """The offered parts with their current prices in one currency, as engine dataclasses.

    A part without a current purchase price in that currency is still listed (price None): the
    builder does not offer it, but staff screens can show it.
    """
    version = catalog_version_get()
    cached = _SNAPSHOTS.get(currency)
    if cached is not None and cached[0] == version:
        return cached[1]
    snapshot = _snapshot_build(currency)
    _SNAPSHOTS[currency] = (version, snapshot)
    return snapshot


# Per process, per currency: the latest snapshot and the catalog version it was built from.
_SNAPSHOTS: dict[str, tuple[tuple, CatalogSnapshot]] = {}


def _snapshot_build(currency: str) -> CatalogSnapshot:
    purchase = _prices_by_part(price_kind=PriceKind.PURCHASE, currency=currency)
    managed = _prices_by_part(price_kind=PriceKind.MANAGED_MONTHLY, currency=currency)

    def money(prices: dict[int, Decimal], part_id: int) -> Money | None:
        amount = prices.get(part_id)
        return None if amount is None else Money(amount, currency)

    gpus = tuple(
        parts.GpuSpec(
            sku=g.sku,
            name=str(g),
            vendor=g.vendor,
            memory_gb=float(g.memory_gb),
            memory_bandwidth_gbs=float(g.memory_bandwidth_gbs),
            bf16_tflops=float(g.bf16_tflops),
            fp8_tflops=None if g.fp8_tflops is None else float(g.fp8_tflops),
            tdp_w=g.tdp_w,
            form_factor=parts.FormFactor(g.form_factor),
            nvlink_gbs=None if g.nvlink_gbs is None else float(g.nvlink_gbs),
            ecc=g.ecc,
            gpu_class=parts.GpuClass(g.gpu_class),
            pcie_gen=g.pcie_gen,
            price=money(purchase, g.pk),
            managed_monthly_price=money(managed, g.pk),
        )
        for g in Gpu.objects.filter(active=True)
    )
    cpus = tuple(
        parts.CpuSpec(
            sku=c.sku,
            name=str(c),
            vendor=c.vendor,
            socket=c.socket,
            cores=c.cores,
            threads=c.threads,
            tdp_w=c.tdp_w,
            memory_channels=c.memory_channels,
            max_memory_gb=c.max_memory_gb,
            pcie_gen=c.pcie_gen,
            pcie_lanes=c.pcie_lanes,
            server_grade=c.server_grade,
            price=money(purchase, c.pk),
        )
        for c in Cpu.objects.filter(active=True)
    )
    memory = tuple(
        parts.MemorySpec(
            sku=m.sku,
            name=str(m),
            capacity_gb=m.capacity_gb,
            ddr_generation=m.ddr_generation,
            speed_mts=m.speed_mts,
            ecc=m.ecc,
            registered=m.registered,
            power_w=float(m.power_w),
            price=money(purchase, m.pk),
        )
        for m in MemoryModule.objects.filter(active=True)
    )
    drives = tuple(
        parts.DriveSpec(
            sku=d.sku,
            name=str(d),
            kind=parts.DriveKind(d.drive_kind),
            capacity_tb=float(d.capacity_tb),
            read_mbs=d.read_mbs,
            write_mbs=d.write_mbs,
            endurance_dwpd=None if d.endurance_dwpd is None else float(d.endurance_dwpd),
            power_w=float(d.power_w),
            price=money(purchase, d.pk),
        )
        for d in Drive.objects.filter(active=True)
    )
    nics = tuple(
        parts.NicSpec(
            sku=n.sku,
            name=str(n),
            speed_gbps=n.speed_gbps,
            ports=n.ports,
            infiniband=n.infiniband,
            roce=n.roce,
            pcie_lanes=n.pcie_lanes,
            power_w=float(n.power_w),
            price=money(purchase, n.pk),
        )
        for n in NetworkCard.objects.filter(active=True)
    )
    chassis = tuple(
        parts.ChassisSpec(
            sku=c.sku,
            name=str(c),
            vendor=c.vendor,
            rack_units=c.rack_units,
            gpu_slots=c.gpu_slots,
            gpu_form_factors=frozenset(
                form
                for form, accepted in (
                    (parts.FormFactor.SXM, c.accepts_sxm),
                    (parts.FormFactor.PCIE, c.accepts_pcie),
                    (parts.FormFactor.OAM, c.accepts_oam),
                )
                if accepted
            ),
            max_gpu_tdp_w=c.max_gpu_tdp_w,
            nvswitch=c.nvswitch,
            nvlink_bridge=c.nvlink_bridge,
            pcie_switches=c.pcie_switches,
            cpu_sockets=c.cpu_sockets,
            cpu_socket_type=c.cpu_socket_type,
            dimm_slots=c.dimm_slots,
            ddr_generation=c.ddr_generation,
            nvme_bays=c.nvme_bays,
            pcie_gen=c.pcie_gen,
            psu_count=c.psu_count,
            psu_w=c.psu_w,
            psu_redundant=c.psu_redundant,
            cooling=parts.Cooling(c.cooling),
            max_system_power_w=c.max_system_power_w,
            base_power_w=c.base_power_w,
            price=money(purchase, c.pk),
            managed_monthly_price=money(managed, c.pk),
            rack_mount=c.rack_mount,
        )
        for c in Chassis.objects.filter(active=True)
    )
    return CatalogSnapshot(
        currency=currency,
        gpus=gpus,
        cpus=cpus,
        memory=memory,
        drives=drives,
        nics=nics,
        chassis=chassis,
    )


# --- Cloud prices per GPU-hour (for the TCO's cloud option) --------------------------------


@dataclass(frozen=True, slots=True)
class CloudPriceQuote:
    """One provider's current price per GPU-hour for a GPU model key (``H100_SXM``)."""

    gpu_model: str
    commitment: str
    provider: str
    price_per_gpu_hour: Money
    observed_on: dt.date
    source: str
    stale: bool


def cloud_price_current_queryset(
    *, currency: str, commitment: str = Commitment.ON_DEMAND, today: dt.date | None = None
) -> QuerySet:
    """The latest row per (GPU model, provider) in one currency and commitment."""
    latest = (
        CloudPrice.objects.filter(
            gpu_model=OuterRef("gpu_model"),
            provider=OuterRef("provider"),
            commitment=commitment,
            currency=currency,
        )
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    return (
        CloudPrice.objects.filter(commitment=commitment, currency=currency, id=Subquery(latest))
        .annotate(stale=_stale_flag(today=today))
        .order_by("gpu_model", "price_per_gpu_hour", "provider")
    )


def cloud_prices_current_get(
    *, currency: str, commitment: str = Commitment.ON_DEMAND, today: dt.date | None = None
) -> dict[str, CloudPriceQuote]:
    """The representative current cloud price per GPU model key, in one query.

    Per key: among the providers' current prices, fresh ones (not stale) win over stale ones;
    among those, the median offer (the lower middle one for an even count), so one very cheap or
    very dear provider does not set the TCO's cloud price, and the quote keeps its own source.
    """
    by_model: dict[str, list[CloudPrice]] = {}
    rows_ = cloud_price_current_queryset(currency=currency, commitment=commitment, today=today)
    for row in rows_:
        by_model.setdefault(row.gpu_model, []).append(row)
    quotes = {}
    for gpu_model, rows in by_model.items():
        fresh = [row for row in rows if not row.stale] or rows
        chosen = fresh[(len(fresh) - 1) // 2]  # rows are sorted by price
        quotes[gpu_model] = CloudPriceQuote(
            gpu_model=gpu_model,
            commitment=chosen.commitment,
            provider=chosen.provider,
            price_per_gpu_hour=Money(chosen.price_per_gpu_hour, chosen.currency),
            observed_on=chosen.observed_on,
            source=chosen.source,
            stale=chosen.stale,
        )
    return quotes


def cloud_price_current_get(
    *,
    gpu_model: str,
    currency: str,
    commitment: str = Commitment.ON_DEMAND,
    today: dt.date | None = None,
) -> CloudPriceQuote | None:
    """The representative current price for one GPU model key (see ``cloud_prices_current_get``)."""
    quotes = cloud_prices_current_get(currency=currency, commitment=commitment, today=today)
    return quotes.get(gpu_model)


def price_ages_get(*, currency: str, today: dt.date | None = None) -> dict[str, PriceAge]:
    """SKU -> the date of its current purchase price in ``currency`` and whether it is stale."""
    rows = current_price_queryset(currency=currency, today=today).values_list(
        "part__sku", "observed_on", "stale"
    )
    return {sku: PriceAge(observed_on, stale) for sku, observed_on, stale in rows}


@dataclass(frozen=True, slots=True)
class PriceAge:
    observed_on: dt.date
    stale: bool


# --- Partner API reads: offered parts with their current price, and current prices ----------


def catalog_changed_at_get() -> dt.datetime | None:
    """When the catalog last changed: a part's last edit or the last price recorded."""
    part_changed_at = Part.objects.aggregate(latest=Max("updated_at"))["latest"]
    # Price rows are never updated, so the newest row (primary-key index) holds the latest time.
    price_recorded_at = Price.objects.order_by("-id").values_list("created_at", flat=True).first()
    return max((when for when in (part_changed_at, price_recorded_at) if when), default=None)


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
_CHASSIS_ACCEPTS = {
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
        .annotate(stale=_stale_flag(today=today))
        .order_by("part__sku", "price_kind", "currency")
    )
    if stale is not None:
        prices = prices.filter(stale=stale)
    return prices
