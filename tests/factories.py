"""Small builders for catalog rows, with valid defaults that a test overrides by name."""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from typing import Any

from catalog.models import Chassis, Cpu, Drive, Gpu, MemoryModule, NetworkCard, Price, PriceKind

_serial = itertools.count(1)


def _sku(prefix: str) -> str:
    return f"{prefix}-{next(_serial):05d}"


def gpu_make(**overrides: Any) -> Gpu:
    values: dict[str, Any] = {
        "sku": _sku("GPU"),
        "vendor": "NVIDIA",
        "model": "H100 SXM5 80GB",
        "source": "https://www.nvidia.com/en-us/data-center/h100/",
        "architecture": "Hopper",
        "memory_gb": 80,
        "memory_bandwidth_gbs": 3350,
        "bf16_tflops": Decimal("989.4"),
        "fp8_tflops": Decimal("1978.9"),
        "tdp_w": 700,
        "form_factor": "sxm",
        "nvlink_gbs": 900,
        "ecc": True,
        "mig": True,
        "gpu_class": "datacenter",
        "pcie_gen": 5,
    }
    return Gpu.objects.create(kind=Gpu.KIND, **(values | overrides))


def cpu_make(**overrides: Any) -> Cpu:
    values: dict[str, Any] = {
        "sku": _sku("CPU"),
        "vendor": "AMD",
        "model": "EPYC 9654",
        "source": "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-series/amd-epyc-9654.html",
        "socket": "SP5",
        "cores": 96,
        "threads": 192,
        "base_ghz": Decimal("2.40"),
        "boost_ghz": Decimal("3.70"),
        "tdp_w": 360,
        "memory_channels": 12,
        "max_memory_gb": 6000,
        "pcie_gen": 5,
        "pcie_lanes": 128,
        "server_grade": True,
    }
    return Cpu.objects.create(kind=Cpu.KIND, **(values | overrides))


def memory_make(**overrides: Any) -> MemoryModule:
    values: dict[str, Any] = {
        "sku": _sku("MEM"),
        "vendor": "Micron",
        "model": "64GB DDR5-4800 RDIMM",
        "source": "https://www.micron.com/products/memory/dram-modules/rdimm",
        "capacity_gb": 64,
        "ddr_generation": 5,
        "speed_mts": 4800,
        "ecc": True,
        "registered": True,
        "power_w": Decimal("10.0"),
    }
    return MemoryModule.objects.create(kind=MemoryModule.KIND, **(values | overrides))


def drive_make(**overrides: Any) -> Drive:
    values: dict[str, Any] = {
        "sku": _sku("DRV"),
        "vendor": "Micron",
        "model": "9550 PRO 7.68TB",
        "source": "https://www.micron.com/products/storage/ssd/data-center-ssd/9550-ssd",
        "drive_kind": "nvme",
        "form_factor": "U.2",
        "capacity_tb": Decimal("7.68"),
        "read_mbs": 14000,
        "write_mbs": 10000,
        "endurance_dwpd": Decimal("1.00"),
        "power_w": Decimal("25.0"),
    }
    return Drive.objects.create(kind=Drive.KIND, **(values | overrides))


def nic_make(**overrides: Any) -> NetworkCard:
    values: dict[str, Any] = {
        "sku": _sku("NIC"),
        "vendor": "NVIDIA",
        "model": "ConnectX-7 400G OSFP",
        "source": "https://www.nvidia.com/en-us/networking/infiniband-adapters/",
        "speed_gbps": 400,
        "ports": 1,
        "ethernet": True,
        "infiniband": True,
        "roce": True,
        "pcie_gen": 5,
        "pcie_lanes": 16,
        "power_w": Decimal("25.0"),
    }
    return NetworkCard.objects.create(kind=NetworkCard.KIND, **(values | overrides))


def chassis_make(**overrides: Any) -> Chassis:
    values: dict[str, Any] = {
        "sku": _sku("CHS"),
        "vendor": "Supermicro",
        "model": "SYS-821GE-TNHR",
        "source": "https://www.supermicro.com/en/products/system/gpu/8u/sys-821ge-tnhr",
        "rack_units": 8,
        "gpu_slots": 8,
        "accepts_sxm": True,
        "max_gpu_tdp_w": 700,
        "nvswitch": True,
        "cpu_sockets": 2,
        "cpu_socket_type": "LGA4677",
        "dimm_slots": 32,
        "ddr_generation": 5,
        "nvme_bays": 16,
        "pcie_gen": 5,
        "psu_count": 6,
        "psu_w": 3000,
        "psu_redundant": 3,
        "cooling": "air",
        "max_system_power_w": 10200,
        "base_power_w": 900,
    }
    return Chassis.objects.create(kind=Chassis.KIND, **(values | overrides))


def price_make(part, **overrides: Any) -> Price:
    values: dict[str, Any] = {
        "price_kind": PriceKind.PURCHASE,
        "amount": Decimal("1000.00"),
        "currency": "EUR",
        "observed_on": dt.date(2026, 10, 1),
        "source": "test price list",
    }
    return Price.objects.create(part=part, **(values | overrides))
