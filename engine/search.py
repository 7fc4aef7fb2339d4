"""The exact search behind the builder: a per-snapshot index and branch and bound.

See ``builder.py`` for the algorithm in words.
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

from . import rules
from .checks import (
    _model_sharded,
    _nvlink_ok,
)
from .configuration import (
    _SSD_KINDS,
    BuilderInconsistencyError,
    BuildNeeds,
    Environment,
    GpuFit,
    ServerConfiguration,
    _drive_gb,
    _is_fabric,
    _memory_floor_gb,
    _min_units,
    _mw,
    _nic_lanes,
    _num,
    _power_budget_mw,
    _power_capacity_w,
    _server_needs,
    _ServerNeeds,
    _usable_gb,
)
from .i18n import Message, gettext_noop
from .money import Money
from .parts import (
    FORM_FACTOR_LABELS,
    GPU_CLASS_LABELS,
    CatalogSnapshot,
    ChassisSpec,
    Cooling,
    CpuSpec,
    DriveKind,
    DriveSpec,
    FormFactor,
    GpuClass,
    GpuSpec,
    MemorySpec,
    NicSpec,
)

# --- Catalog index: built once per snapshot ------------------------------------------------------

_T = TypeVar("_T")
_INF = math.inf
# Lower bounds built from whole-job figures are shaded by a billionth: the rules compare
# per-server floats, whose rounding must never make a bound exceed a real price.
_BOUND_SLACK = Fraction(999_999_999, 1_000_000_000)


def _pareto(items: Sequence[_T], metrics: Callable[[_T], tuple[float, ...]]) -> list[_T]:
    """Items, given cheapest first, that no kept cheaper-or-equal item beats or ties on every
    metric (smaller is better). Whatever a dropped item does, a kept one does as well for less."""
    kept: list[_T] = []
    kept_metrics: list[tuple[float, ...]] = []
    for item in items:
        values = metrics(item)
        if any(all(map(operator.le, k, values)) for k in kept_metrics):
            continue
        kept.append(item)
        kept_metrics.append(values)
    return kept


def _front_by_power(sets: Sequence[_PartSet]) -> tuple[_PartSet, ...]:
    """``_pareto`` on power alone, in one pass."""
    kept = []
    lowest: float = _INF
    for item in sets:
        if item.power_mw < lowest:
            kept.append(item)
            lowest = item.power_mw
    return tuple(kept)


def _front_by_power_lanes(sets: Sequence[_PartSet]) -> tuple[_PartSet, ...]:
    """``_pareto`` on (power, lanes), tracking the lowest power per lane count (few values)."""
    kept = []
    lowest: dict[int, int] = {}
    for item in sets:
        if any(lanes <= item.lanes and power <= item.power_mw for lanes, power in lowest.items()):
            continue
        kept.append(item)
        lowest[item.lanes] = min(lowest.get(item.lanes, item.power_mw), item.power_mw)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class _ChassisItem:
    spec: ChassisSpec
    cost: int
    base_mw: int
    load_budget_mw: tuple[int, int]  # largest load within the supplies: (experiment, production)


@dataclass(frozen=True, slots=True)
class _CpuItem:
    spec: CpuSpec
    cost: int
    power_mw: int


@dataclass(frozen=True, slots=True)
class _PartItem:
    """A DIMM, drive or NIC with its price in units and its draw in mW."""

    spec: Any
    cost: int
    power_mw: int


class _Index:
    """The offered parts of one snapshot, sorted and pruned for the search. Immutable once built."""

    def __init__(self, catalog: CatalogSnapshot) -> None:
        self.currency = catalog.currency
        every = (
            *catalog.gpus,
            *catalog.cpus,
            *catalog.memory,
            *catalog.drives,
            *catalog.nics,
            *catalog.chassis,
        )
        places = 0
        for part in every:
            amount = self._offered_amount(part.price)
            if amount is not None:
                exponent = amount.as_tuple().exponent
                if isinstance(exponent, int):
                    places = max(places, -exponent)
        self.places = places
        self.scale = 10**places

        # SKUs identical in every figure (vendor part numbers of one card) are one GPU model,
        # offered at its cheapest SKU's price: ``gpus_for`` is asked once per model.
        models: dict[GpuSpec, tuple[GpuSpec, int]] = {}
        for gpu in catalog.gpus:
            cost = self.units(gpu.price)
            if cost is None:
                continue
            twin = replace(gpu, sku="", name="", vendor="", price=None, managed_monthly_price=None)
            kept = models.get(twin)
            if kept is None or (cost, gpu.sku) < (kept[1], kept[0].sku):
                models[twin] = (gpu, cost)
        self.gpus = tuple(sorted(models.values(), key=lambda m: (m[1], m[0].sku)))
        self._build_chassis(catalog.chassis)
        self._build_cpus(catalog.cpus)
        self._build_memory(catalog.memory)
        self._build_drives(catalog.drives)
        self._build_nics(catalog.nics)

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
        groups: dict[tuple[object, ...], list[_ChassisItem]] = {}
        for spec in chassis:
            cost = self.units(spec.price)
            if cost is None or spec.gpu_slots < 1:
                continue
            item = _ChassisItem(
                spec=spec,
                cost=cost,
                base_mw=spec.base_power_w * 1000,
                load_budget_mw=(
                    _power_budget_mw(_power_capacity_w(spec, production=False)),
                    _power_budget_mw(_power_capacity_w(spec, production=True)),
                ),
            )
            # Chassis only compete with chassis that take the same CPUs and DIMMs (and, for
            # baseboards, the same GPU count); among those, one that costs no less and offers
            # nothing more in any figure the rules read is never needed.
            baseboard = spec.gpu_form_factors & rules.BASEBOARD_FORM_FACTORS
            group = (
                spec.gpu_form_factors,
                spec.cpu_sockets,
                spec.cpu_socket_type,
                spec.ddr_generation,
                spec.gpu_slots if baseboard else 0,
                spec.rack_mount,  # a tower never stands in for a rack server in production
            )
            groups.setdefault(group, []).append(item)
        kept: list[_ChassisItem] = []
        for items in groups.values():
            items.sort(key=lambda i: (i.cost, i.spec.sku))
            kept += _pareto(items, _chassis_metrics)
        by_form: dict[FormFactor, list[_ChassisItem]] = {}
        for item in kept:
            for form in item.spec.gpu_form_factors:
                by_form.setdefault(form, []).append(item)
        self.chassis_by_form = {
            form: tuple(sorted(items, key=lambda i: (i.cost, i.spec.sku)))
            for form, items in by_form.items()
        }
        self.max_slots_by_form = {
            form: max(i.spec.gpu_slots for i in items) for form, items in by_form.items()
        }
        self.max_bays = max((i.spec.nvme_bays for i in kept), default=0)

    def _build_cpus(self, cpus: Sequence[CpuSpec]) -> None:
        cheapest: dict[tuple[object, ...], _CpuItem] = {}
        for spec in cpus:
            cost = self.units(spec.price)
            if cost is None or not spec.server_grade:
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
                cheapest[twin] = _CpuItem(spec, cost, spec.tdp_w * 1000)
        by_socket: dict[str, list[_CpuItem]] = {}
        for item in cheapest.values():
            by_socket.setdefault(item.spec.socket, []).append(item)
        self.cpus_by_socket = {
            socket: tuple(sorted(items, key=lambda i: (i.cost, i.spec.sku)))
            for socket, items in by_socket.items()
        }
        # The lowest price per core of any server CPU: N cores cost at least N times that.
        self.core_unit_price = min(
            (Fraction(i.cost, i.spec.cores) for i in cheapest.values() if i.spec.cores > 0),
            default=Fraction(0),
        )

    def _build_memory(self, memory: Sequence[MemorySpec]) -> None:
        offered = sorted(
            (
                _PartItem(spec, cost, _mw(spec.power_w))
                for spec in memory
                if (cost := self.units(spec.price)) is not None and spec.capacity_gb > 0
            ),
            key=lambda i: (i.cost, i.power_mw, i.spec.sku),
        )
        # Per DDR generation, and ECC-only for production: per capacity, the DIMMs no cheaper
        # one of the same capacity matches on power.
        self.dimms: dict[tuple[int, bool], tuple[_PartItem, ...]] = {}
        for ecc_only in (False, True):
            lowest: dict[tuple[int, int], int] = {}
            chosen: dict[int, list[_PartItem]] = {}
            for item in offered:
                spec = item.spec
                if ecc_only and not spec.ecc:
                    continue
                key = (spec.ddr_generation, spec.capacity_gb)
                if key in lowest and lowest[key] <= item.power_mw:
                    continue
                lowest[key] = item.power_mw
                chosen.setdefault(spec.ddr_generation, []).append(item)
            for ddr, items in chosen.items():
                self.dimms[(ddr, ecc_only)] = tuple(items)
        # The lowest price per GB of RAM (per DDR generation, and over all), ECC-only or not:
        # any set of DIMMs reaching X GB costs at least X times that.
        self.ram_unit_price: dict[tuple[int | None, bool], Fraction] = {}
        for (ddr, ecc_only), items in self.dimms.items():
            unit = min(Fraction(i.cost, i.spec.capacity_gb) for i in items)
            self.ram_unit_price[(ddr, ecc_only)] = unit
            overall = self.ram_unit_price.get((None, ecc_only))
            self.ram_unit_price[(None, ecc_only)] = unit if overall is None else min(overall, unit)

    def _build_drives(self, drives: Sequence[DriveSpec]) -> None:
        offered = [
            _PartItem(spec, cost, _mw(spec.power_w))
            for spec in drives
            if (cost := self.units(spec.price)) is not None
        ]

        def order(item: _PartItem) -> tuple[object, ...]:
            spec = item.spec
            return (item.cost, item.power_mw, -_drive_gb(spec), -spec.read_mbs, spec.sku)

        def metrics(item: _PartItem) -> tuple[float, ...]:
            return (item.power_mw, -_drive_gb(item.spec), -item.spec.read_mbs)

        # Prune within each capacity first (small groups), then across capacities.
        by_capacity: dict[float, list[_PartItem]] = {}
        for item in offered:
            if item.spec.kind is DriveKind.NVME:
                by_capacity.setdefault(_drive_gb(item.spec), []).append(item)
        nvme = [
            kept
            for items in by_capacity.values()
            for kept in _pareto(sorted(items, key=order), metrics)
        ]
        self.nvme = tuple(_pareto(sorted(nvme, key=order), metrics))
        boot = sorted(
            (
                i
                for i in offered
                if i.spec.kind in _SSD_KINDS and _drive_gb(i.spec) >= rules.BOOT_DRIVE_MIN_GB
            ),
            key=lambda i: (i.cost, i.spec.sku),
        )
        self.boot = boot[0] if boot else None

    def _build_nics(self, nics: Sequence[NicSpec]) -> None:
        fabric = sorted(
            (
                _PartItem(spec, cost, _mw(spec.power_w))
                for spec in nics
                if (cost := self.units(spec.price)) is not None
                and _is_fabric(spec)
                and spec.ports > 0
            ),
            key=lambda i: (
                i.cost,
                i.power_mw,
                _nic_lanes(i.spec),
                -i.spec.speed_gbps,
                -i.spec.ports,
                i.spec.sku,
            ),
        )
        self.fabric_nics = tuple(
            _pareto(
                fabric,
                lambda i: (i.power_mw, _nic_lanes(i.spec), -i.spec.speed_gbps, -i.spec.ports),
            )
        )


def _chassis_metrics(item: _ChassisItem) -> tuple[float, ...]:
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


_INDEX_CACHE: dict[int, tuple[CatalogSnapshot, _Index]] = {}
_INDEX_CACHE_SIZE = 4
_INDEX_LOCK = threading.Lock()


def _index_get(catalog: CatalogSnapshot) -> _Index:
    """The index of a snapshot, cached by identity: hashing a 5,000-part snapshot on every request
    would cost more than the search. The entry keeps the snapshot alive, so its id stays unique."""
    with _INDEX_LOCK:
        hit = _INDEX_CACHE.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    index = _Index(catalog)
    with _INDEX_LOCK:
        while len(_INDEX_CACHE) >= _INDEX_CACHE_SIZE:
            _INDEX_CACHE.pop(next(iter(_INDEX_CACHE)))
        _INDEX_CACHE[id(catalog)] = (catalog, index)
    return index


# --- The search ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Model:
    """One GPU model the job can run on, with its fit and cheapest price."""

    gpu: GpuSpec
    cost: int
    fit: GpuFit
    floor_rest: int  # all servers' GPUs, CPUs, RAM, drives at least cost this much together
    lower_bound: int  # floor_rest plus the cheapest chassis: no configuration costs less


@dataclass(frozen=True, slots=True)
class _CpuSet:
    item: _CpuItem
    count: int
    cost: int
    power_mw: int
    lanes: int
    channels: int  # count x memory channels
    max_gb: int  # count x max memory


@dataclass(frozen=True, slots=True)
class _PartSet:
    """``count`` identical DIMMs, drives or NICs, per server."""

    item: _PartItem | None
    count: int
    cost: int
    power_mw: int
    lanes: int


_NO_PARTS = _PartSet(None, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class _Plan:
    total: int  # price units, all servers
    servers: int
    per_server: int
    chassis: _ChassisItem
    model: _Model
    cpus: _CpuSet
    memory: _PartSet
    drives: _PartSet
    nics: _PartSet
    boot: _PartItem | None

    @property
    def tflops(self) -> float:
        return self.servers * self.per_server * self.model.gpu.bf16_tflops

    @property
    def bandwidth(self) -> float:
        return self.servers * self.per_server * self.model.gpu.memory_bandwidth_gbs

    def configuration(self) -> ServerConfiguration:
        return ServerConfiguration(
            servers=self.servers,
            chassis=self.chassis.spec,
            gpu=self.model.gpu,
            gpu_count=self.per_server,
            cpu=self.cpus.item.spec,
            cpu_count=self.cpus.count,
            dimm=_spec(self.memory),
            dimm_count=self.memory.count,
            data_drive=_spec(self.drives),
            data_drive_count=self.drives.count,
            boot_drive=self.boot.spec if self.boot is not None else None,
            boot_drive_count=rules.BOOT_MIRROR_DRIVES if self.boot is not None else 0,
            nic=self.nics.item.spec if self.nics.item is not None else None,
            nic_count=self.nics.count,
        )


def _spec(parts: _PartSet) -> Any:
    if parts.item is None:
        raise BuilderInconsistencyError("a required part set is empty")
    return parts.item.spec


# Diagnostics are ranked by how far the search got. Each GPU model keeps only its furthest
# failure (for the cheapest chassis that got that far); ``unmet`` lists the furthest first.
_RANK_EXCLUDED, _RANK_GPU, _RANK_CHASSIS, _RANK_PARTS, _RANK_COMBINATION = 1, 2, 3, 4, 5
_UNMET_MAX = 6


class _Search:
    """One request's search: memoised candidate lists, per-model best plans, diagnostics."""

    def __init__(self, index: _Index, needs: BuildNeeds) -> None:
        self.index = index
        self.needs = needs
        self.production = needs.environment is Environment.PRODUCTION
        self.boot = index.boot if self.production else None
        self.boot_cost = self.boot.cost * rules.BOOT_MIRROR_DRIVES if self.boot else 0
        self._cpu_memo: dict[tuple[str, int, int], tuple[_CpuSet, ...]] = {}
        self._memory_memo: dict[tuple[int, int, int, float, int, int], tuple[_PartSet, ...]] = {}
        self._drive_memo: dict[tuple[float, float, int], tuple[_PartSet, ...]] = {}
        self._nic_memo: dict[int, tuple[_PartSet, ...]] = {}
        self._ram_floor_memo: dict[tuple[float, int], int | None] = {}
        self._counts_memo: dict[tuple[int, int, bool, bool], tuple[list[int], int]] = {}
        self._best: dict[tuple[int, bool, int], tuple[_Plan | None, float]] = {}
        self.failures: dict[object, tuple[int, int, Message]] = {}
        self.storage_floor = self._storage_floor()
        self.models = self._models()

    # Diagnostics

    def fail(self, rank: int, subject: object, template: str, **params: Any) -> None:
        """Record why ``subject`` (a GPU SKU; None: the whole request) fails, if it got further
        than its failures so far."""
        key = subject if subject is not None else (template, tuple(sorted(params.items())))
        kept = self.failures.get(key)
        if kept is None or rank > kept[0]:
            self.failures[key] = (rank, len(self.failures), Message(template, params))

    def unmet(self) -> tuple[Message, ...]:
        messages: list[Message] = []
        for _, _, message in sorted(self.failures.values(), key=lambda f: (-f[0], f[1])):
            if message not in messages:
                messages.append(message)
        if not messages:
            messages.append(Message(gettext_noop("No configuration passes every rule.")))
        return tuple(messages[:_UNMET_MAX])

    # GPU models

    def _storage_floor(self) -> int:
        """A lower bound on the data drives of any configuration, whatever the number of servers:
        all servers together hold at least the job's capacity and read rate, so at least
        ``job / per-drive figure`` drives of a model (rounded up, less a hair so that float
        rounding in the per-server shares can never make the bound too high)."""

        def at_least(need: float, per_unit: float) -> int:
            if need <= 0:
                return 0
            return math.ceil(need / per_unit * _BOUND_SLACK) if per_unit > 0 else -1

        best = _INF
        for item in self.index.nvme:
            by_capacity = at_least(self.needs.storage_gb, _drive_gb(item.spec))
            by_read = at_least(self.needs.storage_read_mbs, item.spec.read_mbs)
            if by_capacity >= 0 and by_read >= 0:
                best = min(best, max(1, by_capacity, by_read) * item.cost)
        return int(best) if best != _INF else 0

    def _floor_rest(self, gpu: GpuSpec, cost: int, fit: GpuFit) -> int:
        """A lower bound on everything but the chassis, over all servers: the job's GPUs, one
        boot mirror, the storage floor, and RAM and cores at their lowest unit prices (all
        servers together hold at least 2 x the job's VRAM and max(4 per GPU, the job's, 8)
        cores)."""
        ram_gb = rules.SYSTEM_RAM_PER_VRAM * Fraction(gpu.memory_gb) * fit.gpus
        ram_unit = self.index.ram_unit_price.get((None, self.production), Fraction(0))
        cores = max(
            rules.CPU_CORES_PER_GPU * fit.gpus,
            self.needs.cpu_cores_min,
            rules.CPU_CORES_MIN_PER_SERVER,
        )
        return (
            fit.gpus * cost
            + self.boot_cost
            + self.storage_floor
            + math.floor(ram_gb * ram_unit * _BOUND_SLACK)
            + math.floor(cores * self.index.core_unit_price)
        )

    def _models(self) -> list[_Model]:
        needs = self.needs
        floor = _memory_floor_gb(needs)
        models: list[_Model] = []
        for gpu, cost in self.index.gpus:
            if self.production and (gpu.gpu_class is not GpuClass.DATACENTER or not gpu.ecc):
                self.fail(
                    _RANK_EXCLUDED,
                    gpu.sku,
                    gettext_noop(
                        "Production needs a datacenter GPU with ECC; the %(gpu)s is a "
                        "%(gpu_class)s GPU."
                    )
                    if gpu.ecc
                    else gettext_noop(
                        "Production needs a datacenter GPU with ECC; the %(gpu)s is a "
                        "%(gpu_class)s GPU without ECC."
                    ),
                    gpu=gpu.name,
                    gpu_class=GPU_CLASS_LABELS[gpu.gpu_class],
                )
                continue
            if gpu.memory_gb < floor:
                self.fail(
                    _RANK_GPU,
                    gpu.sku,
                    gettext_noop(
                        "The %(gpu)s has %(memory_gb)s GB; this project needs at least "
                        "%(floor_gb)s GB per GPU."
                    ),
                    gpu=gpu.name,
                    memory_gb=_num(gpu.memory_gb),
                    floor_gb=floor,
                )
                continue
            fit = needs.gpus_for(gpu)
            if fit is None:
                self.fail(
                    _RANK_GPU,
                    gpu.sku,
                    gettext_noop(
                        "The job cannot run on the %(gpu)s (%(memory_gb)s GB) at any GPU count: "
                        "it needs GPUs with more memory."
                    ),
                    gpu=gpu.name,
                    memory_gb=_num(gpu.memory_gb),
                )
                continue
            if _usable_gb(gpu) < fit.memory_per_gpu_gb:
                self.fail(
                    _RANK_GPU,
                    gpu.sku,
                    gettext_noop(
                        "On %(gpus)s x %(gpu)s the job needs %(need_gb)s GB per GPU, more than "
                        "the %(usable_gb)s GB usable: a GPU of at least %(min_gb)s GB would fit."
                    ),
                    gpus=fit.gpus,
                    gpu=gpu.name,
                    need_gb=_num(fit.memory_per_gpu_gb),
                    usable_gb=_num(_usable_gb(gpu)),
                    min_gb=math.ceil(fit.memory_per_gpu_gb / rules.GPU_MEMORY_USABLE_FRACTION),
                )
                continue
            chassis = self.index.chassis_by_form.get(gpu.form_factor, ())
            floor_rest = self._floor_rest(gpu, cost, fit)
            models.append(
                _Model(
                    gpu=gpu,
                    cost=cost,
                    fit=fit,
                    floor_rest=floor_rest,
                    lower_bound=floor_rest + (chassis[0].cost if chassis else 0),
                )
            )
        if not self.index.gpus:
            self.fail(
                _RANK_GPU,
                None,
                gettext_noop("The catalog offers no GPU priced in %(currency)s."),
                currency=self.index.currency,
            )
        return sorted(models, key=lambda m: (m.lower_bound, m.gpu.sku))

    # Candidate lists, memoised per request, cheapest first

    def ram_floor(self, ram_gb: float, ddr: int) -> int | None:
        """The least any set of DDR``ddr`` DIMMs of ``ram_gb`` can cost (None: no such DIMM)."""
        key = (ram_gb, ddr)
        if key not in self._ram_floor_memo:
            unit = self.index.ram_unit_price.get((ddr, self.production))
            floor = None if unit is None else math.floor(Fraction(ram_gb) * unit)
            self._ram_floor_memo[key] = floor
        return self._ram_floor_memo[key]

    def cpu_sets(self, socket: str, sockets: int, cores: int) -> tuple[_CpuSet, ...]:
        key = (socket, sockets, cores)
        memo = self._cpu_memo.get(key)
        if memo is None:
            fitting = [
                _CpuSet(
                    item=item,
                    count=sockets,
                    cost=item.cost * sockets,
                    power_mw=item.power_mw * sockets,
                    lanes=item.spec.pcie_lanes * sockets,
                    channels=item.spec.memory_channels * sockets,
                    max_gb=item.spec.max_memory_gb * sockets,
                )
                for item in self.index.cpus_by_socket.get(socket, ())
                if item.spec.cores * sockets >= cores
            ]
            # The channel count shapes the DIMM sets, so a CPU only competes with CPUs of the same
            # channel count: (channels, -channels) ties exactly when the counts are equal.
            memo = tuple(
                _pareto(
                    fitting,
                    lambda c: (c.channels, -c.channels, c.power_mw, -c.lanes, -c.max_gb),
                )
            )
            self._cpu_memo[key] = memo
        return memo

    def memory_sets(
        self, ddr: int, cpus: _CpuSet, slots: int, ram_gb: float, max_dpc: int
    ) -> tuple[_PartSet, ...]:
        """Per DIMM model, the fewest DIMMs filling every channel evenly to ``ram_gb``."""
        key = (ddr, cpus.channels, slots, ram_gb, cpus.max_gb, max_dpc)
        memo = self._memory_memo.get(key)
        if memo is None:
            group = cpus.channels
            sets = []
            for item in self.index.dimms.get((ddr, self.production), ()):
                capacity = item.spec.capacity_gb
                per_channel = _min_units(group * capacity, ram_gb)
                if per_channel is None:
                    continue
                per_channel = max(1, per_channel)
                count = group * per_channel
                if per_channel > max_dpc or count > slots or count * capacity > cpus.max_gb:
                    continue
                sets.append(_PartSet(item, count, count * item.cost, count * item.power_mw, 0))
            sets.sort(key=lambda s: (s.cost, s.power_mw, _spec(s).sku))
            memo = _front_by_power(sets)
            self._memory_memo[key] = memo
        return memo

    @staticmethod
    def _drive_count(spec: DriveSpec, storage_gb: float, read_mbs: float) -> int | None:
        by_capacity = _min_units(_drive_gb(spec), storage_gb)
        by_read = _min_units(spec.read_mbs, read_mbs)
        if by_capacity is None or by_read is None:
            return None
        return max(1, by_capacity, by_read)

    def drive_sets(self, storage_gb: float, read_mbs: float, bays: int) -> tuple[_PartSet, ...]:
        key = (storage_gb, read_mbs, bays)
        memo = self._drive_memo.get(key)
        if memo is None:
            front_key = (storage_gb, read_mbs, -1)
            front = self._drive_memo.get(front_key)
            if front is None:
                sets = []
                for item in self.index.nvme:
                    count = self._drive_count(item.spec, storage_gb, read_mbs)
                    if count is None or count > self.index.max_bays:
                        continue
                    lanes = rules.PCIE_LANES_PER_NVME * count
                    sets.append(
                        _PartSet(item, count, count * item.cost, count * item.power_mw, lanes)
                    )
                sets.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, _spec(s).sku))
                # Lanes grow with the count: a set dropped here has a cheaper, cooler one with
                # no more drives, which fits whatever bays the dropped one fits.
                front = _front_by_power_lanes(sets)
                self._drive_memo[front_key] = front
            memo = tuple(s for s in front if s.count <= bays)
            self._drive_memo[key] = memo
        return memo

    def nic_sets(self, per_server: int) -> tuple[_PartSet, ...]:
        memo = self._nic_memo.get(per_server)
        if memo is None:
            need = self.needs.interconnect_gbps_per_gpu
            sets = []
            for item in self.index.fabric_nics:
                if item.spec.speed_gbps < need:
                    continue
                count = -(-per_server // item.spec.ports)
                lanes = _nic_lanes(item.spec) * count
                sets.append(_PartSet(item, count, count * item.cost, count * item.power_mw, lanes))
            sets.sort(key=lambda s: (s.cost, s.power_mw, s.lanes, _spec(s).sku))
            memo = _front_by_power_lanes(sets)
            self._nic_memo[per_server] = memo
        return memo

    # Per GPU model

    def gpu_counts(self, chassis: ChassisSpec, model: _Model) -> tuple[list[int], int]:
        """GPU counts per server worth trying in this chassis, and the largest count left out
        only because the chassis cannot link GPUs that share the model (0: none)."""
        gpu, needed = model.gpu, model.fit.gpus
        growth = self.needs.growth_gpus
        consumer = gpu.gpu_class is GpuClass.CONSUMER
        sharded = _model_sharded(self.needs, model.fit)
        if gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
            wanted = [chassis.gpu_slots]
            if growth or (consumer and chassis.gpu_slots > rules.CONSUMER_GPUS_MAX_PER_SERVER):
                wanted = []
        else:
            most = min(chassis.gpu_slots - growth, needed)
            if consumer:
                most = min(most, rules.CONSUMER_GPUS_MAX_PER_SERVER)
            # A larger count for the same number of servers only adds GPUs and needs.
            wanted = [
                count for count in range(1, most + 1) if -(-needed // -(-needed // count)) == count
            ]
        counts = [count for count in wanted if _nvlink_ok(gpu, chassis, count, sharded)]
        unlinked = max((count for count in wanted if count not in counts), default=0)
        return counts, unlinked

    def best_plan(
        self, model: _Model, bound: float, comfort: bool = False, per_server: int = 0
    ) -> _Plan | None:
        """The model's cheapest plan if it costs less than ``bound`` (memoised); ``comfort``: with
        the comfort margins; ``per_server``: only with that many GPUs per server (0: any)."""
        key = (id(model), comfort, per_server)
        cached = self._best.get(key)
        if cached is not None:
            plan, searched_below = cached
            if plan is not None:
                return plan if plan.total < bound else None
            if searched_below >= bound:
                return None
        plan = self._solve_model(model, bound, comfort, per_server)
        self._best[key] = (plan, bound)
        return plan

    def _solve_model(
        self, model: _Model, bound: float, comfort: bool, only_count: int
    ) -> _Plan | None:
        if self.production and self.boot is None:
            self.fail(
                _RANK_PARTS,
                None,
                gettext_noop(
                    "Production needs a mirror of %(drives)s SSDs of at least %(min_gb)s GB for "
                    "the system, and the catalog offers none: add one."
                ),
                drives=rules.BOOT_MIRROR_DRIVES,
                min_gb=rules.BOOT_DRIVE_MIN_GB,
            )
            return None
        gpu = model.gpu
        floor_rest = model.floor_rest
        blocked: dict[str, int] = {}
        best: _Plan | None = None
        any_chassis = False
        unlinked = 0
        needed = model.fit.gpus
        # No chassis holds more GPUs than the largest one: the fewest servers any plan needs.
        fewest = -(-needed // max(1, self.index.max_slots_by_form.get(gpu.form_factor, 1)))
        for chassis in self.index.chassis_by_form.get(gpu.form_factor, ()):
            if fewest * chassis.cost + floor_rest >= bound:
                break
            spec = chassis.spec
            if gpu.tdp_w > spec.max_gpu_tdp_w:
                blocked["tdp"] = max(blocked.get("tdp", 0), spec.max_gpu_tdp_w)
                continue
            if gpu.tdp_w > rules.LIQUID_COOLING_ABOVE_GPU_W and spec.cooling is not Cooling.LIQUID:
                blocked["liquid"] = 1
                continue
            if self.production and spec.psu_redundant < rules.PSU_REDUNDANT_MIN:
                blocked["psu"] = 1
                continue
            if self.production and not spec.rack_mount:
                blocked["tower"] = 1
                continue
            shape = (id(model), spec.gpu_slots, spec.nvswitch, spec.nvlink_bridge)
            memo = self._counts_memo.get(shape)
            if memo is None:
                memo = self._counts_memo[shape] = self.gpu_counts(spec, model)
            counts, left_out = memo
            unlinked = max(unlinked, left_out)
            if only_count:
                counts = [count for count in counts if count == only_count]
            if not counts:
                blocked["slots"] = max(blocked.get("slots", 0), spec.gpu_slots)
                continue
            any_chassis = True
            for per_server in counts:
                servers = -(-needed // per_server)
                spare_gpus = servers * per_server - needed
                floor = (
                    servers * (chassis.cost + self.boot_cost)
                    + floor_rest
                    - self.boot_cost
                    + spare_gpus * model.cost
                )
                if floor >= bound:
                    continue
                plan = self._solve_server(chassis, model, per_server, bound, comfort)
                if plan is not None:
                    best, bound = plan, plan.total
        if bound == _INF:
            if not any_chassis:
                self._explain_chassis(model, blocked)
            if unlinked:
                self.fail(
                    _RANK_CHASSIS,
                    (gpu.sku, rules.NVLINK),
                    gettext_noop(
                        "%(count)s x %(gpu)s in one server share the model and need NVLink "
                        "(NVSwitch, or a bridge for %(bridge_max)s cards), which no chassis "
                        "offers for them: add such a chassis."
                    ),
                    count=unlinked,
                    gpu=gpu.name,
                    bridge_max=rules.NVLINK_BRIDGE_MAX_GPUS,
                )
        return best

    def _explain_chassis(self, model: _Model, blocked: dict[str, int]) -> None:
        gpu = model.gpu
        params: dict[str, Any] = {
            "gpu": gpu.name,
            "form": FORM_FACTOR_LABELS[gpu.form_factor],
            "tdp": gpu.tdp_w,
            "growth": self.needs.growth_gpus,
        }
        if not blocked:
            template = gettext_noop(
                "No chassis takes %(form)s GPUs such as the %(gpu)s: add a chassis with %(form)s "
                "slots."
            )
        elif "slots" in blocked:
            if gpu.form_factor in rules.BASEBOARD_FORM_FACTORS and self.needs.growth_gpus:
                template = gettext_noop(
                    "%(form)s baseboards are always fully populated, so no slot stays free for "
                    "growth next to the %(gpu)s: ask for no growth or choose PCIe GPUs."
                )
            else:
                template = gettext_noop(
                    "No %(form)s chassis fits the %(gpu)s with %(growth)s growth slots, the "
                    "consumer-card limit and NVLink for a shared model: add a chassis with more "
                    "%(form)s slots or NVSwitch."
                )
        elif "psu" in blocked:
            template = gettext_noop(
                "No chassis for the %(gpu)s has a spare power supply, which production needs: "
                "add an N+1 %(form)s chassis."
            )
        elif "tower" in blocked:
            template = gettext_noop(
                "The %(gpu)s fits only a workstation tower here, and production needs a "
                "rack-mount server: add a rack %(form)s chassis for it."
            )
        elif "liquid" in blocked:
            template = gettext_noop(
                "The %(gpu)s draws %(tdp)s W and needs liquid cooling: add a liquid-cooled "
                "%(form)s chassis."
            )
        else:
            params["best"] = blocked["tdp"]
            template = gettext_noop(
                "No %(form)s chassis can cool the %(gpu)s's %(tdp)s W per GPU (the best takes "
                "%(best)s W): add a chassis rated for it."
            )
        self.fail(_RANK_CHASSIS, gpu.sku, template, **params)

    def _solve_server(
        self, chassis: _ChassisItem, model: _Model, per_server: int, bound: float, comfort: bool
    ) -> _Plan | None:
        """The cheapest plan of ``per_server`` GPUs of the model in this chassis under ``bound``."""
        spec, gpu = chassis.spec, model.gpu
        servers = -(-model.fit.gpus // per_server)
        server = _server_needs(self.needs, gpu, per_server, servers)
        read_mbs = server.read_mbs * (2 if comfort else 1)
        cpus = self.cpu_sets(spec.cpu_socket_type, spec.cpu_sockets, server.cores)
        drives = self.drive_sets(server.storage_gb, read_mbs, spec.nvme_bays)
        nics = self.nic_sets(per_server) if servers > 1 else (_NO_PARTS,)
        diagnose = bound == _INF
        if not cpus or not drives or not nics:
            if diagnose:
                self._explain_parts(chassis, model, per_server, servers, server, cpus, drives, nics)
            return None
        fixed = chassis.cost + per_server * model.cost + self.boot_cost
        ram_floor = self.ram_floor(server.ram_gb, spec.ddr_generation)
        if ram_floor is None:
            if diagnose:
                self._explain_memory(chassis, model, server)
            return None
        if servers * (fixed + cpus[0].cost + ram_floor + drives[0].cost + nics[0].cost) >= bound:
            return None
        power_left = (
            chassis.load_budget_mw[self.production]
            - chassis.base_mw
            - gpu.tdp_w * 1000 * (per_server + self.needs.growth_gpus)
        )
        if power_left < 0:  # the GPUs and the base alone exceed the supplies
            if diagnose:
                self._explain_combination(chassis, model, per_server, servers, "power")
            return None
        switched = spec.pcie_switches
        drive_cost = drives[0].cost
        nic_cost = nics[0].cost
        drive_power = min(d.power_mw for d in drives)
        nic_power = min(n.power_mw for n in nics)
        drive_lanes = min(d.lanes for d in drives)
        nic_lanes = min(n.lanes for n in nics)
        max_dpc = rules.DIMMS_PER_CHANNEL_PREFERRED if comfort else spec.dimm_slots
        found: tuple[int, _CpuSet, _PartSet, _PartSet, _PartSet] | None = None
        no_memory = True
        short_of = ""
        for cpu in cpus:
            cost_cpu = fixed + cpu.cost
            if servers * (cost_cpu + drive_cost + nic_cost) >= bound:
                break
            if cpu.power_mw + drive_power + nic_power > power_left:
                short_of = short_of or "power"
                continue
            lanes_left = _INF if switched else cpu.lanes - server.gpu_lanes
            if drive_lanes + nic_lanes > lanes_left:
                short_of = short_of or "lanes"
                continue
            memory = self.memory_sets(
                spec.ddr_generation, cpu, spec.dimm_slots, server.ram_gb, max_dpc
            )
            if memory:
                no_memory = False
            for dimms in memory:
                cost_memory = cost_cpu + dimms.cost
                if servers * (cost_memory + drive_cost + nic_cost) >= bound:
                    break
                power_memory = cpu.power_mw + dimms.power_mw
                if power_memory + drive_power + nic_power > power_left:
                    short_of = short_of or "power"
                    continue
                for disks in drives:
                    cost_drives = cost_memory + disks.cost
                    if servers * (cost_drives + nic_cost) >= bound:
                        break
                    power_drives = power_memory + disks.power_mw
                    if power_drives + nic_power > power_left:
                        short_of = short_of or "power"
                        continue
                    if disks.lanes + nic_lanes > lanes_left:
                        short_of = short_of or "lanes"
                        continue
                    for cards in nics:
                        total = servers * (cost_drives + cards.cost)
                        if total >= bound:
                            break
                        if power_drives + cards.power_mw > power_left:
                            short_of = short_of or "power"
                            continue
                        if disks.lanes + cards.lanes > lanes_left:
                            short_of = short_of or "lanes"
                            continue
                        found, bound = (total, cpu, dimms, disks, cards), total
                        break
        if found is None:
            if diagnose:
                if no_memory and not short_of:
                    self._explain_memory(chassis, model, server)
                else:
                    self._explain_combination(chassis, model, per_server, servers, short_of)
            return None
        total, cpu, dimms, disks, cards = found
        return _Plan(
            total=total,
            servers=servers,
            per_server=per_server,
            chassis=chassis,
            model=model,
            cpus=cpu,
            memory=dimms,
            drives=disks,
            nics=cards,
            boot=self.boot,
        )

    def _explain_parts(
        self,
        chassis: _ChassisItem,
        model: _Model,
        per_server: int,
        servers: int,
        server: _ServerNeeds,
        cpus: Sequence[_CpuSet],
        drives: Sequence[_PartSet],
        nics: Sequence[_PartSet],
    ) -> None:
        spec = chassis.spec
        if not cpus and not self.index.cpus_by_socket.get(spec.cpu_socket_type):
            self.fail(
                _RANK_CHASSIS,
                model.gpu.sku,
                gettext_noop(
                    "The %(chassis)s takes %(socket)s CPUs and the catalog offers no server-grade "
                    "one: add one, or a chassis for another socket."
                ),
                chassis=spec.name,
                socket=spec.cpu_socket_type,
            )
        elif not cpus:
            self.fail(
                _RANK_PARTS,
                model.gpu.sku,
                gettext_noop(
                    "No server-grade %(socket)s CPU gives the %(chassis)s %(cores)s cores over "
                    "%(sockets)s sockets: add one with at least %(per_cpu)s cores."
                ),
                socket=spec.cpu_socket_type,
                chassis=spec.name,
                cores=server.cores,
                sockets=spec.cpu_sockets,
                per_cpu=-(-server.cores // max(1, spec.cpu_sockets)),
            )
        if not drives:
            self.fail(
                _RANK_PARTS,
                model.gpu.sku,
                gettext_noop(
                    "No set of NVMe drives gives %(storage_gb)s GB and %(read_mbs)s MB/s within "
                    "the %(bays)s NVMe bays of the %(chassis)s: add larger or faster NVMe drives."
                ),
                storage_gb=_num(server.storage_gb),
                read_mbs=_num(server.read_mbs),
                bays=spec.nvme_bays,
                chassis=spec.name,
            )
        if not nics:
            self.fail(
                _RANK_PARTS,
                model.gpu.sku,
                gettext_noop(
                    "%(servers)s servers of %(count)s x %(gpu)s need an InfiniBand or RoCE port "
                    "of %(gbps)s Gb/s per GPU, and the catalog offers no such NIC: add one."
                ),
                servers=servers,
                count=per_server,
                gpu=model.gpu.name,
                gbps=self.needs.interconnect_gbps_per_gpu,
            )

    def _explain_memory(self, chassis: _ChassisItem, model: _Model, server: _ServerNeeds) -> None:
        spec = chassis.spec
        if self.production:
            template = gettext_noop(
                "No set of identical ECC DDR%(ddr)s DIMMs reaches %(ram_gb)s GB in the %(slots)s "
                "slots of the %(chassis)s with every channel filled evenly: add larger ECC DIMMs."
            )
        else:
            template = gettext_noop(
                "No set of identical DDR%(ddr)s DIMMs reaches %(ram_gb)s GB in the %(slots)s "
                "slots of the %(chassis)s with every channel filled evenly: add larger DIMMs."
            )
        self.fail(
            _RANK_PARTS,
            model.gpu.sku,
            template,
            ddr=spec.ddr_generation,
            ram_gb=_num(server.ram_gb),
            slots=spec.dimm_slots,
            chassis=spec.name,
        )

    def _explain_combination(
        self, chassis: _ChassisItem, model: _Model, per_server: int, servers: int, short_of: str
    ) -> None:
        spec = chassis.spec
        params = {
            "servers": servers,
            "count": per_server,
            "gpu": model.gpu.name,
            "chassis": spec.name,
            "margin": rules.POWER_MARGIN,
            "capacity": _power_capacity_w(spec, self.production),
        }
        if short_of == "lanes":
            template = gettext_noop(
                "%(servers)s x %(chassis)s with %(count)s x %(gpu)s: no CPU offers the PCIe "
                "lanes for the GPUs, NICs and NVMe drives; CPUs with more lanes or a chassis with "
                "PCIe switches would fit."
            )
        else:
            template = gettext_noop(
                "%(servers)s x %(chassis)s with %(count)s x %(gpu)s: the parts draw more, with "
                "the x%(margin)s margin, than the %(capacity)s W its usable supplies give; a "
                "chassis with more power would fit."
            )
        self.fail(_RANK_COMBINATION, model.gpu.sku, template, **params)

    # Tiers

    def cheapest(self) -> _Plan | None:
        best: _Plan | None = None
        bound: float = _INF
        for model in self.models:
            if model.lower_bound >= bound:
                break
            plan = self.best_plan(model, bound)
            if plan is not None:
                best, bound = plan, plan.total
        return best

    def _most_gpus(self, model: _Model) -> int:
        """The most GPUs any plan of the model can hold: ``servers x per_server`` stays below
        the job's count plus one server's worth, and for PCIe below twice the job's count."""
        needed = model.fit.gpus
        most = self.index.max_slots_by_form.get(model.gpu.form_factor, 0)
        if model.gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
            return needed + max(0, most - 1)
        return min(2 * needed - 1, needed + max(0, most - 1))

    def fastest(self, bound: float) -> _Plan | None:
        def ceiling(model: _Model) -> float:
            return model.gpu.bf16_tflops * self._most_gpus(model)

        best: _Plan | None = None
        best_key: tuple[float, float, int] | None = None
        for model in sorted(self.models, key=lambda m: (-ceiling(m), m.lower_bound)):
            if best_key is not None and ceiling(model) < best_key[0]:
                break
            plan = self.best_plan(model, bound)
            if plan is None:
                continue
            key = (plan.tflops, plan.bandwidth, -plan.total)
            if best_key is None or key > best_key:
                best, best_key = plan, key
        return best

    def best_value(self, bound: float) -> _Plan | None:
        def value(plan: _Plan) -> float:
            return plan.tflops / plan.total if plan.total else _INF

        def ceiling(model: _Model) -> float:
            # A plan of X GPUs costs at least X x the GPU price plus the floor of everything
            # else, and TFLOPS per price grows with X: the most GPUs give the ceiling.
            gpus = self._most_gpus(model)
            rest = model.lower_bound - model.fit.gpus * model.cost
            price = gpus * model.cost + rest
            return model.gpu.bf16_tflops * gpus / price if price > 0 else _INF

        best: _Plan | None = None
        best_key: tuple[float, float, int] | None = None
        for model in sorted(self.models, key=lambda m: (-ceiling(m), m.lower_bound)):
            if best_key is not None and ceiling(model) < best_key[0]:
                break
            plan = self.best_plan(model, bound)
            if plan is None:
                continue
            key = (value(plan), plan.tflops, -plan.total)
            if best_key is None or key > best_key:
                best, best_key = plan, key
        return best

    def with_comfort(self, plan: _Plan, bound: float) -> _Plan:
        """The same GPUs in the same number of servers, cheapest with one DIMM per channel and
        twice the read throughput, when that exists under ``bound``; else the plan itself."""
        comfortable = self.best_plan(plan.model, bound, comfort=True, per_server=plan.per_server)
        return comfortable if comfortable is not None else plan
