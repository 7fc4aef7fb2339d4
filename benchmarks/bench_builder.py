"""The configuration builder against a synthetic 5,000-part catalog: p50/p95 per request.

The catalog mimics a distributor's: a few dozen GPU models, server platforms, CPUs, DIMMs, drives
(with their form factors) and NICs, each sold as many SKUs (OEM part numbers, vendors, options) at
different prices, with per-SKU spread where real parts differ (drive speeds, power figures, chassis
options), plus the cluster parts a multi-node build adds (a few dozen switches, cables and optics,
storage servers). Requests
are random jobs from 10 GB to 4 TB of GPU memory, production or experiment, with and without a
budget. Target: p95 under 50 ms per ``build_options`` call once the catalog index is built (the
selector reuses one snapshot until the catalog changes); the one-off index build is reported too.

Run: ``python -m benchmarks bench_builder`` (or ``make bench``).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from decimal import Decimal

from benchmarks.timing import percentile, report
from engine.build.builder import BuildNeeds, Environment, GpuFit, build_options
from engine.build.parts import (
    CableEnds,
    CableKind,
    CableSpec,
    CatalogSnapshot,
    ChassisSpec,
    Cooling,
    CpuSpec,
    DriveFormFactor,
    DriveKind,
    DriveSpec,
    FormFactor,
    GpuClass,
    GpuSpec,
    MemorySpec,
    NicSpec,
    StorageServerSpec,
    SwitchSpec,
)
from engine.build.search import SearchIndex
from engine.money import Money

TARGET_P95_MS = 50.0
REQUESTS = 200
SEED = 20240601
CURRENCY = "EUR"
VENDORS = ("Dell", "HPE", "Lenovo", "Supermicro", "Gigabyte", "ASUS", "Inspur", "Distributor")

# name, memory GB, bandwidth GB/s, BF16 TFLOPS, TDP W, form, NVLink GB/s, ECC, class, list EUR
GPU_MODELS = (
    ("B200 SXM", 180, 7700, 2250, 1000, FormFactor.SXM, 1800, True, GpuClass.DATACENTER, 42000),
    ("GB200-class 1200W", 186, 8000, 2500, 1200, FormFactor.SXM, 1800, True, "dc", 52000),
    ("H200 SXM", 141, 4800, 989, 700, FormFactor.SXM, 900, True, GpuClass.DATACENTER, 32000),
    ("H200 NVL", 141, 4800, 835, 600, FormFactor.PCIE, 900, True, GpuClass.DATACENTER, 31000),
    ("H100 SXM", 80, 3350, 989, 700, FormFactor.SXM, 900, True, GpuClass.DATACENTER, 25000),
    ("H100 NVL", 94, 3900, 835, 400, FormFactor.PCIE, 600, True, GpuClass.DATACENTER, 28000),
    ("H100 PCIe", 80, 2000, 756, 350, FormFactor.PCIE, 600, True, GpuClass.DATACENTER, 24000),
    ("A100 80GB SXM", 80, 2039, 312, 400, FormFactor.SXM, 600, True, GpuClass.DATACENTER, 14000),
    ("A100 80GB PCIe", 80, 1935, 312, 300, FormFactor.PCIE, 600, True, GpuClass.DATACENTER, 13000),
    ("A100 40GB PCIe", 40, 1555, 312, 250, FormFactor.PCIE, 600, True, GpuClass.DATACENTER, 8000),
    ("L40S", 48, 864, 362, 350, FormFactor.PCIE, None, True, GpuClass.DATACENTER, 8000),
    ("L40", 48, 864, 181, 300, FormFactor.PCIE, None, True, GpuClass.DATACENTER, 7000),
    ("L4", 24, 300, 121, 72, FormFactor.PCIE, None, True, GpuClass.DATACENTER, 2500),
    ("A10", 24, 600, 125, 150, FormFactor.PCIE, None, True, GpuClass.DATACENTER, 3000),
    ("A30", 24, 933, 165, 165, FormFactor.PCIE, 200, True, GpuClass.DATACENTER, 4500),
    ("A40", 48, 696, 150, 300, FormFactor.PCIE, 112, True, GpuClass.DATACENTER, 5500),
    ("MI300X OAM", 192, 5300, 1307, 750, FormFactor.OAM, 896, True, GpuClass.DATACENTER, 20000),
    ("MI250 OAM", 128, 3277, 362, 560, FormFactor.OAM, 800, True, GpuClass.DATACENTER, 9000),
    ("MI210", 64, 1638, 181, 300, FormFactor.PCIE, 300, True, GpuClass.DATACENTER, 7000),
    ("RTX 6000 Ada", 48, 960, 364, 300, FormFactor.PCIE, None, True, GpuClass.WORKSTATION, 7500),
    ("RTX 5000 Ada", 32, 576, 261, 250, FormFactor.PCIE, None, True, GpuClass.WORKSTATION, 4500),
    ("RTX A6000", 48, 768, 155, 300, FormFactor.PCIE, 112, True, GpuClass.WORKSTATION, 4800),
    ("RTX A4000", 16, 448, 77, 140, FormFactor.PCIE, None, True, GpuClass.WORKSTATION, 1100),
    ("RTX 5090", 32, 1792, 210, 575, FormFactor.PCIE, None, False, GpuClass.CONSUMER, 2600),
    ("RTX 4090", 24, 1008, 165, 450, FormFactor.PCIE, None, False, GpuClass.CONSUMER, 1800),
    ("RTX 3090", 24, 936, 71, 350, FormFactor.PCIE, 112, False, GpuClass.CONSUMER, 900),
)

# socket, cores, TDP, channels, max GB per socket, lanes, server grade, DDR, list EUR
CPU_FAMILIES = (
    ("SP5", (16, 24, 32, 48, 64, 96, 128), 12, 6144, 128, True, 5, 45),
    ("LGA4677", (8, 12, 16, 24, 32, 48, 56, 60, 64), 8, 4096, 80, True, 5, 60),
    ("LGA7529", (16, 32, 48, 64, 72, 86, 128), 8, 4096, 88, True, 5, 70),
    ("SP3", (8, 16, 24, 32, 48, 64), 8, 4096, 128, True, 4, 35),
    ("LGA4189", (8, 12, 16, 24, 28, 32, 40), 8, 6144, 64, True, 4, 40),
    ("sTR5", (24, 32, 64, 96), 8, 1024, 128, False, 5, 55),
    ("AM5", (8, 12, 16), 2, 192, 28, False, 5, 40),
)


def _eur(rng: random.Random, base: float, spread: float = 0.15) -> Money:
    amount = Decimal(round(base * rng.uniform(1 - spread, 1 + spread), 2)).quantize(Decimal("0.01"))
    return Money(amount, CURRENCY)


def _gpus(rng: random.Random, count: int) -> list[GpuSpec]:
    parts = []
    for i in range(count):
        name, mem, bw, tf, tdp, form, link, ecc, gpu_class, price = GPU_MODELS[i % len(GPU_MODELS)]
        if gpu_class == "dc":
            gpu_class = GpuClass.DATACENTER
        parts.append(
            GpuSpec(
                sku=f"GPU-{i:04d}",
                name=f"{name} ({rng.choice(VENDORS)} {i})",
                vendor=rng.choice(VENDORS),
                memory_gb=float(mem),
                memory_bandwidth_gbs=float(bw),
                bf16_tflops=float(tf),
                fp8_tflops=float(tf * 2),
                tdp_w=tdp,
                form_factor=form,
                nvlink_gbs=None if link is None else float(link),
                ecc=ecc,
                gpu_class=GpuClass(gpu_class),
                pcie_gen=5,
                price=None if rng.random() < 0.05 else _eur(rng, price),
                managed_monthly_price=_eur(rng, price / 30),
            )
        )
    return parts


def _cpus(rng: random.Random, count: int) -> list[CpuSpec]:
    parts = []
    for i in range(count):
        socket, cores_list, channels, max_gb, lanes, grade, _ddr, eur_per_core = CPU_FAMILIES[
            i % len(CPU_FAMILIES)
        ]
        cores = rng.choice(cores_list)
        parts.append(
            CpuSpec(
                sku=f"CPU-{i:04d}",
                name=f"{socket} {cores}-core #{i}",
                vendor="AMD" if socket in {"SP5", "SP3", "sTR5", "AM5"} else "Intel",
                socket=socket,
                cores=cores,
                threads=cores * 2,
                tdp_w=min(400, 100 + cores * rng.choice((2, 3, 4))),
                memory_channels=channels,
                max_memory_gb=max_gb,
                pcie_gen=5,
                pcie_lanes=lanes,
                server_grade=grade,
                price=None if rng.random() < 0.05 else _eur(rng, 400 + cores * eur_per_core, 0.3),
            )
        )
    return parts


def _memory(rng: random.Random, count: int) -> list[MemorySpec]:
    parts = []
    for i in range(count):
        ddr = rng.choice((4, 5, 5))
        capacity = rng.choice((16, 32, 48, 64, 96, 128, 256) if ddr == 5 else (16, 32, 64, 128))
        ecc = rng.random() < 0.85
        parts.append(
            MemorySpec(
                sku=f"DIMM-{i:04d}",
                name=f"{capacity} GB DDR{ddr} #{i}",
                capacity_gb=capacity,
                ddr_generation=ddr,
                speed_mts=rng.choice((3200, 4800, 5600, 6400)),
                ecc=ecc,
                registered=ecc,
                power_w=round(rng.uniform(3, 6) + capacity / 32, 1),
                price=None if rng.random() < 0.05 else _eur(rng, capacity * 4.5, 0.3),
            )
        )
    return parts


NVME_BAY_FORMS = (DriveFormFactor.U2, DriveFormFactor.U3, DriveFormFactor.E1S, DriveFormFactor.E3S)


def _drive_form(kind: DriveKind, capacity_tb: float, i: int) -> DriveFormFactor:
    """HDDs are 3.5-inch, SATA SSDs 2.5-inch; small NVMe drives are M.2 boot sticks."""
    if kind is DriveKind.HDD:
        return DriveFormFactor.LFF
    if kind is DriveKind.SATA_SSD:
        return DriveFormFactor.SATA
    if capacity_tb < 1:
        return DriveFormFactor.M2
    return NVME_BAY_FORMS[i % len(NVME_BAY_FORMS)]


def _drives(rng: random.Random, count: int) -> list[DriveSpec]:
    parts = []
    for i in range(count):
        kind = rng.choice((DriveKind.NVME,) * 6 + (DriveKind.SATA_SSD, DriveKind.HDD))
        if kind is DriveKind.HDD:
            capacity, read = rng.choice((8.0, 12.0, 16.0, 20.0, 24.0)), rng.randint(200, 280)
            price = capacity * 18
        else:
            capacity = rng.choice((0.24, 0.48, 0.96, 1.92, 3.84, 7.68, 15.36, 30.72, 61.44))
            top = 14000 if kind is DriveKind.NVME else 560
            read = rng.randint(top // 3, top)
            price = 40 + capacity * rng.uniform(70, 140) + read / 20
        parts.append(
            DriveSpec(
                sku=f"DRIVE-{i:04d}",
                name=f"{capacity} TB {kind} #{i}",
                kind=kind,
                capacity_tb=capacity,
                read_mbs=read,
                write_mbs=read // 2,
                endurance_dwpd=rng.choice((0.3, 1.0, 3.0)),
                power_w=round(rng.uniform(5, 25), 1),
                price=None if rng.random() < 0.05 else _eur(rng, price, 0.2),
                form_factor=_drive_form(kind, capacity, i),
            )
        )
    return parts


def _nics(rng: random.Random, count: int) -> list[NicSpec]:
    parts = []
    for i in range(count):
        speed = rng.choice((25, 100, 200, 400, 400, 800))
        ports = rng.choice((1, 2)) if speed < 800 else 1
        infiniband = speed >= 200 and rng.random() < 0.5
        parts.append(
            NicSpec(
                sku=f"NIC-{i:04d}",
                name=f"{ports}x{speed}G #{i}",
                speed_gbps=speed,
                ports=ports,
                infiniband=infiniband,
                roce=rng.random() < 0.8,
                pcie_lanes=16 if speed * ports >= 200 else 8,
                power_w=round(rng.uniform(8, 30), 1),
                price=None if rng.random() < 0.05 else _eur(rng, 150 + speed * ports * 3, 0.3),
            )
        )
    return parts


def _chassis(rng: random.Random, count: int) -> list[ChassisSpec]:
    platforms: list[tuple[str, int, tuple[int, ...]]] = []
    for socket, *_rest, ddr, _eur_core in CPU_FAMILIES:
        if socket in {"AM5", "sTR5"}:
            platforms.append((socket, ddr, (1,)))
        else:
            platforms.append((socket, ddr, (1, 2)))
    parts = []
    for i in range(count):
        socket, ddr, sockets_options = rng.choice(platforms)
        sockets = rng.choice(sockets_options)
        channels = 12 if socket == "SP5" else 8 if socket != "AM5" else 2
        style = rng.choice(("hgx", "oam", "pcie4", "pcie8", "pcie10", "work2", "liquid"))
        if socket in {"AM5", "sTR5"}:
            style = "work2" if socket == "AM5" else rng.choice(("work2", "pcie4"))
        forms = {
            "hgx": {FormFactor.SXM},
            "oam": {FormFactor.OAM},
            "liquid": {FormFactor.SXM},
        }.get(style, {FormFactor.PCIE})
        slots = {"hgx": rng.choice((4, 8)), "oam": 8, "pcie4": 4, "pcie8": 8, "pcie10": 10}.get(
            style, 2
        )
        max_tdp = {"hgx": 1000, "oam": 750, "liquid": 1200, "pcie4": 450, "pcie8": 400}.get(
            style, rng.choice((350, 600))
        )
        psu_w = rng.choice((1600, 2000, 2700, 3000, 3300))
        psu_count = rng.choice((2, 4, 6, 8)) if style in {"hgx", "oam", "liquid"} else 2
        big = style in {"hgx", "oam", "liquid", "pcie8", "pcie10"}
        price = {"hgx": 55000, "oam": 50000, "liquid": 70000, "pcie8": 16000, "pcie10": 19000}
        parts.append(
            ChassisSpec(
                sku=f"CH-{i:04d}",
                name=f"{style} {socket} x{sockets} #{i}",
                vendor=rng.choice(VENDORS),
                rack_units=8 if style in {"hgx", "oam"} else 4 if big else 2,
                gpu_slots=slots,
                gpu_form_factors=frozenset(forms),
                max_gpu_tdp_w=max_tdp,
                nvswitch=style in {"hgx", "oam", "liquid"},
                nvlink_bridge=style in {"pcie4", "pcie8"} and rng.random() < 0.5,
                pcie_switches=big and rng.random() < 0.7,
                cpu_sockets=sockets,
                cpu_socket_type=socket,
                dimm_slots=sockets * channels * rng.choice((1, 2)),
                ddr_generation=ddr,
                nvme_bays=rng.choice((2, 4, 8, 10, 12, 16, 24)),
                pcie_gen=5,
                psu_count=psu_count,
                psu_w=psu_w,
                psu_redundant=rng.choice((0, 1, psu_count // 2)),
                cooling=Cooling.LIQUID if style == "liquid" else Cooling.AIR,
                max_system_power_w=psu_w * psu_count,
                base_power_w=rng.choice((200, 400, 800, 1500 if big else 300)),
                price=None
                if rng.random() < 0.05
                else _eur(rng, price.get(style, 9000) * (1 + 0.2 * (sockets - 1)), 0.25),
                managed_monthly_price=_eur(rng, 400),
            )
        )
    return parts


# ports, speed Gb/s, InfiniBand, management, rack units, power W, list EUR, breakout
SWITCH_MODELS = (
    (64, 400, True, False, 1, 750, 25000, 2),  # NDR
    (40, 200, True, False, 1, 400, 12000, 2),  # HDR
    (64, 800, False, False, 2, 1100, 45000, 4),  # 800GbE
    (64, 400, False, False, 2, 900, 30000, 4),  # 400GbE
    (32, 100, False, False, 1, 300, 9000, 4),  # 100GbE
    (48, 1, False, True, 1, 100, 4000, 1),  # 1GbE management
    (48, 10, False, True, 1, 150, 6000, 1),  # 10GBASE-T management
)
# kind, speed Gb/s, length m, ends, links, power W, list EUR
CABLE_MODELS = (
    (CableKind.TRANSCEIVER, 400, 0.0, CableEnds.SWITCH, 2, 15.0, 1600),
    (CableKind.TRANSCEIVER, 400, 0.0, CableEnds.ADAPTER, 1, 9.0, 900),
    (CableKind.TRANSCEIVER, 200, 0.0, CableEnds.ANY, 1, 6.0, 500),
    (CableKind.FIBER, 400, 10.0, CableEnds.ANY, 1, 0.0, 120),
    (CableKind.FIBER, 400, 30.0, CableEnds.ANY, 1, 0.0, 180),
    (CableKind.DAC, 400, 3.0, CableEnds.SWITCH_TO_ADAPTER, 2, 0.1, 400),
    (CableKind.AOC, 200, 20.0, CableEnds.ANY, 1, 5.0, 700),
    (CableKind.COPPER, 10, 3.0, CableEnds.ANY, 1, 0.0, 8),
    (CableKind.COPPER, 10, 10.0, CableEnds.ANY, 1, 0.0, 15),
)


def _switches(rng: random.Random, count: int) -> list[SwitchSpec]:
    parts = []
    for i in range(count):
        ports, speed, ib, mgmt, units, power, price, breakout = SWITCH_MODELS[
            i % len(SWITCH_MODELS)
        ]
        parts.append(
            SwitchSpec(
                sku=f"SW-{i:04d}",
                name=f"{ports}x{speed}G switch #{i}",
                vendor=rng.choice(VENDORS),
                ports=ports,
                port_speed_gbps=speed,
                infiniband=ib,
                ethernet=not ib,
                management=mgmt,
                rack_units=units,
                power_w=float(power),
                price=None if rng.random() < 0.05 else _eur(rng, price),
                breakout=breakout,
            )
        )
    return parts


def _cables(rng: random.Random, count: int) -> list[CableSpec]:
    parts = []
    for i in range(count):
        kind, speed, length, ends, links, power, price = CABLE_MODELS[i % len(CABLE_MODELS)]
        ib = kind is not CableKind.COPPER and rng.random() < 0.5
        parts.append(
            CableSpec(
                sku=f"CBL-{i:04d}",
                name=f"{kind} {speed}G {length} m #{i}",
                kind=kind,
                speed_gbps=speed,
                infiniband=ib or kind is CableKind.FIBER,
                ethernet=not ib or kind is CableKind.FIBER,
                length_m=length,
                power_w=power,
                price=None if rng.random() < 0.05 else _eur(rng, price),
                ends=ends,
                links=links,
            )
        )
    return parts


def _storage_servers(rng: random.Random, count: int) -> list[StorageServerSpec]:
    parts = []
    for i in range(count):
        usable = rng.choice((60.0, 150.0, 300.0, 600.0, 1200.0))
        network = rng.choice((200, 400, 800, 3200))
        parts.append(
            StorageServerSpec(
                sku=f"STOR-{i:04d}",
                name=f"{usable:g} TB storage server #{i}",
                vendor=rng.choice(VENDORS),
                usable_tb=usable,
                read_mbs=network * 100,  # 80 % of the line rate
                network_gbps=network,
                port_speed_gbps=min(network, 400),
                rack_units=rng.choice((1, 2, 4)),
                power_w=float(rng.randint(600, 2600)),
                price=None if rng.random() < 0.05 else _eur(rng, 20000 + usable * 200, 0.25),
                managed_monthly_price=_eur(rng, 400),
            )
        )
    return parts


def synthetic_catalog(seed: int = SEED) -> CatalogSnapshot:
    """5,000 parts: 400 GPUs, 500 chassis, 600 CPUs, 1,345 DIMMs, 1,445 drives, 600 NICs,
    40 switches, 40 cables and optics, 30 storage servers."""
    rng = random.Random(seed)
    return CatalogSnapshot(
        currency=CURRENCY,
        gpus=tuple(_gpus(rng, 400)),
        chassis=tuple(_chassis(rng, 500)),
        cpus=tuple(_cpus(rng, 600)),
        memory=tuple(_memory(rng, 1345)),
        drives=tuple(_drives(rng, 1445)),
        nics=tuple(_nics(rng, 600)),
        switches=tuple(_switches(rng, 40)),
        cables=tuple(_cables(rng, 40)),
        storage_servers=tuple(_storage_servers(rng, 30)),
    )


def _job(job_gb: float, overhead: float) -> object:
    def gpus_for(gpu: GpuSpec) -> GpuFit | None:
        usable = gpu.memory_gb * 0.9 * overhead
        count = max(1, math.ceil(job_gb / usable))
        if count > 256:
            return None
        return GpuFit(gpus=count, memory_per_gpu_gb=job_gb / count)

    return gpus_for


def random_needs(rng: random.Random) -> BuildNeeds:
    job_gb = math.exp(rng.uniform(math.log(10), math.log(4000)))
    budget = None
    if rng.random() < 0.4:
        budget = Money(Decimal(rng.randrange(20_000, 3_000_000)), CURRENCY)
    return BuildNeeds(
        gpus_for=_job(job_gb, rng.uniform(0.85, 1.0)),  # type: ignore[arg-type]
        environment=rng.choice(list(Environment)),
        model_sharded=rng.random() < 0.6,
        large_project=job_gb > 100,
        storage_gb=rng.choice((0.0, 500.0, 5000.0, 50000.0, 200000.0)),
        storage_read_mbs=rng.choice((0.0, 2000.0, 10000.0, 50000.0)),
        cpu_cores_min=rng.choice((0, 16, 64, 256)),
        interconnect_gbps_per_gpu=rng.choice((0, 100, 200, 400)),
        budget=budget,
        growth_gpus=rng.choice((0, 0, 0, 1, 2)),
    )


def main() -> bool:
    catalog = synthetic_catalog()
    kinds = {
        "gpus": len(catalog.gpus),
        "chassis": len(catalog.chassis),
        "cpus": len(catalog.cpus),
        "memory": len(catalog.memory),
        "drives": len(catalog.drives),
        "nics": len(catalog.nics),
        "switches": len(catalog.switches),
        "cables": len(catalog.cables),
        "storage_servers": len(catalog.storage_servers),
    }
    print(f"   catalog: {sum(kinds.values())} parts {kinds}")
    rng = random.Random(SEED + 1)
    requests = [random_needs(rng) for _ in range(REQUESTS)]

    started = time.perf_counter()
    index = SearchIndex(catalog)  # once per snapshot, as the catalog app keeps it
    build_options(requests[0], catalog, index)
    print(f"   first call (index build + search): {(time.perf_counter() - started) * 1000:.1f} ms")

    samples = []
    outcomes: Counter[str] = Counter()
    for needs in requests:
        started = time.perf_counter()
        result = build_options(needs, catalog, index)
        samples.append((time.perf_counter() - started) * 1000)
        outcomes[f"{len(result.options)} options" if result.options else "unmet"] += 1
    print(f"   outcomes: {dict(sorted(outcomes.items()))}")
    print(
        f"   max {max(samples):.1f} ms, mean {statistics.fmean(samples):.1f} ms, "
        f"p99 {percentile(samples, 99):.1f} ms"
    )
    return report("build_options", samples, target_p95_ms=TARGET_P95_MS)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
