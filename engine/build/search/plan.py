"""The search's records: a GPU model, candidate part sets and a priced plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import rules
from ..cluster.fabric import FabricDesign
from ..cluster.shared_storage import StorageDesign
from ..configuration import BuilderInconsistencyError, GpuFit, ServerConfiguration
from ..parts import GpuSpec
from .index import _ChassisItem, _CpuItem, _PartItem

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
class _Cluster:
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


_NO_CLUSTER = _Cluster(0, None, None)


@dataclass(frozen=True, slots=True)
class _PricedNics:
    """A NIC set with the cluster it needs, priced together for all servers."""

    extra: int  # servers x the NICs' cost + the cluster's cost
    parts: _PartSet
    cluster: _Cluster


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
    cluster: _Cluster = _NO_CLUSTER

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
