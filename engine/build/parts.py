"""The catalog as the engine sees it: frozen snapshots of parts with their current prices.

Selectors in ``catalog/selectors/snapshot.py`` fill these from the database; tests and
benchmarks build them directly. Memory is in GB (10^9 bytes), power in W, bandwidth in GB/s or
MB/s as named.

Every part says whether it can be bought new (``availability``) and how long it takes to come
(``lead_time_weeks``, None: unknown). SXM and OAM GPUs come on a baseboard of one generation
(``GpuSpec.baseboard``, e.g. ``HGX-H100``) and fit only a chassis built for that baseboard
(``ChassisSpec.baseboards``); PCIe cards have no baseboard.

A cluster of several servers also needs what sits between them: switches (``SwitchSpec``), the
cables and optics of each link (``CableSpec``) and, for shared data, storage servers
(``StorageServerSpec``); ``engine/build/cluster/fabric.py`` designs and prices them. A drive's form
factor says
where it goes: U.2/U.3/E1.S/E3.S drives take a front NVMe bay, an M.2 stick sits on the board and
boots the server (``hot_swap_bay``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from ..commerce.exchange import DatedRate
from ..i18n import Message, gettext_noop
from ..money import Money


class PartKind(StrEnum):
    """What a catalog part is (the catalog's ``Part.kind``, a quote line's ``PartLine.kind``)."""

    GPU = "gpu"
    CPU = "cpu"
    MEMORY = "memory"
    DRIVE = "drive"
    NIC = "nic"
    CHASSIS = "chassis"
    SWITCH = "switch"  # cluster parts: switches, cables and optics, shared storage
    CABLE = "cable"
    STORAGE_SERVER = "storage_server"


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


class DriveFormFactor(StrEnum):
    M2 = "m2"  # M.2 stick on the board: a boot device
    U2 = "u2"  # 2.5-inch NVMe (SFF-8639)
    U3 = "u3"  # 2.5-inch NVMe/SAS/SATA tri-mode (SFF-TA-1001)
    E1S = "e1s"  # EDSFF E1.S (SFF-TA-1006)
    E3S = "e3s"  # EDSFF E3.S (SFF-TA-1008)
    SATA = "sata"  # 2.5-inch SATA/SAS bay
    LFF = "lff"  # 3.5-inch bay (hard disks)


# Standard names read the same in every language; they are Messages so that every label renders
# the same way.
DRIVE_FORM_FACTOR_LABELS = {
    DriveFormFactor.M2: Message(gettext_noop("M.2")),
    DriveFormFactor.U2: Message(gettext_noop("U.2")),
    DriveFormFactor.U3: Message(gettext_noop("U.3")),
    DriveFormFactor.E1S: Message(gettext_noop("E1.S")),
    DriveFormFactor.E3S: Message(gettext_noop("E3.S")),
    DriveFormFactor.SATA: Message(gettext_noop("2.5-inch SATA")),
    DriveFormFactor.LFF: Message(gettext_noop("3.5-inch")),
}

# The form factors that go in a server's front hot-swap NVMe bays (``ChassisSpec.nvme_bays``).
NVME_BAY_FORM_FACTORS = frozenset(
    {DriveFormFactor.U2, DriveFormFactor.U3, DriveFormFactor.E1S, DriveFormFactor.E3S}
)


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
    form_factor: DriveFormFactor = DriveFormFactor.U2


def hot_swap_bay(drive: DriveSpec) -> bool:
    """Whether the drive takes one of the chassis' front hot-swap NVMe bays (U.2, U.3, E1.S,
    E3.S). An M.2 stick sits on the board and serves as a boot device only; 2.5-inch SATA and
    3.5-inch drives go in SATA/SAS bays, which ``ChassisSpec.nvme_bays`` does not count."""
    return drive.form_factor in NVME_BAY_FORM_FACTORS


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
    # Registered DIMMs (RDIMM, servers and Xeon W/Threadripper workstations), or unbuffered ones
    # (UDIMM, desktop-class AM5/LGA1851 boards): a board takes one kind only (JEDEC DDR5).
    registered_memory: bool = True
    # M.2 NVMe slots on the board: the boot mirror sits there; a tower may keep data there too.
    m2_slots: int = 2
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


# --- Cluster parts: switches, cables and optics, storage servers --------------------------------


@dataclass(frozen=True, slots=True)
class SwitchSpec:
    sku: str
    name: str
    vendor: str
    ports: int  # at port_speed_gbps
    port_speed_gbps: int
    infiniband: bool
    ethernet: bool  # an Ethernet switch for RoCE (lossless: PFC/ECN)
    management: bool  # a 1/10 GbE management (BMC/out-of-band) switch
    rack_units: int
    power_w: float  # typical, with passive cables: optics add their own power
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None
    # How many slower ports one port splits into (a 400G NDR port into 2 x 200G NDR200; an 800GbE
    # port into 2 x 400GbE or 4 x 200GbE); 1: no split.
    breakout: int = 1

    def ports_at(self, speed_gbps: int) -> int:
        """Ports at ``speed_gbps``: a faster port splits into up to ``breakout`` of them; 0 when
        the switch is slower."""
        if speed_gbps <= 0 or speed_gbps > self.port_speed_gbps:
            return 0
        return self.ports * min(self.breakout, self.port_speed_gbps // speed_gbps)


class CableKind(StrEnum):
    DAC = "dac"  # passive copper (direct attach), a few metres
    AOC = "aoc"  # active optical cable, optics built in
    FIBER = "fiber"  # passive optical patch cord: a transceiver at each end
    TRANSCEIVER = "transceiver"  # an optical module for one cage
    COPPER = "copper"  # twisted pair (Cat6) for 1/10GBASE-T management ports


CABLE_KIND_LABELS = {
    CableKind.DAC: Message(gettext_noop("copper cable (DAC)")),
    CableKind.AOC: Message(gettext_noop("active optical cable")),
    CableKind.FIBER: Message(gettext_noop("optical fiber cord")),
    CableKind.TRANSCEIVER: Message(gettext_noop("optical transceiver")),
    CableKind.COPPER: Message(gettext_noop("Cat6 patch cord")),
}


class CableEnds(StrEnum):
    """What a cable or module connects, or the cage a transceiver goes in."""

    ANY = "any"  # a cord between any two ports of its kind (fiber, Cat6)
    SWITCH_TO_ADAPTER = "switch_to_adapter"  # switch cage to server adapter ports (splitters)
    SWITCH_TO_SWITCH = "switch_to_switch"  # between two switch cages
    SWITCH = "switch"  # a transceiver for a switch cage (e.g. finned twin-port OSFP)
    ADAPTER = "adapter"  # a transceiver for a server adapter cage (e.g. flat-top OSFP)


@dataclass(frozen=True, slots=True)
class CableSpec:
    sku: str
    name: str
    kind: CableKind
    speed_gbps: int  # per link
    infiniband: bool
    ethernet: bool
    length_m: float  # 0 for a transceiver (its reach is the fiber's)
    power_w: float  # per unit
    price: Money | None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None
    ends: CableEnds = CableEnds.ANY
    # Links one unit carries: a twin-port 2 x 400G OSFP transceiver or a 1:2 splitter cable
    # carries 2; a 1:4 splitter 4.
    links: int = 1


@dataclass(frozen=True, slots=True)
class StorageServerSpec:
    """A shared-storage server as bought: chassis, drives, network and software configured, its
    capacity stated after its own protection (RAID 6, erasure coding: see the name/source)."""

    sku: str
    name: str
    vendor: str
    usable_tb: float  # TB = 10^12 bytes, after RAID/erasure coding
    read_mbs: int  # what it delivers to clients over the network
    network_gbps: int  # all its data ports together
    port_speed_gbps: int  # each data port: network_gbps / port_speed_gbps ports
    rack_units: int
    power_w: float
    price: Money | None
    managed_monthly_price: Money | None = None
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None

    @property
    def ports(self) -> int:
        """Its data ports (at least one)."""
        return max(1, self.network_gbps // max(1, self.port_speed_gbps))


@dataclass(frozen=True, slots=True)
class PriceAge:
    """The date of a part's current price, whether it is stale and, when it was converted into
    the currency asked for, the currency it was observed in."""

    observed_on: dt.date
    stale: bool
    observed_in: str | None = None


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    currency: str
    gpus: tuple[GpuSpec, ...] = ()
    cpus: tuple[CpuSpec, ...] = ()
    memory: tuple[MemorySpec, ...] = ()
    drives: tuple[DriveSpec, ...] = ()
    nics: tuple[NicSpec, ...] = ()
    chassis: tuple[ChassisSpec, ...] = ()
    switches: tuple[SwitchSpec, ...] = ()
    cables: tuple[CableSpec, ...] = ()
    storage_servers: tuple[StorageServerSpec, ...] = ()
    # The reference rates the prices observed in another currency were converted at (by
    # currency code; empty when every price was observed in ``currency``).
    exchange_rates: tuple[DatedRate, ...] = ()
