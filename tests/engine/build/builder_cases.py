"""Builder test cases: jobs, catalogs priced by hand, and readers of the options built.

``needs(...)`` is a production job with round defaults, ``fits(...)`` its GPU table; the
part lists and catalogs use tests/engine/catalog_factory.py. Shared by the builder and
hand-build tests.
"""

from __future__ import annotations

from typing import Any

from engine.build.builder import BuildNeeds, BuiltOption, Check, Environment, GpuFit
from tests.engine import catalog_factory as make


def fits(**by_sku: tuple[int, float]) -> Any:
    """``gpus_for`` from a table: SKU (with "-" written "_") -> (GPUs, GB per GPU)."""
    table = {sku.replace("_", "-"): GpuFit(gpus, memory) for sku, (gpus, memory) in by_sku.items()}
    return lambda gpu: table.get(gpu.sku)


def needs(gpus_for: Any = None, **overrides: Any) -> BuildNeeds:
    fields: dict[str, Any] = {
        "gpus_for": gpus_for,
        "environment": Environment.PRODUCTION,
        "model_sharded": False,
        "large_project": False,
        "storage_gb": 4000.0,
        "storage_read_mbs": 6000.0,
        "cpu_cores_min": 0,
        "interconnect_gbps_per_gpu": 400,
    }
    fields.update(overrides)
    return BuildNeeds(**fields)


def lines(option: BuiltOption) -> list[tuple[str, str, int, str, str]]:
    return [
        (p.kind, p.sku, p.quantity, str(p.unit_price.rounded().amount), p.role)
        for p in option.parts
    ]


def check(option: BuiltOption | tuple[Check, ...], rule: str) -> Check:
    checks = option.checks if isinstance(option, BuiltOption) else option
    return next(c for c in checks if c.rule == rule)


def rendered(messages: tuple[Any, ...]) -> list[str]:
    return [m.render() for m in messages]


def pcie_parts() -> list[Any]:
    """Everything but GPUs and chassis for a dual Xeon PCIe server (prices in the names)."""
    return [
        make.xeon_4410y(),  # 12 cores, 8 channels, 80 lanes, 150 W, 1,000
        make.dimm_gb(16, 80),
        make.dimm_gb(32, 150),
        make.dimm_gb(64, 300),
        make.drive(),  # 7.68 TB, 7,000 MB/s, 25 W, 900
        make.boot_ssd(),  # 480 GB, 120
    ]


def hgx_parts() -> list[Any]:
    """Everything but GPUs and chassis for a dual EPYC HGX server."""
    return [
        make.cpu(),  # EPYC 9124: 16 cores, 12 channels, 200 W, 1,200
        make.epyc_9354(),  # 32 cores, 280 W, 3,000
        make.dimm_gb(32, 150),
        make.dimm_gb(64, 300),
        make.dimm_gb(96, 450),
        make.drive(),  # 7.68 TB, 7,000 MB/s, 900
        make.nvme_15tb(),  # 15.36 TB, 7,000 MB/s, 1,700
        make.boot_ssd(),
    ]


def hgx_catalog() -> Any:
    return make.snapshot(
        make.h100_sxm(), make.l40s(), make.chassis(), make.pcie_chassis(), *hgx_parts()
    )


def hgx_needs(**overrides: Any) -> BuildNeeds:
    fields = {
        "model_sharded": True,
        "large_project": True,
        "storage_gb": 20000.0,
        "storage_read_mbs": 10000.0,
    }
    fields["gpus_for"] = fits(GPU_H100_SXM=(8, 60.0))
    return needs(**(fields | overrides))
