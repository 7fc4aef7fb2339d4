"""The configurator's rules, as data: one named place for each rule, its numbers and its source.

The builder (``builder.py``) enforces these rules and reports one ``Check`` per rule code; the UI,
the PDF and the API explain a check by looking its code up here, so every surface uses the same
words. Thresholds are named constants next to the rule that uses them; a rule's ``reason`` quotes
them through its parameters, so changing a number changes every explanation with it.

Two customer reference articles (French, kept in the project's shared seeds) state most rules:

- ``CHOOSING_ARTICLE``: how to choose a dedicated GPU server for AI (VRAM first, 16 GB minimum and
  24 GB+ per GPU for larger projects, server-grade CPU with 8+ cores, RAM at least twice the total
  VRAM, NVMe storage, power and cooling for 300 W+ cards, production versus experiment).
- ``ARCHITECTURE_ARTICLE``: GPU server architecture (H100 up to 700 W, NVLink/NVSwitch
  for model parallelism, InfiniBand or RoCE between nodes, ECC on datacenter GPUs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..assumptions.gpu_models import ARCHITECTURES, architecture_family
from ..i18n import Message, gettext_noop
from .parts import ChassisSpec, FormFactor

CHOOSING_ARTICLE = (
    "Customer reference article on choosing a dedicated GPU server for AI (French, "
    "shared seed 002_8ec41dfc12b48650)"
)
ARCHITECTURE_ARTICLE = (
    "Customer reference article on GPU server architecture, networking and software (French, "
    "shared seed 000_16ec6239261f61f6)"
)
CUSTOMER_BRIEF = "GPUQuote configurator brief (house rule agreed with the customer)"

# --- GPU ---------------------------------------------------------------------------------------

# Share of a GPU's memory a job can plan on: the CUDA context, the allocator's fragmentation and
# the framework's workspace take the rest. vLLM reserves the same share by default.
GPU_MEMORY_USABLE_FRACTION = 0.90
GPU_MEMORY_FLOOR_GB = 16  # any serious AI work
GPU_MEMORY_FLOOR_LARGE_GB = 24  # per GPU, for larger projects
# HGX/OAM baseboards ship with every GPU position populated: the GPU count on them is fixed.
BASEBOARD_FORM_FACTORS = frozenset({FormFactor.SXM, FormFactor.OAM})
# NVLink bridges join PCIe cards in pairs; more than two GPUs sharing a model need a switch fabric.
NVLINK_BRIDGE_MAX_GPUS = 2
# Training spread over servers runs on dense servers: every server holds at least this many GPUs
# (4- or 8-GPU HGX/PCIe servers, as in NVIDIA's DGX/HGX reference architectures), so the
# gradients cross the fabric once per server rather than once per GPU; and a power of two of them
# (4, 8), the rail count of those designs, which tensor- and data-parallel groups split evenly
# (3 servers of 6 GPUs for a 16-GPU job buy 2 GPUs the job never uses).
MULTI_NODE_TRAINING_MIN_GPUS_PER_SERVER = 4
CONSUMER_GPUS_MAX_PER_SERVER = 2
# Above this per-GPU draw the heat cannot be moved by air in a standard rack: liquid cooling.
LIQUID_COOLING_ABOVE_GPU_W = 1000

# Number formats a GPU architecture runs in hardware beyond FP32 and FP16 (which run on every GPU
# the catalog offers): each architecture's record says (``engine.assumptions.gpu_models``). A name
# matches its family's entry ("Blackwell Ultra" is Blackwell); an unknown architecture runs FP32
# and FP16 only.
PRECISION_ARCHITECTURES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        precision: tuple(a.name for a in ARCHITECTURES.values() if precision in a.precisions)
        for precision in ("fp8", "bf16", "int8", "int4")
    }
)
PRECISION_LABELS: Mapping[str, str] = MappingProxyType(
    {"fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "int4": "INT4"}
)


def runs_precision(architecture: str, precision: str) -> bool:
    """Whether a GPU of ``architecture`` runs the number format ``precision`` (a workload's
    ``Precision`` value; "": none asked)."""
    needed = PRECISION_ARCHITECTURES.get(str(precision))
    return needed is None or architecture_family(architecture) in needed


# --- CPU and PCIe ------------------------------------------------------------------------------


def m2_data_allowed(chassis: ChassisSpec, *, production: bool) -> bool:
    """Whether data may sit on M.2 drives on the board rather than in hot-swap front bays: only
    in a workstation tower for experiments, where no drive is swapped while the job runs and a
    desktop board has no front NVMe bays; servers and production keep data in the bays."""
    return not production and not chassis.rack_mount


def workstation_cpu_allowed(chassis: ChassisSpec, *, production: bool) -> bool:
    """Whether a CPU that is not server-grade may sit in the chassis' sockets: only in a
    workstation tower (experiments only), which takes the workstation CPU its platform is built
    for (e.g. Xeon W on W790); every other chassis needs server-grade CPUs."""
    return not production and not chassis.rack_mount


CPU_CORES_MIN_PER_SERVER = 8
CPU_CORES_PER_GPU = 4
PCIE_LANES_PER_GPU = 16
PCIE_LANES_PER_FAST_NIC = 16  # a NIC whose ports add up to FAST_NIC_GBPS or more
PCIE_LANES_PER_NIC = 8  # slower NICs; a catalog figure above these floors wins
FAST_NIC_GBPS = 400
PCIE_LANES_PER_NVME = 4

# --- Memory ------------------------------------------------------------------------------------

SYSTEM_RAM_PER_VRAM = 2  # system RAM >= 2 x the server's total GPU memory
DIMMS_PER_CHANNEL_PREFERRED = 1  # two per channel work but lower the memory clock

# --- Storage -----------------------------------------------------------------------------------

BOOT_MIRROR_DRIVES = 2
# Production keeps two copies of its data drives (RAID 1, or RAID 10 over more drives): a failed
# drive is swapped without losing data or stopping; reads use every drive.
DATA_MIRROR_COPIES = 2
BOOT_DRIVE_MIN_GB = 240  # the smallest common datacenter boot SSD; OS, images and logs fit

# --- Power -------------------------------------------------------------------------------------

# Sized power = full-load draw x margin: supplies and PDUs carry a continuous load at no more than
# 80 % of their rating (the 125 % continuous-load rule of electrical codes).
# Tier price bands (house rule): without a customer budget, "balanced" may cost up to 1.5x and
# "performance" up to 3x the cheapest valid configuration, so a small job is never answered with
# a rack of servers because they carry more TFLOPS per euro or in total.
# Upper tiers do the same job faster or with more headroom: they may leave idle at most this
# share of the GPUs the job uses (1: up to twice the job's GPUs), so an 8-GPU baseboard is never
# offered for a one-GPU job. The budget tier may still be one, when it is the cheapest build.
UPPER_TIER_IDLE_GPUS_MAX_SHARE = Decimal(1)
BALANCED_MAX_PRICE_FACTOR = Decimal("1.5")
PERFORMANCE_MAX_PRICE_FACTOR = Decimal(3)
# An upper tier ranked by what the job gets (per-user tokens/s, images/s, training speed) must
# deliver at least this much more than the budget build: GPUQuote's assumption, a gain under 5%
# is within the error of the speed model and reads as the same speed at a higher price.
UPPER_TIER_MIN_GAIN = Decimal("1.05")
POWER_MARGIN = Decimal("1.25")
PSU_REDUNDANT_MIN = 1  # production: N+1 at least

# --- Site: rack power density, feeds and cooling (the site_power check, checks/site_rules.py) ---

SITE_POWER = "site_power"
# Air-cooled racks as most datacenters run them: 5-10 kW. Uptime Institute Global Data Center
# Survey 2021 (more than a third of operators' most common rack density below 5 kW, nearly half
# 5-10 kW, "typically well under 10 kW"), summarised in Intelligent Data Centres issue 32, page 20
# (URL in the rule's source below, seen 2026-12-03); Schneider Electric White Paper 156 "Choosing
# the Optimal Data Center Power Density" (optimal average 5-8 kW per rack),
# https://www.scribd.com/document/351259957/choosing-the-optimal-data-center-power-density-pdf
# (seen 2026-12-03). High-density air racks with aisle containment or passive rear-door heat
# exchangers reach about 20 kW: Uptime Institute Global Data Center Survey 2023, keynote report
# 106, July 2023 ("most operators do not have any racks beyond 20 kW"),
# https://intelligence.uptimeinstitute.com/resource/uptime-institute-global-data-center-survey-2023
# (seen 2026-12-03). Beyond that, or for liquid-cooled chassis (GPUs above
# LIQUID_COOLING_ABOVE_GPU_W), a datacenter with liquid cooling to the rack.
AIR_RACK_TYPICAL_LOW_W = 5_000
AIR_RACK_TYPICAL_W = 10_000
AIR_RACK_HIGH_DENSITY_W = 20_000
RACK_UNITS_PER_RACK = 42  # a full-height 19-inch rack (EIA-310 units of 44.45 mm)
# Feeds, nominal: IEC 60309 industrial plugs are rated 16 A and 32 A, single-phase at 230 V and
# three-phase at 400 V (230 V x 16 A = 3,680 W; 230 V x 32 A = 7,360 W; sqrt(3) x 400 V x 32 A =
# 22,170 W); rack PDUs are sold for exactly these inputs, e.g. HP Intelligent PDU core units
# AF525A (32 A single-phase) and AF527A (32 A three-phase), HP iPDU user guide,
# https://easymanua.ls/hp/intelligent-power-distribution-unit/manual?p=29 (seen 2026-12-03). An
# office or lab socket circuit is single-phase 16 A.
SINGLE_PHASE_16A_W = 3_680
SINGLE_PHASE_32A_W = 7_360
THREE_PHASE_32A_W = 22_170
OFFICE_CIRCUIT_W = SINGLE_PHASE_16A_W


# --- Availability: a spare server for services that must stay up (the availability check) -------

AVAILABILITY = "availability"
# Hardware faults per GPU server per year: Meta's Llama 3 training run saw 419 unexpected
# interruptions in 54 days on 16,384 H100 GPUs in 8-GPU servers (Dubey et al. 2024, The Llama 3
# Herd of Models, section 3.3.4, arXiv:2407.21783): 419 / 2,048 servers x 365 / 54 = 1.4 a year.
SERVER_FAULTS_PER_YEAR = Decimal("1.4")
# Hours to bring a failed server back when no service tier says otherwise: next-business-day
# on-site parts, the usual datacenter warranty level (e.g. Dell ProSupport Next Business Day).
# A failure on Friday evening waits for Monday, so the promise is 72 h, not a day: the figure
# the default managed-hosting tier promises too (catalog/data/service_tiers.json, "standard").
# The chosen tier's own ``replacement_hours`` replaces it (``BuildNeeds.repair_hours``).
SERVER_REPAIR_HOURS = 72
HOURS_PER_YEAR = 8760


def spare_servers(*, production: bool, serving: bool, always_on: bool) -> int:
    """Spare servers a job keeps (N+1): a production service that must stay up around the
    clock keeps one; a training job restarts from its last checkpoint instead."""
    return 1 if production and serving and always_on else 0


def server_availability(repair_hours: int = SERVER_REPAIR_HOURS) -> Decimal:
    """The share of the year one server runs, from its faults and the hours each takes to
    repair: 1 - faults a year x repair hours / 8,760 (the steady-state availability
    MTBF / (MTBF + MTTR), with the repair time small beside the time between faults)."""
    down = SERVER_FAULTS_PER_YEAR * repair_hours / HOURS_PER_YEAR
    return 1 - down


def service_availability(
    working: int, spares: int, repair_hours: int = SERVER_REPAIR_HOURS
) -> Decimal:
    """The share of the year at least ``working`` of ``working + spares`` servers run, each
    independently up ``server_availability(repair_hours)`` of the time (binomial)."""
    up = server_availability(repair_hours)
    total = working + spares
    return sum(
        (
            Decimal(math.comb(total, k)) * up**k * (1 - up) ** (total - k)
            for k in range(working, total + 1)
        ),
        Decimal(0),
    )


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    title: Message
    reason: Message
    source: str


def _rule(code: str, title: str, reason: str, source: str, **params: object) -> Rule:
    return Rule(
        code=code,
        title=Message(title, MappingProxyType(dict(params))),
        reason=Message(reason, MappingProxyType(dict(params))),
        source=source,
    )


GPU_COUNT = "gpu_count"
GPU_MEMORY = "gpu_memory"
GPU_MEMORY_FLOOR = "gpu_memory_floor"
GPU_PRECISION = "gpu_precision"
PRODUCTION_GPU = "production_gpu"
CONSUMER_LIMIT = "consumer_limit"
GPU_FIT_CHASSIS = "gpu_fit_chassis"
NVLINK = "nvlink"
COOLING = "cooling"
CPU_SERVER_GRADE = "cpu_server_grade"
CPU_CORES = "cpu_cores"
PCIE_LANES = "pcie_lanes"
SYSTEM_RAM = "system_ram"
MEMORY_POPULATION = "memory_population"
STORAGE_NVME = "storage_nvme"
STORAGE_CAPACITY = "storage_capacity"
STORAGE_THROUGHPUT = "storage_throughput"
BOOT_MIRROR = "boot_mirror"
POWER = "power"
REDUNDANT_PSU = "redundant_psu"
RACK_CHASSIS = "rack_chassis"
INTERCONNECT = "interconnect"

_RULES = (
    _rule(
        GPU_COUNT,
        gettext_noop("Enough GPUs for the job"),
        gettext_noop(
            "The job is sized for a number of GPUs of the chosen model; the servers together "
            "must hold at least that many, in identical servers."
        ),
        CUSTOMER_BRIEF,
    ),
    _rule(
        GPU_MEMORY,
        gettext_noop("GPU memory per GPU"),
        gettext_noop(
            "GPU memory is the critical figure: when the model, its activations and caches do "
            "not fit, the job stops. Only %(usable_pct)s %% of a GPU's memory is planned for; "
            "the rest goes to the CUDA context and fragmentation."
        ),
        CHOOSING_ARTICLE + " (step 2, VRAM capacity); usable share as vLLM's default "
        "gpu_memory_utilization of 0.9, https://docs.vllm.ai/en/latest/serving/engine_args.html",
        usable_pct=round(GPU_MEMORY_USABLE_FRACTION * 100),
    ),
    _rule(
        GPU_MEMORY_FLOOR,
        gettext_noop("Minimum GPU memory"),
        gettext_noop(
            "Serious AI work needs at least %(floor_gb)s GB of GPU memory per GPU, and larger "
            "projects at least %(large_floor_gb)s GB per GPU."
        ),
        CHOOSING_ARTICLE + " (step 2, VRAM capacity)",
        floor_gb=GPU_MEMORY_FLOOR_GB,
        large_floor_gb=GPU_MEMORY_FLOOR_LARGE_GB,
    ),
    _rule(
        GPU_PRECISION,
        gettext_noop("GPUs that run the job's number format"),
        gettext_noop(
            "The weights and matrix products run in the job's number format, which the GPU must "
            "run in hardware: FP8 on %(fp8)s; BF16 on %(bf16)s; INT8 and INT4 weight-only "
            "kernels on %(int4)s. FP32 and FP16 run everywhere."
        ),
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper (Ampere: BF16, no FP8), NVIDIA H100 "
        "Tensor Core GPU Architecture whitepaper and Transformer Engine documentation, "
        "https://docs.nvidia.com/deeplearning/transformer-engine/index.html (FP8 on Hopper, Ada "
        "Lovelace and Blackwell), NVIDIA Ada Lovelace and Blackwell architecture whitepapers; AMD "
        "CDNA 2 and CDNA 3 architecture whitepapers and ROCm 'Data types and precision support', "
        "https://rocm.docs.amd.com/en/latest/reference/precision-support.html (BF16 from MI200, "
        "FP8 from MI300); weight-only INT8/INT4: vLLM 'Supported Hardware' for quantization "
        "kernels, https://docs.vllm.ai/en/v0.9.2/features/quantization/supported_hardware.html "
        "(AWQ/GPTQ from Turing, Marlin from Ampere) and Hugging Face Optimum on AMD GPUs, "
        "https://huggingface.co/docs/optimum/amd/amdgpu/overview (GPTQ on MI210, MI250, MI300)",
        fp8=", ".join(PRECISION_ARCHITECTURES["fp8"]),
        bf16=", ".join(PRECISION_ARCHITECTURES["bf16"]),
        int4=", ".join(PRECISION_ARCHITECTURES["int4"]),
    ),
    _rule(
        PRODUCTION_GPU,
        gettext_noop("Datacenter GPUs with ECC in production"),
        gettext_noop(
            "A production workload cannot afford silent memory errors or drivers not meant for "
            "24/7 service: it runs on datacenter GPUs with ECC memory. Experiments may use "
            "workstation or consumer cards, without ECC."
        ),
        CHOOSING_ARTICLE
        + " (step 1 production versus experiment; FAQ on consumer GPUs); "
        + ARCHITECTURE_ARTICLE
        + " (hardware landscape, ECC)",
    ),
    _rule(
        CONSUMER_LIMIT,
        gettext_noop("At most %(max_cards)s consumer cards per server"),
        gettext_noop(
            "Consumer cards are built for desktops (open-air coolers, 3-4 slot widths): at "
            "most %(max_cards)s fit a server's airflow, and only for experiments."
        ),
        CUSTOMER_BRIEF + "; " + CHOOSING_ARTICLE + " (FAQ on consumer GPUs)",
        max_cards=CONSUMER_GPUS_MAX_PER_SERVER,
    ),
    _rule(
        GPU_FIT_CHASSIS,
        gettext_noop("GPUs fit the chassis"),
        gettext_noop(
            "The chassis must accept the GPU's form factor and have a slot for every GPU plus the "
            "slots kept free for growth. SXM and OAM GPUs come on a baseboard of one generation "
            "(HGX A100, HGX H100/H200, HGX B200, AMD MI300X), which fits only a server built for "
            "it; the baseboard comes with every position populated, so the GPU count on it "
            "equals the slot count."
        ),
        "NVIDIA HGX platform (4- and 8-GPU baseboards), "
        "https://www.nvidia.com/en-us/data-center/hgx/; the server vendors' spec sheets name the "
        "one baseboard each system takes (e.g. Supermicro SYS-821GE-TNHR: HGX H100/H200 8-GPU, "
        "https://www.supermicro.com/en/products/system/gpu/8u/sys-821ge-tnhr); "
        + CHOOSING_ARTICLE
        + " (growth plan)",
    ),
    _rule(
        NVLINK,
        gettext_noop("NVLink between GPUs that share a model"),
        gettext_noop(
            "When the GPUs of a server hold parts of one model they exchange data at every step: "
            "they need a GPU-to-GPU link (NVLink, or Infinity Fabric on AMD), through a switched "
            "fabric on the baseboard (NVSwitch, or the Infinity Fabric mesh of an AMD board), or "
            "bridges for a pair of at most %(bridge_max)s cards."
        ),
        ARCHITECTURE_ARTICLE + " (interconnect technology); " + CHOOSING_ARTICLE + " (FAQ on "
        "multiple GPUs)",
        bridge_max=NVLINK_BRIDGE_MAX_GPUS,
    ),
    _rule(
        COOLING,
        gettext_noop("Cooling for the GPUs"),
        gettext_noop(
            "Every watt a GPU draws becomes heat: the chassis must be rated for the GPU's power "
            "per slot, and GPUs above %(liquid_above_w)s W need liquid cooling."
        ),
        CHOOSING_ARTICLE + " (step 3, power and cooling); NVIDIA DGX B200 (air-cooled, 8 x "
        "B200 at about 1,000 W) versus GB200 NVL72 (liquid-cooled, about 1,200 W per GPU), "
        "https://www.nvidia.com/en-us/data-center/dgx-b200/ and "
        "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
        liquid_above_w=LIQUID_COOLING_ABOVE_GPU_W,
    ),
    _rule(
        CPU_SERVER_GRADE,
        gettext_noop("Server-grade CPUs in every socket"),
        gettext_noop(
            "The CPU coordinates the data flow to the GPUs: it must be a server-grade part for "
            "the chassis' socket, one in every socket. A workstation tower, for experiments "
            "only, may hold the workstation CPU its platform is built for."
        ),
        CHOOSING_ARTICLE + " (step 3, the CPU's role)",
    ),
    _rule(
        CPU_CORES,
        gettext_noop("Enough CPU cores"),
        gettext_noop(
            "A server needs at least %(min_cores)s CPU cores and %(cores_per_gpu)s per GPU to "
            "prepare and feed data, and more when the job asks for more."
        ),
        CHOOSING_ARTICLE + " (step 3, server-grade CPU with at least 8 cores); " + CUSTOMER_BRIEF,
        min_cores=CPU_CORES_MIN_PER_SERVER,
        cores_per_gpu=CPU_CORES_PER_GPU,
    ),
    _rule(
        PCIE_LANES,
        gettext_noop("Enough PCIe lanes"),
        gettext_noop(
            "Each GPU needs x%(gpu_lanes)s, each NIC of %(fast_gbps)s Gb/s or more x%(fast_nic)s "
            "(x%(nic)s below) and each NVMe drive x%(nvme)s from the CPUs, unless the chassis "
            "puts them behind PCIe switches."
        ),
        "PCI Express x16 GPU cards (NVIDIA H100 PCIe product brief PB-11133-001); NVIDIA "
        "ConnectX-7 400G adapters (PCIe Gen5 x16); NVMe U.2/E3.S drives (PCIe x4); "
        + ARCHITECTURE_ARTICLE
        + " (PCIe generation)",
        gpu_lanes=PCIE_LANES_PER_GPU,
        fast_gbps=FAST_NIC_GBPS,
        fast_nic=PCIE_LANES_PER_FAST_NIC,
        nic=PCIE_LANES_PER_NIC,
        nvme=PCIE_LANES_PER_NVME,
    ),
    _rule(
        SYSTEM_RAM,
        gettext_noop("System RAM at least %(factor)s x GPU memory"),
        gettext_noop(
            "System RAM holds the data before it goes to the GPUs: a server needs at least "
            "%(factor)s times its total GPU memory."
        ),
        CHOOSING_ARTICLE + " (step 3, system RAM)",
        factor=SYSTEM_RAM_PER_VRAM,
    ),
    _rule(
        MEMORY_POPULATION,
        gettext_noop("Memory populated evenly"),
        gettext_noop(
            "Identical DIMMs of the chassis' DDR generation fill every channel of every CPU "
            "equally, within the slots and the CPU's maximum memory; ECC in production. "
            "%(preferred_dpc)s DIMM per channel keeps the full memory clock; two lower it."
        ),
        "Server memory population guidelines (e.g. Dell PowerEdge installation and service "
        "manuals, 'Memory module installation guidelines'); "
        "https://www.servnetuk.com/insights/server-dimm-population-rules",
        preferred_dpc=DIMMS_PER_CHANNEL_PREFERRED,
    ),
    _rule(
        STORAGE_NVME,
        gettext_noop("NVMe storage"),
        gettext_noop(
            "Training reads its data again and again; slow storage leaves the GPUs waiting. "
            "Data lives on NVMe SSDs, in the chassis' NVMe bays."
        ),
        CHOOSING_ARTICLE + " (step 3, storage speed)",
    ),
    _rule(
        STORAGE_CAPACITY,
        gettext_noop("Storage for data and checkpoints"),
        gettext_noop(
            "The NVMe drives hold the dataset and the checkpoints; a job spread over several "
            "servers keeps an equal share on each."
        ),
        CHOOSING_ARTICLE + " (step 1, data size)",
    ),
    _rule(
        STORAGE_THROUGHPUT,
        gettext_noop("Storage fast enough to feed the GPUs"),
        gettext_noop(
            "The drives of a server together must read at least as fast as its GPUs consume data."
        ),
        CHOOSING_ARTICLE + " (step 3, storage speed)",
    ),
    _rule(
        BOOT_MIRROR,
        gettext_noop("Mirrored boot drives in production"),
        gettext_noop(
            "In production the system disk must survive a drive failure: %(drives)s identical "
            "SSDs of at least %(min_gb)s GB, mirrored, separate from the data drives."
        ),
        CHOOSING_ARTICLE + " (step 1, production reliability)",
        drives=BOOT_MIRROR_DRIVES,
        min_gb=BOOT_DRIVE_MIN_GB,
    ),
    _rule(
        POWER,
        gettext_noop("Power supplies sized for full load"),
        gettext_noop(
            "The sum of every part's full-load draw, times %(margin)s, must stay within what the "
            "supplies deliver (without the redundant ones in production) and within the "
            "chassis' maximum. GPUs draw 300 W to 700 W each (700 W for an H100 SXM)."
        ),
        CHOOSING_ARTICLE + " (step 3, power and cooling); " + ARCHITECTURE_ARTICLE + " (H100 up "
        "to 700 W); NVIDIA H100 datasheet, https://www.nvidia.com/en-us/data-center/h100/; "
        "margin: continuous loads at no more than 80 % of a rating (NFPA 70 NEC 210.19/210.20)",
        margin=POWER_MARGIN,
    ),
    _rule(
        SITE_POWER,
        gettext_noop("A site that can feed and cool the servers"),
        gettext_noop(
            "Every watt a server draws becomes heat in the room: the site must feed and cool "
            "its full-load draw, GPUs kept for growth included. Most datacenter racks are "
            "air-cooled for %(air_low_kw)s-%(air_kw)s kW; high-density racks with aisle "
            "containment or rear-door heat exchangers take up to about %(dense_kw)s kW; "
            "liquid-cooled servers need a datacenter that brings liquid cooling to the rack. An "
            "office or lab circuit (single-phase 230 V 16 A) gives %(office_kw)s kW, a "
            "single-phase 32 A feed %(single_kw)s kW, a three-phase 400 V 32 A feed "
            "%(three_kw)s kW. This is advice about the site: it never fails a configuration."
        ),
        "Uptime Institute Global Data Center Survey 2021 (most common rack density: more than "
        "a third below 5 kW, nearly half 5-10 kW), https://magazine.intelligentdatacentres.com/"
        "intelligent-data-centres-issue-32/0337247001633682834?page=20, and 2023 ('most "
        "operators do not have any racks beyond 20 kW'), https://intelligence.uptimeinstitute."
        "com/resource/uptime-institute-global-data-center-survey-2023 (both seen 2026-12-03); "
        "Schneider Electric White Paper 156, 'Choosing the Optimal Data Center Power Density' "
        "(5-8 kW per rack), https://www.scribd.com/document/351259957/choosing-the-optimal-data-"
        "center-power-density-pdf (seen 2026-12-03); feeds: IEC 60309 plug ratings (16 A and "
        "32 A, 230 V single-phase, 400 V three-phase) and HP Intelligent PDU core units "
        "AF525A/AF527A, "
        "https://easymanua.ls/hp/intelligent-power-distribution-unit/manual?p=29 (seen "
        "2026-12-03); liquid cooling: NVIDIA GB200 NVL72 (liquid-cooled), "
        "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
        air_low_kw=AIR_RACK_TYPICAL_LOW_W // 1000,
        air_kw=AIR_RACK_TYPICAL_W // 1000,
        dense_kw=AIR_RACK_HIGH_DENSITY_W // 1000,
        office_kw=round(OFFICE_CIRCUIT_W / 1000, 1),
        single_kw=round(SINGLE_PHASE_32A_W / 1000, 1),
        three_kw=round(THREE_PHASE_32A_W / 1000, 1),
    ),
    _rule(
        REDUNDANT_PSU,
        gettext_noop("Redundant power supplies in production"),
        gettext_noop(
            "A production server keeps running when a power supply fails: at least "
            "%(spares)s spare supply (N+%(spares)s)."
        ),
        CHOOSING_ARTICLE + " (step 1, production reliability)",
        spares=PSU_REDUNDANT_MIN,
    ),
    _rule(
        AVAILABILITY,
        gettext_noop("A spare server for a service that must stay up"),
        gettext_noop(
            "A GPU server fails about %(faults)s times a year and takes about %(hours)s hours to "
            "repair. A production service that must run around the clock keeps one spare "
            "server (N+1) so that it survives one failing; with redundant power supplies and "
            "mirrored system disks each server also survives its most common faults. A training "
            "job restarts from its last checkpoint instead."
        ),
        "Dubey et al. 2024, The Llama 3 Herd of Models, section 3.3.4 (419 unexpected "
        "interruptions in 54 days on 16,384 GPUs), https://arxiv.org/abs/2407.21783; repair: "
        "the chosen service tier's replacement time, else next-business-day on-site parts (e.g. "
        "Dell ProSupport), 72 h over a weekend; "
        + CHOOSING_ARTICLE
        + " (step 1, production reliability)",
        faults=SERVER_FAULTS_PER_YEAR,
        hours=SERVER_REPAIR_HOURS,
    ),
    _rule(
        RACK_CHASSIS,
        gettext_noop("A rack-mount server chassis in production"),
        gettext_noop(
            "Continuous production runs in a datacenter rack with managed airflow and remote "
            "management; a workstation tower is for experiments."
        ),
        CHOOSING_ARTICLE + " (step 1, production versus experiment; step 4, hosting)",
    ),
    _rule(
        INTERCONNECT,
        gettext_noop("InfiniBand or RoCE between servers"),
        gettext_noop(
            "A job spread over several servers is limited by the network between them: every GPU "
            "gets its own InfiniBand or RoCE port at the bandwidth the job needs."
        ),
        ARCHITECTURE_ARTICLE + " (networking for multi-node training)",
    ),
)

RULES: Mapping[str, Rule] = MappingProxyType({r.code: r for r in _RULES})
"""Every rule by code, in the order checks are reported."""

RULE_ORDER: tuple[str, ...] = tuple(r.code for r in _RULES)


def rule_get(code: str) -> Rule:
    """The rule behind a ``Check.rule`` code (KeyError for an unknown code)."""
    return RULES[code]
