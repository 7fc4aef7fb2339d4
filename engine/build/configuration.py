"""What the builder reads and returns: needs, configurations, options, and shared figures.

See ``builder.py`` for how options are chosen.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..i18n import Message
from ..money import Money
from . import rules
from .parts import (
    Availability,
    ChassisSpec,
    CpuSpec,
    DriveKind,
    DriveSpec,
    GpuClass,
    GpuSpec,
    MemorySpec,
    NicSpec,
)

# --- Public types ------------------------------------------------------------------------------


class Environment(StrEnum):
    PRODUCTION = "production"
    EXPERIMENT = "experiment"


class Tier(StrEnum):
    BUDGET = "budget"
    BALANCED = "balanced"
    PERFORMANCE = "performance"


@dataclass(frozen=True, slots=True)
class GpuFit:
    """What the job needs when run on one GPU model."""

    gpus: int  # total GPUs the job needs on this model
    memory_per_gpu_gb: float  # per-GPU need at that count, before the usable-memory headroom
    # Whether, on this model, GPUs hold parts of one model copy (None: BuildNeeds decides).
    model_sharded: bool | None = None
    # Serving: GPUs holding one model copy (``gpus`` is a whole number of copies); a copy stays
    # in one server whenever one server can hold it (``replica_layout``). Training: 1.
    replica_gpus: int = 1

    def __post_init__(self) -> None:
        if self.gpus < 1 or self.memory_per_gpu_gb < 0 or self.replica_gpus < 1:
            raise ValueError("GpuFit needs gpus >= 1, replica_gpus >= 1, memory_per_gpu_gb >= 0")


@dataclass(frozen=True, slots=True)
class GpuPreference:
    """The customer's own choice: only this GPU model (``sku``, "" for any) and at least
    ``count`` GPUs in all (0: what the job needs). A count below the job's need is not taken:
    the job would not fit."""

    sku: str = ""
    count: int = 0

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError("GpuPreference.count cannot be negative")

    def applied_to(self, fit: GpuFit) -> GpuFit:
        """``fit`` with the asked count, rounded up to whole model copies (a copy split over
        GPUs only runs whole). The per-GPU need stays the one at the job's own count: more GPUs
        never need more memory each, so the memory rules stay on the safe side."""
        if self.count <= fit.gpus:
            return fit
        copies = -(-self.count // fit.replica_gpus)
        return dataclasses.replace(fit, gpus=copies * fit.replica_gpus)


@dataclass(frozen=True, slots=True)
class BuildNeeds:
    gpus_for: Callable[[GpuSpec], GpuFit | None]  # None: the model cannot run the job at all
    environment: Environment
    model_sharded: bool  # GPUs hold parts of one model: NVLink when > 1 GPU per server
    large_project: bool  # 24 GB+ per GPU instead of 16
    storage_gb: float  # dataset + checkpoints, whole job
    storage_read_mbs: float  # whole job
    cpu_cores_min: int  # whole job
    interconnect_gbps_per_gpu: int  # between servers, when there are several
    budget: Money | None = None
    currency: str = "EUR"
    growth_gpus: int = 0  # GPU slots kept free per server
    # The job's number format (a workload ``Precision`` value): GPUs that cannot run it are not
    # used (rules.runs_precision). "": none asked (a hand-built server without a workload).
    precision: str = ""
    # Serving (inference): copies of the model answer requests independently, so servers that
    # each hold whole copies need no GPU fabric between them, and a copy split inside a server
    # may talk over PCIe. False: training, whose servers exchange gradients every step.
    serving: bool = False
    # Servers kept beyond what the job needs, so that it survives one failing (N+1).
    spare_servers: int = 0
    # Hours to bring a failed server back: the chosen service tier's replacement time (the
    # availability check's figure), else the rule's default.
    repair_hours: int = rules.SERVER_REPAIR_HOURS
    # Training over several servers: what each server keeps on its own drives (a copy of the
    # data every data-parallel server reads in full, and the base model), while the whole job's
    # ``storage_gb`` (checkpoints included) lives on a shared storage tier. None: the servers
    # share ``storage_gb`` (hand-built configurations without a workload).
    local_storage_gb: float | None = None
    # Why ``gpus_for`` gave a GPU no fit when memory is not the reason (a deadline that needs
    # more GPUs than GPUQuote builds): the diagnostic the answer shows. None: memory.
    unfit_reason: Callable[[GpuSpec], Message | None] | None = None
    # Serving: the job as more, smaller model copies, for a GPU model no server of which can
    # hold one copy of ``gpus_for``'s size: one fit per smaller tensor-parallel degree, largest
    # copy first (a copy spanning servers is the last resort, ``search.solver``). None: none.
    smaller_copies: Callable[[GpuSpec], tuple[GpuFit, ...]] | None = None

    # What the job gets from ``n`` working GPUs of a model in servers of ``per_server`` (spare
    # servers not counted), higher is better: per-user tokens/s when serving a language model,
    # images/s, 1 / training hours.
    # The upper tiers are chosen by it (``builder``); None, or None for the cheapest build: by
    # dense BF16 TFLOPS.
    delivered: Callable[[GpuSpec, int, int], float | None] | None = None

    def __post_init__(self) -> None:
        if (
            min(self.storage_gb, self.storage_read_mbs, self.local_storage_gb or 0) < 0
            or min(
                self.cpu_cores_min,
                self.interconnect_gbps_per_gpu,
                self.growth_gpus,
                self.spare_servers,
            )
            < 0
        ):
            raise ValueError("BuildNeeds figures cannot be negative")
        if self.repair_hours < 1:
            raise ValueError("a failed server takes at least 1 hour to repair")


class PartScope:
    SERVER = "server"  # the quantity is per server
    CLUSTER = "cluster"  # the quantity is for the whole cluster (switches, cables, storage)


@dataclass(frozen=True, slots=True)
class PartLine:
    # "chassis" | "gpu" | "cpu" | "memory" | "drive" | "nic"; cluster parts: "switch" | "cable"
    # | "storage_server"
    kind: str
    sku: str
    name: str
    quantity: int  # per server, or for the whole cluster (``scope``)
    unit_price: Money
    role: str = (
        ""  # drives: "boot" or "data"; cluster parts: an engine.build.cluster.fabric LineRole
    )
    # Whether it can be bought new; the builder uses other parts only when no current one does.
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None
    scope: str = PartScope.SERVER

    def total_quantity(self, servers: int) -> int:
        """How many to buy for ``servers`` servers."""
        return self.quantity if self.scope == PartScope.CLUSTER else self.quantity * servers


@dataclass(frozen=True, slots=True)
class Check:
    rule: str  # a code of rules.RULES
    passed: bool
    detail: Message  # one sentence with the figures
    warning: bool = False  # passed, with a caveat the customer should read


@dataclass(frozen=True, slots=True)
class Totals:
    gpus: int  # all servers
    vram_gb: float  # all servers
    ram_gb: int  # all servers
    storage_gb: float  # NVMe data capacity, all servers
    power_w: int  # one server, full-load draw as built
    power_sized_w: int  # one server: (draw + growth GPUs) x margin, what the supplies must give
    price: Money  # all servers
    currency: str
    rack_units: int  # all servers, and the cluster's switches and storage servers
    managed_monthly_price: Money | None  # all servers; None when a part has no managed price
    cluster_power_w: int = 0  # switches, optics and storage servers together


@dataclass(frozen=True, slots=True)
class BuiltOption:
    tier: Tier
    servers: int
    parts: tuple[PartLine, ...]
    totals: Totals
    checks: tuple[Check, ...]
    # How the cluster's fabric and shared storage were designed (one sentence each, figures).
    notes: tuple[Message, ...] = ()
    # Servers kept only to take over from a failing one (N+1): not counted as capacity.
    spare_servers: int = 0
    # What the job gets from the working GPUs (``BuildNeeds.delivered``), the figure the tiers
    # were ranked by; None: ranked by TFLOPS (no delivered figure for this job).
    delivered: float | None = None

    @property
    def working_gpus(self) -> int:
        """The GPUs doing the job: the spare servers' aside."""
        return self.gpu_line.quantity * max(1, self.servers - self.spare_servers)

    @property
    def gpu_line(self) -> PartLine:
        """The option's GPU line: every built option has exactly one GPU model."""
        for line in self.parts:
            if line.kind == "gpu":
                return line
        raise BuilderInconsistencyError("a built option without a GPU line")


