"""The catalog as the engine sees it: frozen snapshots of parts with their current prices.

Selectors in ``catalog/selectors/snapshot.py`` fill these from the database; tests and
benchmarks build them directly. Memory is in GB (10^9 bytes), power in W, bandwidth in GB/s or
MB/s as named.
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


@dataclass(frozen=True, slots=True)
class ChassisSpec:
    sku: str
    name: str
    vendor: str
    rack_units: int
    gpu_slots: int
    gpu_form_factors: frozenset[FormFactor]
    max_gpu_tdp_w: int
    nvswitch: bool  # all GPUs on an NVLink switch fabric (HGX/OAM baseboard)
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


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    currency: str
    gpus: tuple[GpuSpec, ...] = ()
    cpus: tuple[CpuSpec, ...] = ()
    memory: tuple[MemorySpec, ...] = ()
    drives: tuple[DriveSpec, ...] = ()
    nics: tuple[NicSpec, ...] = ()
    chassis: tuple[ChassisSpec, ...] = ()
