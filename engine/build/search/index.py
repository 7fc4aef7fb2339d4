"""Catalog index: built once per snapshot, shared by every search on it. The engine keeps no
cache of indexes: whoever holds the snapshot keeps its index beside it (the catalog app does, per
catalog version) and passes it to ``build_options``.

Parts that cannot be bought new (end of life, refurbished) are in the index; ``current_only``
is the index of the current parts alone, which the builder searches first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

from ...money import Money
from .. import rules
from ..cluster.fabric import FabricDesign, design_fabric
from ..configuration import (
    SSD_KINDS,
    drive_gb,
    is_fabric,
    mw,
    nic_pcie_lanes,
    power_budget_mw,
    power_capacity_w,
)
from ..parts import (
    Availability,
    CatalogSnapshot,
    ChassisSpec,
    Cooling,
    CpuSpec,
    DriveFormFactor,
    DriveKind,
    DriveSpec,
    FormFactor,
    GpuSpec,
    MemorySpec,
    NicSpec,
    baseboard_fits,
    hot_swap_bay,
)

if TYPE_CHECKING:
    pass

from .memo import Memo
from .records import ChassisItem, CpuItem, PartItem, pareto

_P = TypeVar("_P", GpuSpec, CpuSpec, MemorySpec, DriveSpec, NicSpec, ChassisSpec)
_FABRICS_MAX = 4096  # fabric designs kept per snapshot


class SearchIndex:
    """The offered parts of one snapshot, sorted and pruned for the search. Immutable once built."""

    def __init__(self, catalog: CatalogSnapshot, places: int | None = None) -> None:
        self.currency = catalog.currency
        every: tuple[GpuSpec | CpuSpec | MemorySpec | DriveSpec | NicSpec | ChassisSpec, ...] = (
            *catalog.gpus,
            *catalog.cpus,
            *catalog.memory,
            *catalog.drives,
            *catalog.nics,
            *catalog.chassis,
        )
        if places is None:
            places = 0
            for part in every:
                amount = self._offered_amount(part.price)
                if amount is not None:
                    exponent = amount.as_tuple().exponent
                    if isinstance(exponent, int):
                        places = max(places, -exponent)
        self.places = places
        self.scale: int = 10**places

        # SKUs identical in every figure (vendor part numbers of one card) are one GPU model,
        # offered at its cheapest SKU's price (a current one on a tie): ``gpus_for`` is asked
        # once per model.
        models: dict[GpuSpec, tuple[GpuSpec, int]] = {}
        for gpu in catalog.gpus:
            cost = self.units(gpu.price)
            if cost is None:
                continue
            twin = replace(
                gpu,
                sku="",
                name="",
                vendor="",
                price=None,
                managed_monthly_price=None,
                availability=Availability.CURRENT,
                lead_time_weeks=None,
            )
            kept = models.get(twin)
            if kept is None or _gpu_order(gpu, cost) < _gpu_order(*kept):
                models[twin] = (gpu, cost)
        self.gpus = tuple(sorted(models.values(), key=lambda m: (m[1], m[0].sku)))
        self._build_chassis(catalog.chassis)
        self._chassis_by_gpu: dict[tuple[FormFactor, str], tuple[ChassisItem, ...]] = {}
        for gpu, _cost in self.gpus:
            if _board_key(gpu) not in self._chassis_by_gpu:
                self._chassis_by_gpu[_board_key(gpu)] = self._fitting_chassis(gpu)
        self._build_cpus(catalog.cpus)
        self._build_memory(catalog.memory)
        self._build_drives(catalog.drives)
        self._build_nics(catalog.nics)
        # What sits between servers (engine.build.cluster.fabric designs it per request from these).
        self.cluster = CatalogSnapshot(
            currency=catalog.currency,
            switches=catalog.switches,
            cables=catalog.cables,
            storage_servers=catalog.storage_servers,
            nics=catalog.nics,  # storage adapters (engine.build.cluster.storage_network)
        )
        # Fabric designs depend on the snapshot and these figures only: kept for every request.
        self._fabrics: Memo[tuple[int, int, int, bool, bool, int], FabricDesign | None] = Memo(
            limit=_FABRICS_MAX
        )
        # The current parts alone, priced on the same scale (None: every part is current).
        current = _current_parts(catalog)
        self.current_only = None if current is None else SearchIndex(current, places=self.places)

    def fabric(
        self,
        servers: int,
        per_server: int,
        speed_gbps: int,
        infiniband: bool,
        production: bool,
        other_managed: int = 0,
    ) -> FabricDesign | None:
        """``engine.build.cluster.fabric.design_fabric`` on this snapshot's cluster parts,
        memoised."""
        key = (servers, per_server, speed_gbps, infiniband, production, other_managed)
        return self._fabrics.get(
            key,
            lambda: design_fabric(
                servers, per_server, speed_gbps, infiniband, self.cluster, production, other_managed
            ),
        )

    def chassis_for(self, gpu: GpuSpec) -> tuple[ChassisItem, ...]:
        """The chassis that take the GPU (its form factor and baseboard), cheapest first."""
        found = self._chassis_by_gpu.get(_board_key(gpu))
        return found if found is not None else self._fitting_chassis(gpu)

    def max_slots_for(self, gpu: GpuSpec) -> int:
        """The most GPU slots of any chassis that takes the GPU (0: none)."""
        return max((item.spec.gpu_slots for item in self.chassis_for(gpu)), default=0)

    def _fitting_chassis(self, gpu: GpuSpec) -> tuple[ChassisItem, ...]:
        return tuple(
            item
            for item in self.chassis_by_form.get(gpu.form_factor, ())
            if baseboard_fits(gpu, item.spec)
        )

    def _offered_amount(self, price: Money | None) -> Decimal | None:
        if price is None or price.currency != self.currency:
            return None
        amount = price.amount
        return amount if amount.is_finite() and amount >= 0 else None

    def units(self, price: Money | None) -> int | None:
        """The price in integer units (exact), or None when the part is not offered."""
        amount = self._offered_amount(price)
        return None if amount is None else int(Fraction(amount) * self.scale)

    def units_floor(self, money: Money) -> int:
        return math.floor(Fraction(money.amount) * self.scale)

    def amount(self, units: int) -> Decimal:
        return Decimal(units).scaleb(-self.places)

    def _build_chassis(self, chassis: Sequence[ChassisSpec]) -> None:
        groups: dict[tuple[object, ...], list[ChassisItem]] = {}
        for spec in chassis:
            cost = self.units(spec.price)
            if cost is None or spec.gpu_slots < 1:
                continue
            item = ChassisItem(
                spec=spec,
                cost=cost,
                base_mw=spec.base_power_w * 1000,
                load_budget_mw=(
                    power_budget_mw(power_capacity_w(spec, production=False)),
                    power_budget_mw(power_capacity_w(spec, production=True)),
                ),
            )
            # Chassis only compete with chassis that take the same CPUs and DIMMs (and, for
            # baseboards, the same GPU count); among those, one that costs no less and offers
            # nothing more in any figure the rules read is never needed.
            baseboard = spec.gpu_form_factors & rules.BASEBOARD_FORM_FACTORS
            group = (
                spec.gpu_form_factors,
                spec.baseboards,
                spec.cpu_sockets,
                spec.cpu_socket_type,
                spec.ddr_generation,
                spec.gpu_slots if baseboard else 0,
                spec.rack_mount,  # a tower never stands in for a rack server in production
            )
            groups.setdefault(group, []).append(item)
        kept: list[ChassisItem] = []
        for items in groups.values():
            items.sort(key=lambda i: (i.cost, i.spec.sku))
            kept += pareto(items, _chassis_metrics)
        by_form: dict[FormFactor, list[ChassisItem]] = {}
        for item in kept:
            for form in item.spec.gpu_form_factors:
                by_form.setdefault(form, []).append(item)
        self.chassis_by_form = {
            form: tuple(sorted(items, key=lambda i: (i.cost, i.spec.sku)))
            for form, items in by_form.items()
        }
        self.max_bays = max((i.spec.nvme_bays for i in kept), default=0)
        self.max_m2_slots = max((i.spec.m2_slots for i in kept), default=0)

    def _build_cpus(self, cpus: Sequence[CpuSpec]) -> None:
        # Server-grade CPUs for every chassis; a workstation tower (experiments) also takes the
        # workstation CPUs of its own platform: one list per socket for each case.
        self.cpus_by_socket = self._cpus_by_socket(c for c in cpus if c.server_grade)
        self.tower_cpus_by_socket = self._cpus_by_socket(cpus)
        # The lowest price per core of any CPU: N cores cost at least N times that.
        self.core_unit_price = min(
            (
                Fraction(i.cost, i.spec.cores)
                for items in self.tower_cpus_by_socket.values()
                for i in items
                if i.spec.cores > 0
            ),
            default=Fraction(0),
        )

    def _cpus_by_socket(self, cpus: Iterable[CpuSpec]) -> dict[str, tuple[CpuItem, ...]]:
        cheapest: dict[tuple[object, ...], CpuItem] = {}
        for spec in cpus:
            cost = self.units(spec.price)
            if cost is None:
                continue
            twin = (
                spec.socket,
                spec.cores,
                spec.tdp_w,
                spec.memory_channels,
                spec.max_memory_gb,
                spec.pcie_lanes,
            )
            kept = cheapest.get(twin)
            if kept is None or (cost, spec.sku) < (kept.cost, kept.spec.sku):
                cheapest[twin] = CpuItem(spec, cost, spec.tdp_w * 1000)
        by_socket: dict[str, list[CpuItem]] = {}
        for item in cheapest.values():
            by_socket.setdefault(item.spec.socket, []).append(item)
        return {
            socket: tuple(sorted(items, key=lambda i: (i.cost, i.spec.sku)))
            for socket, items in by_socket.items()
        }

    def _build_memory(self, memory: Sequence[MemorySpec]) -> None:
        offered = sorted(
            (
                PartItem(spec, cost, mw(spec.power_w))
                for spec in memory
                if (cost := self.units(spec.price)) is not None and spec.capacity_gb > 0
            ),
            key=lambda i: (i.cost, i.power_mw, i.spec.sku),
        )
        # Per DDR generation, registered or unbuffered, and ECC-only for production: per
        # capacity, the DIMMs no cheaper one of the same capacity matches on power.
        self.dimms: dict[tuple[int, bool, bool], tuple[PartItem, ...]] = {}
        for ecc_only in (False, True):
            lowest: dict[tuple[int, bool, int], int] = {}
            chosen: dict[tuple[int, bool], list[PartItem]] = {}
            for item in offered:
                spec = item.spec
                if ecc_only and not spec.ecc:
                    continue
                key = (spec.ddr_generation, spec.registered, spec.capacity_gb)
                if key in lowest and lowest[key] <= item.power_mw:
                    continue
                lowest[key] = item.power_mw
                chosen.setdefault((spec.ddr_generation, spec.registered), []).append(item)
            for (ddr, registered), items in chosen.items():
                self.dimms[(ddr, ecc_only, registered)] = tuple(items)
        # The lowest price per GB of RAM (per DDR generation and DIMM kind, and over all),
        # ECC-only or not: any set of DIMMs reaching X GB costs at least X times that.
        self.ram_unit_price: dict[tuple[int | None, bool, bool | None], Fraction] = {}
        for (ddr, ecc_only, registered), dimm_items in self.dimms.items():
            unit = min(Fraction(i.cost, i.spec.capacity_gb) for i in dimm_items)
            self.ram_unit_price[(ddr, ecc_only, registered)] = unit
            overall = self.ram_unit_price.get((None, ecc_only, None))
            self.ram_unit_price[(None, ecc_only, None)] = (
                unit if overall is None else min(overall, unit)
            )

    def _build_drives(self, drives: Sequence[DriveSpec]) -> None:
        offered = [
            PartItem(spec, cost, mw(spec.power_w))
            for spec in drives
            if (cost := self.units(spec.price)) is not None
        ]

        def order(item: PartItem) -> tuple[object, ...]:
            spec = item.spec
            return (item.cost, item.power_mw, -drive_gb(spec), -spec.read_mbs, spec.sku)

        def metrics(item: PartItem) -> tuple[float, ...]:
            return (item.power_mw, -drive_gb(item.spec), -item.spec.read_mbs)

        # Prune within each capacity first (small groups), then across capacities.
        by_capacity: dict[float, list[PartItem]] = {}
        for item in offered:
            # Data goes on hot-swap drives in the front bays; an M.2 stick only boots.
            if item.spec.kind is DriveKind.NVME and hot_swap_bay(item.spec):
                by_capacity.setdefault(drive_gb(item.spec), []).append(item)
        nvme = [
            kept
            for items in by_capacity.values()
            for kept in pareto(sorted(items, key=order), metrics)
        ]
        self.nvme = tuple(pareto(sorted(nvme, key=order), metrics))
        # M.2 NVMe drives hold data only in a workstation tower (rules.m2_data_allowed).
        m2 = [
            item
            for item in offered
            if item.spec.kind is DriveKind.NVME and item.spec.form_factor is DriveFormFactor.M2
        ]
        self.m2_data = tuple(pareto(sorted(m2, key=order), metrics))
        boot = sorted(
            (
                i
                for i in offered
                # Boot SSDs sit on the board (M.2): they take no front bay (the checks and the
                # power figures count them in the chassis' base).
                if i.spec.kind in SSD_KINDS
                and not hot_swap_bay(i.spec)
                and i.spec.form_factor is DriveFormFactor.M2
                and drive_gb(i.spec) >= rules.BOOT_DRIVE_MIN_GB
            ),
            key=lambda i: (i.cost, i.spec.sku),
        )
        self.boot = boot[0] if boot else None

    def _build_nics(self, nics: Sequence[NicSpec]) -> None:
        fabric = sorted(
            (
                PartItem(spec, cost, mw(spec.power_w))
                for spec in nics
                if (cost := self.units(spec.price)) is not None
                and is_fabric(spec)
                and spec.ports > 0
            ),
            key=lambda i: (
                i.cost,
                i.power_mw,
                nic_pcie_lanes(i.spec),
                -i.spec.speed_gbps,
                -i.spec.ports,
                i.spec.sku,
            ),
        )
        self.fabric_nics = tuple(
            pareto(
                fabric,
                lambda i: (i.power_mw, nic_pcie_lanes(i.spec), -i.spec.speed_gbps, -i.spec.ports),
            )
        )


def _gpu_order(gpu: GpuSpec, cost: int) -> tuple[int, bool, str]:
    return (cost, gpu.availability is not Availability.CURRENT, gpu.sku)


def _board_key(gpu: GpuSpec) -> tuple[FormFactor, str]:
    return (gpu.form_factor, "" if gpu.form_factor is FormFactor.PCIE else gpu.baseboard)


def _current_parts(catalog: CatalogSnapshot) -> CatalogSnapshot | None:
    """The snapshot with its current parts only; None when every part is current."""

    def current(parts: Sequence[_P]) -> tuple[_P, ...]:
        return tuple(p for p in parts if p.availability is Availability.CURRENT)

    kept = CatalogSnapshot(
        currency=catalog.currency,
        gpus=current(catalog.gpus),
        cpus=current(catalog.cpus),
        memory=current(catalog.memory),
        drives=current(catalog.drives),
        nics=current(catalog.nics),
        chassis=current(catalog.chassis),
        # The cluster's switches, cables and storage are designed outside the search.
        switches=catalog.switches,
        cables=catalog.cables,
        storage_servers=catalog.storage_servers,
    )
    return None if kept == catalog else kept


def _chassis_metrics(item: ChassisItem) -> tuple[float, ...]:
    """What a chassis offers, smaller is better (capabilities negated)."""
    spec = item.spec
    return (
        -spec.gpu_slots,
        -spec.max_gpu_tdp_w,
        -spec.nvswitch,
        -spec.nvlink_bridge,
        -spec.pcie_switches,
        -spec.dimm_slots,
        -spec.nvme_bays,
        -(item.load_budget_mw[0] - item.base_mw),
        -(item.load_budget_mw[1] - item.base_mw),
        -(spec.psu_redundant >= rules.PSU_REDUNDANT_MIN),
        -(spec.cooling is Cooling.LIQUID),
    )