@dataclass(frozen=True, slots=True)
class BuildResult:
    options: tuple[BuiltOption, ...]
    unmet: tuple[Message, ...]
    # Why a tier is not shown (it would repeat a cheaper one, or nothing does the job better
    # within its price band without idle GPUs): one sentence per missing tier.
    notes: tuple[Message, ...] = ()
    # The budget was below every sound configuration: the price of the cheapest one.
    budget_needed: Money | None = None


@dataclass(frozen=True, slots=True)
class ServerConfiguration:
    """``servers`` identical servers; every count is per server."""

    servers: int
    chassis: ChassisSpec
    gpu: GpuSpec
    gpu_count: int
    cpu: CpuSpec
    cpu_count: int
    dimm: MemorySpec
    dimm_count: int
    data_drive: DriveSpec
    data_drive_count: int
    boot_drive: DriveSpec | None = None
    boot_drive_count: int = 0
    nic: NicSpec | None = None
    nic_count: int = 0

    def __post_init__(self) -> None:
        counts = (
            self.gpu_count,
            self.cpu_count,
            self.dimm_count,
            self.data_drive_count,
            self.boot_drive_count,
            self.nic_count,
        )
        if self.servers < 1 or min(counts) < 0:
            raise ValueError("a configuration has at least one server and no negative count")


