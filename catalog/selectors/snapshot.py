"""The catalog snapshot: the offered parts with their current prices, as engine dataclasses.

The builder and the advice work on a ``CatalogSnapshot``; it is built once per catalog version,
exchange-rate version and currency, and kept per process until a part, a price or a rate
changes. Prices observed in another currency are converted (``current_prices_get``) and the
snapshot names the rates it converted them at.
"""

from __future__ import annotations

from collections.abc import Callable

from catalog.models import (
    Cable,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    NetworkSwitch,
    PriceKind,
    StorageServer,
)
from catalog.selectors.prices import current_prices_get
from catalog.selectors.versions import (
    catalog_version_get,
    exchange_rates_version_get,
    per_version_cache,
)
from engine.build import parts
from engine.build.parts import CatalogSnapshot
from engine.build.search import SearchIndex
from engine.money import Money

# A part's price in the snapshot's currency, by part id (None: no current price).
PriceOf = Callable[[int], Money | None]


def catalog_snapshot_get(*, currency: str) -> CatalogSnapshot:
    """The offered parts with their current prices in one currency, as engine dataclasses.

    A part without a current purchase price in that currency is still listed (price None): the
    builder does not offer it, but staff screens can show it.
    """
    version = (catalog_version_get(), exchange_rates_version_get())
    cached = _SNAPSHOTS.get(currency)
    if cached is not None and cached[0] == version:
        return cached[1]
    snapshot = _snapshot_build(currency)
    _SNAPSHOTS[currency] = (version, snapshot)
    return snapshot


# Per process, per currency: the latest snapshot and the catalog version it was built from.
_SNAPSHOTS: dict[str, tuple[tuple, CatalogSnapshot]] = {}
per_version_cache(_SNAPSHOTS.clear)


def catalog_search_index_get(*, currency: str) -> SearchIndex:
    """The builder's search index of the current snapshot in ``currency``: built once per
    snapshot (the engine keeps none), so that a request pays for the search, not the index."""
    snapshot = catalog_snapshot_get(currency=currency)
    kept = _INDEXES.get(currency)
    if kept is not None and kept[0] is snapshot:
        return kept[1]
    index = SearchIndex(snapshot)
    _INDEXES[currency] = (snapshot, index)
    return index


# Per process, per currency: the snapshot an index was built from (kept alive with it) and it.
_INDEXES: dict[str, tuple[CatalogSnapshot, SearchIndex]] = {}
per_version_cache(_INDEXES.clear)


def _snapshot_build(currency: str) -> CatalogSnapshot:
    purchases = current_prices_get(price_kind=PriceKind.PURCHASE, currency=currency)
    fees = current_prices_get(price_kind=PriceKind.MANAGED_MONTHLY, currency=currency)
    purchase, managed = purchases.money, fees.money
    rates = {**purchases.rates, **fees.rates}
    return CatalogSnapshot(
        currency=currency,
        exchange_rates=tuple(rates[code] for code in sorted(rates)),
        gpus=tuple(_gpu_spec(g, purchase, managed) for g in Gpu.objects.filter(active=True)),
        cpus=tuple(_cpu_spec(c, purchase) for c in Cpu.objects.filter(active=True)),
        memory=tuple(_memory_spec(m, purchase) for m in MemoryModule.objects.filter(active=True)),
        drives=tuple(_drive_spec(d, purchase) for d in Drive.objects.filter(active=True)),
        nics=tuple(_nic_spec(n, purchase) for n in NetworkCard.objects.filter(active=True)),
        chassis=tuple(
            _chassis_spec(c, purchase, managed) for c in Chassis.objects.filter(active=True)
        ),
        switches=tuple(
            _switch_spec(s, purchase) for s in NetworkSwitch.objects.filter(active=True)
        ),
        cables=tuple(_cable_spec(c, purchase) for c in Cable.objects.filter(active=True)),
        storage_servers=tuple(
            _storage_server_spec(s, purchase, managed)
            for s in StorageServer.objects.filter(active=True)
        ),
    )


def _gpu_spec(g: Gpu, purchase: PriceOf, managed: PriceOf) -> parts.GpuSpec:
    return parts.GpuSpec(
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
        price=purchase(g.pk),
        managed_monthly_price=managed(g.pk),
        architecture=g.architecture,
        baseboard=g.baseboard,
        availability=parts.Availability(g.availability),
        lead_time_weeks=g.lead_time_weeks,
    )


