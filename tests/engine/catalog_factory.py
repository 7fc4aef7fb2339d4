"""Catalog parts for engine tests: one function per kind, realistic defaults, keyword overrides.

Pure helpers (no Django, no fixtures). Figures are round on purpose so that expected totals can be
worked out by hand in the tests; the named presets follow the vendors' datasheets loosely.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine.build.parts import (
    Availability,
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
from engine.money import Money

CURRENCY = "EUR"


def eur(amount: int | str | Decimal) -> Money:
    return Money(Decimal(amount), CURRENCY)


def _price(fields: dict[str, Any], key: str = "price") -> None:
    value = fields.get(key)
    if value is not None and not isinstance(value, Money):
        fields[key] = eur(value)


def gpu(**overrides: Any) -> GpuSpec:
    fields: dict[str, Any] = {
        "sku": "GPU-H100-SXM",
        "name": "H100 SXM",
        "vendor": "NVIDIA",
        "memory_gb": 80.0,
        "memory_bandwidth_gbs": 3350.0,
        "bf16_tflops": 989.0,
        "fp8_tflops": 1979.0,
        "tdp_w": 700,
        "form_factor": FormFactor.SXM,
        "nvlink_gbs": 900.0,
        "ecc": True,
        "gpu_class": GpuClass.DATACENTER,
        "pcie_gen": 5,
        "price": 25000,
        "managed_monthly_price": None,
        "architecture": "Hopper",
        "baseboard": "HGX-H100",
        "availability": Availability.CURRENT,
        "lead_time_weeks": None,
    }
    fields.update(overrides)
    _price(fields)
    _price(fields, "managed_monthly_price")
    return GpuSpec(**fields)


def h100_sxm(**overrides: Any) -> GpuSpec:
    return gpu(**overrides)


def h100_nvl(**overrides: Any) -> GpuSpec:
    fields: dict[str, Any] = {
        "sku": "GPU-H100-NVL",
        "name": "H100 NVL",
        "memory_gb": 94.0,
        "memory_bandwidth_gbs": 3900.0,
        "bf16_tflops": 835.0,
        "fp8_tflops": 1671.0,
        "tdp_w": 400,
        "form_factor": FormFactor.PCIE,
        "nvlink_gbs": 600.0,
        "price": 28000,
        "baseboard": "",
    }
    return gpu(**(fields | overrides))


def a100_pcie(**overrides: Any) -> GpuSpec:
    fields: dict[str, Any] = {
        "sku": "GPU-A100-80-PCIE",
        "name": "A100 80GB PCIe",
        "memory_gb": 80.0,
        "memory_bandwidth_gbs": 1935.0,
        "bf16_tflops": 312.0,
        "fp8_tflops": None,
        "tdp_w": 300,
        "form_factor": FormFactor.PCIE,
        "nvlink_gbs": 600.0,
        "pcie_gen": 4,
        "price": 15000,
        "architecture": "Ampere",
        "baseboard": "",
    }
    return gpu(**(fields | overrides))


def l40s(**overrides: Any) -> GpuSpec:
    fields: dict[str, Any] = {
        "sku": "GPU-L40S",
        "name": "L40S",
        "memory_gb": 48.0,
        "memory_bandwidth_gbs": 864.0,
        "bf16_tflops": 362.0,
        "fp8_tflops": 733.0,
        "tdp_w": 350,
        "form_factor": FormFactor.PCIE,
        "nvlink_gbs": None,
        "pcie_gen": 4,
        "price": 8000,
        "architecture": "Ada Lovelace",
        "baseboard": "",
    }
    return gpu(**(fields | overrides))


def rtx_4090(**overrides: Any) -> GpuSpec:
    fields: dict[str, Any] = {
        "sku": "GPU-RTX-4090",
        "name": "RTX 4090",
        "memory_gb": 24.0,
        "memory_bandwidth_gbs": 1008.0,
        "bf16_tflops": 165.0,
        "fp8_tflops": 330.0,
        "tdp_w": 450,
        "form_factor": FormFactor.PCIE,
        "nvlink_gbs": None,
        "ecc": False,
        "gpu_class": GpuClass.CONSUMER,
        "pcie_gen": 4,
        "price": 1800,
        "architecture": "Ada Lovelace",
        "baseboard": "",
    }
    return gpu(**(fields | overrides))


def cpu(**overrides: Any) -> CpuSpec:
    fields: dict[str, Any] = {
        "sku": "CPU-EPYC-9124",
        "name": "EPYC 9124",
        "vendor": "AMD",
        "socket": "SP5",
        "cores": 16,
        "threads": 32,
        "tdp_w": 200,
        "memory_channels": 12,
        "max_memory_gb": 6144,
        "pcie_gen": 5,
        "pcie_lanes": 128,
        "server_grade": True,
        "price": 1200,
        "availability": Availability.CURRENT,
    }
    fields.update(overrides)
    _price(fields)
    return CpuSpec(**fields)


def epyc_9354(**overrides: Any) -> CpuSpec:
    fields: dict[str, Any] = {
        "sku": "CPU-EPYC-9354",
        "name": "EPYC 9354",
        "cores": 32,
        "threads": 64,
        "tdp_w": 280,
        "price": 3000,
    }
    return cpu(**(fields | overrides))


def xeon_4410y(**overrides: Any) -> CpuSpec:
    fields: dict[str, Any] = {
        "sku": "CPU-XEON-4410Y",
        "name": "Xeon Silver 4410Y",
        "vendor": "Intel",
        "socket": "LGA4677",
        "cores": 12,
        "threads": 24,
        "tdp_w": 150,
        "memory_channels": 8,
        "max_memory_gb": 4096,
        "pcie_lanes": 80,
        "price": 1000,
    }
    return cpu(**(fields | overrides))


def dimm(**overrides: Any) -> MemorySpec:
    fields: dict[str, Any] = {
        "sku": "DIMM-DDR5-64",
        "name": "64 GB DDR5-4800 RDIMM",
        "capacity_gb": 64,
        "ddr_generation": 5,
        "speed_mts": 4800,
        "ecc": True,
        "registered": True,
        "power_w": 8.0,
        "price": 300,
        "availability": Availability.CURRENT,
    }
    fields.update(overrides)
    _price(fields)
    return MemorySpec(**fields)


def dimm_gb(capacity_gb: int, price: int | str, **overrides: Any) -> MemorySpec:
    fields: dict[str, Any] = {
        "sku": f"DIMM-DDR5-{capacity_gb}",
        "name": f"{capacity_gb} GB DDR5-4800 RDIMM",
        "capacity_gb": capacity_gb,
        "price": price,
    }
    return dimm(**(fields | overrides))


def drive(**overrides: Any) -> DriveSpec:
    fields: dict[str, Any] = {
        "sku": "NVME-7.68",
        "name": "7.68 TB NVMe U.2",
        "kind": DriveKind.NVME,
        "capacity_tb": 7.68,
        "read_mbs": 7000,
        "write_mbs": 4000,
        "endurance_dwpd": 1.0,
        "power_w": 25.0,
        "price": 900,
        "availability": Availability.CURRENT,
    }
    fields.update(overrides)
    _price(fields)
    return DriveSpec(**fields)


def nvme_15tb(**overrides: Any) -> DriveSpec:
    fields: dict[str, Any] = {
        "sku": "NVME-15.36",
        "name": "15.36 TB NVMe U.2",
        "capacity_tb": 15.36,
        "price": 1700,
    }
    return drive(**(fields | overrides))


def boot_ssd(**overrides: Any) -> DriveSpec:
    fields: dict[str, Any] = {
        "sku": "M2-480",
        "name": "480 GB NVMe M.2",
        "capacity_tb": 0.48,
        "read_mbs": 3000,
        "write_mbs": 1000,
        "power_w": 8.0,
        "price": 120,
        "form_factor": DriveFormFactor.M2,
    }
    return drive(**(fields | overrides))


def nic(**overrides: Any) -> NicSpec:
    fields: dict[str, Any] = {
        "sku": "NIC-CX7-400",
        "name": "ConnectX-7 400G",
        "speed_gbps": 400,
        "ports": 1,
        "infiniband": True,
        "roce": True,
        "pcie_lanes": 16,
        "power_w": 25.0,
        "price": 2000,
        "availability": Availability.CURRENT,
    }
    fields.update(overrides)
    _price(fields)
    return NicSpec(**fields)


def chassis(**overrides: Any) -> ChassisSpec:
    """Default: an 8-GPU HGX H100 server (SXM baseboard with NVSwitch, PCIe switches)."""
    fields: dict[str, Any] = {
        "sku": "CH-HGX-8",
        "name": "HGX H100 8-GPU",
        "vendor": "Supermicro",
        "rack_units": 8,
        "gpu_slots": 8,
        "gpu_form_factors": frozenset({FormFactor.SXM}),
        "max_gpu_tdp_w": 700,
        "nvswitch": True,
        "nvlink_bridge": False,
        "pcie_switches": True,
        "cpu_sockets": 2,
        "cpu_socket_type": "SP5",
        "dimm_slots": 24,
        "ddr_generation": 5,
        "nvme_bays": 8,
        "pcie_gen": 5,
        "psu_count": 6,
        "psu_w": 3000,
        "psu_redundant": 2,
        "cooling": Cooling.AIR,
        "max_system_power_w": 10200,
        "base_power_w": 1500,
        "price": 60000,
        "managed_monthly_price": None,
        "baseboards": frozenset({"HGX-H100"}),
        "availability": Availability.CURRENT,
    }
    fields.update(overrides)
    _price(fields)
    _price(fields, "managed_monthly_price")
    return ChassisSpec(**fields)


def pcie_chassis(**overrides: Any) -> ChassisSpec:
    """Default: a 2U dual-Xeon server for four double-width PCIe GPUs, no NVLink bridges."""
    fields: dict[str, Any] = {
        "sku": "CH-PCIE-4",
        "name": "2U 4-GPU PCIe",
        "rack_units": 2,
        "gpu_slots": 4,
        "gpu_form_factors": frozenset({FormFactor.PCIE}),
        "max_gpu_tdp_w": 450,
        "nvswitch": False,
        "nvlink_bridge": False,
        "pcie_switches": False,
        "cpu_sockets": 2,
        "cpu_socket_type": "LGA4677",
        "dimm_slots": 32,
        "nvme_bays": 8,
        "psu_count": 2,
        "psu_w": 3200,
        "psu_redundant": 1,
        "max_system_power_w": 3200,
        "base_power_w": 300,
        "price": 12000,
        "baseboards": frozenset(),
    }
    return chassis(**(fields | overrides))


def snapshot(*parts: Any, currency: str = CURRENCY) -> CatalogSnapshot:
    """A snapshot from parts of any kind, sorted into their tuples by type: server parts and the
    cluster's switches, cables and storage servers (tests/engine/build/cluster_parts.py)."""
    kinds: dict[type, list[Any]] = {
        GpuSpec: [],
        CpuSpec: [],
        MemorySpec: [],
        DriveSpec: [],
        NicSpec: [],
        ChassisSpec: [],
        SwitchSpec: [],
        CableSpec: [],
        StorageServerSpec: [],
    }
    for part in parts:
        kinds[type(part)].append(part)
    return CatalogSnapshot(
        currency=currency,
        gpus=tuple(kinds[GpuSpec]),
        cpus=tuple(kinds[CpuSpec]),
        memory=tuple(kinds[MemorySpec]),
        drives=tuple(kinds[DriveSpec]),
        nics=tuple(kinds[NicSpec]),
        chassis=tuple(kinds[ChassisSpec]),
        switches=tuple(kinds[SwitchSpec]),
        cables=tuple(kinds[CableSpec]),
        storage_servers=tuple(kinds[StorageServerSpec]),
    )