class BuilderInconsistencyError(RuntimeError):
    """The builder produced an option its own checks reject: a bug, never a user error."""


# --- Figures shared by the checks and the search -------------------------------------------------

POWER_MARGIN_NUM, POWER_MARGIN_DEN = rules.POWER_MARGIN.as_integer_ratio()
SSD_KINDS = frozenset({DriveKind.NVME, DriveKind.SATA_SSD})


def mw(watts: float) -> int:
    """Power in integer milliwatts, so that sums and comparisons are exact."""
    return round(watts * 1000)


def drive_gb(drive: DriveSpec) -> float:
    return round(drive.capacity_tb * 1000, 6)


def nic_pcie_lanes(nic: NicSpec) -> int:
    fast = nic.speed_gbps * nic.ports >= rules.FAST_NIC_GBPS
    floor = rules.PCIE_LANES_PER_FAST_NIC if fast else rules.PCIE_LANES_PER_NIC
    return max(nic.pcie_lanes, floor)


def is_fabric(nic: NicSpec) -> bool:
    return nic.infiniband or nic.roce


def usable_memory_gb(gpu: GpuSpec) -> float:
    return gpu.memory_gb * rules.GPU_MEMORY_USABLE_FRACTION


def memory_floor_gb(needs: BuildNeeds) -> int:
    return rules.GPU_MEMORY_FLOOR_LARGE_GB if needs.large_project else rules.GPU_MEMORY_FLOOR_GB


def power_capacity_w(chassis: ChassisSpec, production: bool) -> int:
    supplies = chassis.psu_count - (chassis.psu_redundant if production else 0)
    return max(0, min(supplies * chassis.psu_w, chassis.max_system_power_w))


def power_budget_mw(capacity_w: int) -> int:
    """The largest load (mW) whose sized figure, load x margin, stays within ``capacity_w``."""
    return capacity_w * 1000 * POWER_MARGIN_DEN // POWER_MARGIN_NUM