def _cpu_spec(c: Cpu, purchase: PriceOf) -> parts.CpuSpec:
    return parts.CpuSpec(
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
        price=purchase(c.pk),
        availability=parts.Availability(c.availability),
        lead_time_weeks=c.lead_time_weeks,
    )


def _memory_spec(m: MemoryModule, purchase: PriceOf) -> parts.MemorySpec:
    return parts.MemorySpec(
        sku=m.sku,
        name=str(m),
        capacity_gb=m.capacity_gb,
        ddr_generation=m.ddr_generation,
        speed_mts=m.speed_mts,
        ecc=m.ecc,
        registered=m.registered,
        power_w=float(m.power_w),
        price=purchase(m.pk),
        availability=parts.Availability(m.availability),
        lead_time_weeks=m.lead_time_weeks,
    )


def _drive_spec(d: Drive, purchase: PriceOf) -> parts.DriveSpec:
    return parts.DriveSpec(
        sku=d.sku,
        name=str(d),
        kind=parts.DriveKind(d.drive_kind),
        capacity_tb=float(d.capacity_tb),
        read_mbs=d.read_mbs,
        write_mbs=d.write_mbs,
        endurance_dwpd=None if d.endurance_dwpd is None else float(d.endurance_dwpd),
        power_w=float(d.power_w),
        price=purchase(d.pk),
        availability=parts.Availability(d.availability),
        lead_time_weeks=d.lead_time_weeks,
        form_factor=parts.DriveFormFactor(d.form_factor),
    )


def _nic_spec(n: NetworkCard, purchase: PriceOf) -> parts.NicSpec:
    return parts.NicSpec(
        sku=n.sku,
        name=str(n),
        speed_gbps=n.speed_gbps,
        ports=n.ports,
        infiniband=n.infiniband,
        roce=n.roce,
        pcie_lanes=n.pcie_lanes,
        power_w=float(n.power_w),
        price=purchase(n.pk),
        availability=parts.Availability(n.availability),
        lead_time_weeks=n.lead_time_weeks,
    )


def _chassis_spec(c: Chassis, purchase: PriceOf, managed: PriceOf) -> parts.ChassisSpec:
    return parts.ChassisSpec(
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
        price=purchase(c.pk),
        managed_monthly_price=managed(c.pk),
        rack_mount=c.rack_mount,
        registered_memory=c.registered_memory,
        m2_slots=c.m2_slots,
        baseboards=c.baseboard_set,
        availability=parts.Availability(c.availability),
        lead_time_weeks=c.lead_time_weeks,
    )


def _switch_spec(s: NetworkSwitch, purchase: PriceOf) -> parts.SwitchSpec:
    return parts.SwitchSpec(
        sku=s.sku,
        name=str(s),
        vendor=s.vendor,
        ports=s.ports,
        port_speed_gbps=s.port_speed_gbps,
        infiniband=s.infiniband,
        ethernet=s.ethernet,
        management=s.management,
        rack_units=s.rack_units,
        power_w=float(s.power_w),
        price=purchase(s.pk),
        availability=parts.Availability(s.availability),
        lead_time_weeks=s.lead_time_weeks,
        breakout=s.breakout,
    )


def _cable_spec(c: Cable, purchase: PriceOf) -> parts.CableSpec:
    return parts.CableSpec(
        sku=c.sku,
        name=str(c),
        kind=parts.CableKind(c.cable_kind),
        speed_gbps=c.speed_gbps,
        infiniband=c.infiniband,
        ethernet=c.ethernet,
        length_m=float(c.length_m),
        power_w=float(c.power_w),
        price=purchase(c.pk),
        availability=parts.Availability(c.availability),
        lead_time_weeks=c.lead_time_weeks,
        ends=parts.CableEnds(c.ends),
        links=c.links,
    )


def _storage_server_spec(
    s: StorageServer, purchase: PriceOf, managed: PriceOf
) -> parts.StorageServerSpec:
    return parts.StorageServerSpec(
        sku=s.sku,
        name=str(s),
        vendor=s.vendor,
        usable_tb=float(s.usable_tb),
        read_mbs=s.read_mbs,
        network_gbps=s.network_gbps,
        port_speed_gbps=s.port_speed_gbps,
        rack_units=s.rack_units,
        power_w=float(s.power_w),
        price=purchase(s.pk),
        managed_monthly_price=managed(s.pk),
        availability=parts.Availability(s.availability),
        lead_time_weeks=s.lead_time_weeks,
    )
