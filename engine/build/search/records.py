"""The search's records, a leaf module: catalog items as the index keeps them, a GPU model the
job fits, candidate part sets, the cluster priced in units, a plan; and the Pareto fronts that
prune candidates."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from .. import rules
from ..cluster.fabric import FabricDesign
from ..cluster.shared_storage import StorageDesign
from ..configuration import BuilderInconsistencyError, GpuFit, ServerConfiguration
from ..parts import ChassisSpec, CpuSpec, GpuSpec

_T = TypeVar("_T")
INF = math.inf
# Lower bounds built from whole-job figures are shaded by a billionth: the rules compare
# per-server floats, whose rounding must never make a bound exceed a real price.
BOUND_SLACK = Fraction(999_999_999, 1_000_000_000)


def pareto(items: Sequence[_T], metrics: Callable[[_T], tuple[float, ...]]) -> list[_T]:
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


def front_by_power(sets: Sequence[PartSet]) -> tuple[PartSet, ...]:
    """``pareto`` on power alone, in one pass."""
    kept = []
    lowest: float = INF
    for item in sets:
        if item.power_mw < lowest:
            kept.append(item)
            lowest = item.power_mw
    return tuple(kept)


def front_by_power_lanes(sets: Sequence[PartSet]) -> tuple[PartSet, ...]:
    """``pareto`` on (power, lanes), tracking the lowest power per lane count (few values)."""
    kept = []
    lowest: dict[int, int] = {}
    for item in sets:
        if any(lanes <= item.lanes and power <= item.power_mw for lanes, power in lowest.items()):
            continue
        kept.append(item)
        lowest[item.lanes] = min(lowest.get(item.lanes, item.power_mw), item.power_mw)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class ChassisItem:
    spec: ChassisSpec
    cost: int
    base_mw: int
    load_budget_mw: tuple[int, int]  # largest load within the supplies: (experiment, production)


@dataclass(frozen=True, slots=True)
class CpuItem:
    spec: CpuSpec
    cost: int
    power_mw: int


@dataclass(frozen=True, slots=True)
class PartItem:
    """A DIMM, drive or NIC with its price in units and its draw in mW."""

    spec: Any
    cost: int
    power_mw: int


@dataclass(frozen=True, slots=True)
class FittingGpu:
    """One GPU model the job can run on, with its fit and cheapest price."""

    gpu: GpuSpec
    cost: int
    fit: GpuFit
    floor_rest: int  # all servers' GPUs, CPUs, RAM, drives at least cost this much together
    lower_bound: int  # floor_rest plus the cheapest chassis: no configuration costs less


@dataclass(frozen=True, slots=True)
class CpuSet:
    item: CpuItem
    count: int
    cost: int
    power_mw: int
    lanes: int
    channels: int  # count x memory channels
    max_gb: int  # count x max memory


@dataclass(frozen=True, slots=True)
class PartSet:
    """``count`` identical DIMMs, drives or NICs, per server."""

    item: PartItem | None
    count: int
    cost: int
    power_mw: int
    lanes: int


NO_PARTS = PartSet(None, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class PricedCluster:
    """What the servers share: their compute fabric, shared storage and the storage network
    between them, priced in units."""

    cost: int
    fabric: FabricDesign | None
    storage: StorageDesign | None
    storage_network: FabricDesign | None = None

    @property
    def designs(self) -> tuple[FabricDesign | StorageDesign, ...]:
        """The designs present, in the order their lines are listed."""
        found = (self.fabric, self.storage, self.storage_network)
        return tuple(design for design in found if design is not None)


NO_CLUSTER = PricedCluster(0, None, None)


@dataclass(frozen=True, slots=True)
class PricedNics:
    """A NIC set with the cluster it needs, priced together for all servers."""

    extra: int  # servers x the NICs' cost + the cluster's cost
    parts: PartSet
    cluster: PricedCluster


@dataclass(frozen=True, slots=True)
class Plan:
    total: int  # price units, all servers
    servers: int
    per_server: int
    chassis: ChassisItem
    model: FittingGpu
    cpus: CpuSet
    memory: PartSet
    drives: PartSet
    nics: PartSet
    boot: PartItem | None
    cluster: PricedCluster = NO_CLUSTER

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
            dimm=part_spec(self.memory),
            dimm_count=self.memory.count,
            data_drive=part_spec(self.drives),
            data_drive_count=self.drives.count,
            boot_drive=self.boot.spec if self.boot is not None else None,
            boot_drive_count=rules.BOOT_MIRROR_DRIVES if self.boot is not None else 0,
            nic=self.nics.item.spec if self.nics.item is not None else None,
            nic_count=self.nics.count,
        )


def part_spec(parts: PartSet) -> Any:
    if parts.item is None:
        raise BuilderInconsistencyError("a required part set is empty")
    return parts.item.spec


# Diagnostics are ranked by how far the search got. Each GPU model keeps only its furthest
# failure (for the cheapest chassis that got that far); ``unmet`` lists the furthest first.
RANK_EXCLUDED, RANK_GPU, RANK_CHASSIS, RANK_PARTS, RANK_COMBINATION = 1, 2, 3, 4, 5
UNMET_MAX = 6