def sized_w(load_mw: int) -> int:
    return -(-load_mw * POWER_MARGIN_NUM // (POWER_MARGIN_DEN * 1000))


def min_units(per_unit: float, need: float) -> int | None:
    """Smallest n >= 0 with ``n * per_unit >= need`` (the checks' own comparison); None: never."""
    if need <= 0:
        return 0
    if per_unit <= 0:
        return None
    n = max(1, math.ceil(need / per_unit))
    while n * per_unit < need:
        n += 1
    while n > 1 and (n - 1) * per_unit >= need:
        n -= 1
    return n


@dataclass(frozen=True, slots=True)
class ServerNeeds:
    cores: int
    job_cores: int
    ram_gb: float
    storage_gb: float
    read_mbs: float
    gpu_lanes: int  # installed GPUs plus growth slots


def server_needs(needs: BuildNeeds, gpu: GpuSpec, per_server: int, servers: int) -> ServerNeeds:
    # A spare server must carry a failed one's share: the shares are of the working servers.
    working = max(1, servers - needs.spare_servers)
    job_cores = -(-needs.cpu_cores_min // working)
    return ServerNeeds(
        cores=max(rules.CPU_CORES_MIN_PER_SERVER, rules.CPU_CORES_PER_GPU * per_server, job_cores),
        job_cores=job_cores,
        ram_gb=rules.SYSTEM_RAM_PER_VRAM * gpu.memory_gb * per_server,
        storage_gb=local_storage_gb(needs, servers),
        read_mbs=needs.storage_read_mbs / working,
        gpu_lanes=rules.PCIE_LANES_PER_GPU * (per_server + needs.growth_gpus),
    )


def server_capacity(gpu: GpuSpec, chassis: ChassisSpec, growth_gpus: int) -> int:
    """The most GPUs of the model a server of the chassis holds now: its slots, less the growth
    slots kept free (baseboards are always full), at most two consumer cards."""
    if gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
        capacity = chassis.gpu_slots
    else:
        capacity = chassis.gpu_slots - growth_gpus
    if gpu.gpu_class is GpuClass.CONSUMER:
        capacity = min(capacity, rules.CONSUMER_GPUS_MAX_PER_SERVER)
    return capacity


def whole_copies(per_server: int, replica: int) -> bool:
    """Whether ``per_server`` GPUs per server hold whole model copies of ``replica`` GPUs, so
    that no copy spans servers."""
    return per_server % replica == 0


def replica_layout_ok(per_server: int, replica: int, capacity: int) -> bool:
    """Whether ``per_server`` GPUs per server hold model copies of ``replica`` GPUs soundly: whole
    copies in every server when one server can hold a copy (``capacity`` GPUs), else an equal
    share of one copy per server (a pipeline stage of ``per_server`` tensor-parallel GPUs)."""
    if replica <= capacity:
        return whole_copies(per_server, replica)
    return replica % per_server == 0 and per_server & (per_server - 1) == 0


def servers_for(needed: int, per_server: int, needs: BuildNeeds) -> int:
    """Servers for ``needed`` GPUs at ``per_server`` each, plus the spares the job keeps."""
    return -(-needed // per_server) + needs.spare_servers


def sparse_training(needs: BuildNeeds, per_server: int, servers: int) -> bool:
    """Whether training spans servers that are not dense training servers: fewer GPUs each than
    ``rules.MULTI_NODE_TRAINING_MIN_GPUS_PER_SERVER``, or a count that is not a power of two."""
    working = max(1, servers - needs.spare_servers)
    return (
        not needs.serving
        and working > 1
        and (
            per_server < rules.MULTI_NODE_TRAINING_MIN_GPUS_PER_SERVER
            or per_server & (per_server - 1) != 0
        )
    )


def needs_fabric(needs: BuildNeeds, fit: GpuFit | None, per_server: int, servers: int) -> bool:
    """Whether the servers need an InfiniBand/RoCE fabric between their GPUs: training on
    several servers, or serving with a model copy spread over several servers."""
    if servers <= 1:
        return False
    if not needs.serving:
        return True
    return fit is not None and fit.replica_gpus > per_server


def local_storage_gb(needs: BuildNeeds, servers: int) -> float:
    """Data each server keeps on its own drives: everything on one server, and when serving
    (each server loads its own copies of the model); training over several servers keeps a
    local copy of the data (``local_storage_gb``) next to the shared storage tier."""
    working = max(1, servers - needs.spare_servers)
    if working == 1 or needs.serving:
        return needs.storage_gb
    if needs.local_storage_gb is not None:
        return needs.local_storage_gb
    return needs.storage_gb / working


def shared_storage_needed(needs: BuildNeeds, servers: int) -> bool:
    """Whether the job needs a shared storage tier: training over several servers with a local
    copy plan (checkpoints and data must be reachable from every server)."""
    working = max(1, servers - needs.spare_servers)
    return working > 1 and not needs.serving and needs.local_storage_gb is not None


def usable_data_gb(drive: DriveSpec, count: int, production: bool) -> float:
    """Data capacity of ``count`` drives: production mirrors them in pairs (RAID 1/10)."""
    raw = count * drive_gb(drive)
    return raw / rules.DATA_MIRROR_COPIES if production else raw


def num(value: float) -> int | float:
    """A figure for a message: whole numbers without decimals, others to two places."""
    return int(value) if float(value).is_integer() else round(value, 2)


def message(template: str, **params: Any) -> Message:
    return Message(template, params)
