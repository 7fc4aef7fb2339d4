"""The catalog as the engine sees it: frozen snapshots of parts with their current prices.

Selectors in ``catalog/selectors/snapshot.py`` fill these from the database; tests and
benchmarks build them directly. Memory is in GB (10^9 bytes), power in W, bandwidth in GB/s or
MB/s as named.

Every part says whether it can be bought new (``availability``) and how long it takes to come
(``lead_time_weeks``, None: unknown). SXM and OAM GPUs come on a baseboard of one generation
(``GpuSpec.baseboard``, e.g. ``HGX-H100``) and fit only a chassis built for that baseboard
(``ChassisSpec.baseboards``); PCIe cards have no baseboard.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .i18n import Message, gettext_noop
from .money import Money


class FormFactor(StrEnum):
    SXM = "sxm"
    PCIE = "pcie"
    OAM = "oam"


class GpuClass(StrEnum):
    DATACENTER = "datacenter"
    WORKSTATION = "workstation"
    CONSUMER = "consumer"


# Words shown to people, translated at the edge (form factors read the same in every language).
GPU_CLASS_LABELS = {
    GpuClass.DATACENTER: Message(gettext_noop("datacenter")),
    GpuClass.WORKSTATION: Message(gettext_noop("workstation")),
    GpuClass.CONSUMER: Message(gettext_noop("consumer")),
}
FORM_FACTOR_LABELS = {FormFactor.SXM: "SXM", FormFactor.PCIE: "PCIe", FormFactor.OAM: "OAM"}


class Availability(StrEnum):
    CURRENT = "current"  # sold new by the vendor's channel
    END_OF_LIFE = "end_of_life"  # discontinued: remaining or channel stock only
    REFURBISHED = "refurbished"  # used, reconditioned


AVAILABILITY_LABELS = {
    Availability.CURRENT: Message(gettext_noop("current")),
    Availability.END_OF_LIFE: Message(gettext_noop("end of life")),
    Availability.REFURBISHED: Message(gettext_noop("refurbished")),
}

# Vendors whose GPUs link through AMD Infinity Fabric rather than NVLink: the words shown for
# the GPU-to-GPU fabric of their baseboards and cards.
INFINITY_FABRIC_VENDORS = frozenset({"AMD"})


class DriveKind(StrEnum):
    NVME = "nvme"
    SATA_SSD = "sata_ssd"
    HDD = "hdd"


DRIVE_KIND_LABELS = {
    DriveKind.NVME: Message(gettext_noop("NVMe")),
    DriveKind.SATA_SSD: Message(gettext_noop("SATA SSD")),
    DriveKind.HDD: Message(gettext_noop("hard disk")),
}


class Cooling(StrEnum):
    AIR = "air"
    LIQUID = "liquid"


COOLING_LABELS = {
    Cooling.AIR: Message(gettext_noop("air")),
    Cooling.LIQUID: Message(gettext_noop("liquid")),
}


@dataclass(frozen=True, slots=True)
class GpuSpec:
    sku: str
    name: str
    vendor: str
    memory_gb: float
    memory_bandwidth_gbs: float
    bf16_tflops: float  # dense tensor BF16/FP16, no sparsity
    fp8_tflops: float | None
    tdp_w: int
    form_factor: FormFactor
    nvlink_gbs: float | None  # None: no NVLink/Infinity Fabric link between cards
    ecc: bool
    gpu_class: GpuClass
    pcie_gen: int
    price: Money | None  # current purchase price; None: not for sale
    managed_monthly_price: Money | None = None  # managed-hosting fee per GPU, on top of chassis
    architecture: str = ""  # the vendor's name, e.g. "Hopper", "CDNA 3" (rules.py reads it)
    baseboard: str = ""  # SXM/OAM: the baseboard generation, e.g. "HGX-H100"; PCIe: ""
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class CpuSpec:
    sku: str
    name: str
    vendor: str
    socket: str  # e.g. "SP5", "LGA4677": must match the chassis
    cores: int
    threads: int
    tdp_w: int
    memory_channels: int
    max_memory_gb: int
    pcie_gen: int
    pcie_lanes: int
    server_grade: bool
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class MemorySpec:
    sku: str
    name: str
    capacity_gb: int
    ddr_generation: int
    speed_mts: int
    ecc: bool
    registered: bool
    power_w: float
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class DriveSpec:
    sku: str
    name: str
    kind: DriveKind
    capacity_tb: float
    read_mbs: int
    write_mbs: int
    endurance_dwpd: float | None
    power_w: float
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class NicSpec:
    sku: str
    name: str
    speed_gbps: int  # per port
    ports: int
    infiniband: bool
    roce: bool
    pcie_lanes: int
    power_w: float
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class ChassisSpec:
    sku: str
    name: str
    vendor: str
    rack_units: int
    gpu_slots: int
    gpu_form_factors: frozenset[FormFactor]
    max_gpu_tdp_w: int
    # All GPUs on one switched, all-to-all fabric on the baseboard: NVSwitch on NVIDIA HGX boards,
    # the Infinity Fabric mesh on AMD OAM boards (the words shown follow the GPU's vendor).
    nvswitch: bool
    nvlink_bridge: bool  # NVLink bridges between PCIe card pairs
    pcie_switches: bool  # GPUs sit behind PCIe switches: CPU lanes are not the limit
    cpu_sockets: int
    cpu_socket_type: str
    dimm_slots: int  # whole chassis
    ddr_generation: int
    nvme_bays: int
    pcie_gen: int
    psu_count: int
    psu_w: int
    psu_redundant: int  # how many PSUs are spares (N+M: M)
    cooling: Cooling
    max_system_power_w: int
    base_power_w: int  # fans, board, BMC, boot drives at full load
    price: Money | None  # barebone, no GPU/CPU/DIMM/drive/NIC
    managed_monthly_price: Money | None  # managed-hosting fee per configured server
    rack_mount: bool = True  # False: a workstation tower (experiments only)
    baseboards: frozenset[str] = frozenset()  # the SXM/OAM baseboard generations it is built for
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None


def baseboard_fits(gpu: GpuSpec, chassis: ChassisSpec) -> bool:
    """Whether the chassis takes the GPU's baseboard: always for PCIe cards; an SXM/OAM GPU only
    in a chassis built for its baseboard generation (both unstated: no claim either way)."""
    if gpu.form_factor is FormFactor.PCIE:
        return True
    if not gpu.baseboard:
        return not chassis.baseboards
    return gpu.baseboard in chassis.baseboards


def fabric_names(gpu: GpuSpec) -> tuple[str, str]:
    """The words for a GPU's links: (GPU-to-GPU link, switched all-to-all baseboard fabric)."""
    if gpu.vendor in INFINITY_FABRIC_VENDORS:
        return "Infinity Fabric", "Infinity Fabric mesh"
    return "NVLink", "NVSwitch"


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    currency: str
    gpus: tuple[GpuSpec, ...] = ()
    cpus: tuple[CpuSpec, ...] = ()
    memory: tuple[MemorySpec, ...] = ()
    drives: tuple[DriveSpec, ...] = ()
    nics: tuple[NicSpec, ...] = ()
    chassis: tuple[ChassisSpec, ...] = ()
