"""Switches, cables and storage servers for engine tests: round figures, keyword overrides.

Pure helpers (no Django). The defaults follow the NVIDIA parts of the seed catalog loosely (a
64-port NDR switch, twin-port switch optics, single-port adapter optics, 1:2 splitter DACs) with
prices chosen so that totals can be worked out by hand.
"""

from __future__ import annotations

from typing import Any

from engine.build.parts import (
    CableEnds,
    CableKind,
    CableSpec,
    CatalogSnapshot,
    NicSpec,
    StorageServerSpec,
    SwitchSpec,
)
from tests.engine.catalog_factory import CURRENCY, eur


def _priced(fields: dict[str, Any], *keys: str) -> None:
    for key in keys:
        value = fields.get(key)
        if value is not None and not hasattr(value, "currency"):
            fields[key] = eur(value)


def switch(**overrides: Any) -> SwitchSpec:
    fields: dict[str, Any] = {
        "sku": "SW-IB-64",
        "name": "NDR switch 64 x 400G",
        "vendor": "NVIDIA",
        "ports": 64,
        "port_speed_gbps": 400,
        "infiniband": True,
        "ethernet": False,
        "management": False,
        "rack_units": 1,
        "power_w": 750.0,
        "price": 25000,
        "breakout": 2,
    }
    fields.update(overrides)
    _priced(fields, "price")
    return SwitchSpec(**fields)


def ethernet_switch(**overrides: Any) -> SwitchSpec:
    fields: dict[str, Any] = {
        "sku": "SW-ETH-800",
        "name": "800GbE switch 64 x 800G",
        "ports": 64,
        "port_speed_gbps": 800,
        "infiniband": False,
        "ethernet": True,
        "rack_units": 2,
        "power_w": 1000.0,
        "price": 40000,
        "breakout": 4,
    }
    return switch(**(fields | overrides))


def management_switch(**overrides: Any) -> SwitchSpec:
    fields: dict[str, Any] = {
        "sku": "SW-MGMT-48",
        "name": "48 x 1GbE management switch",
        "ports": 48,
        "port_speed_gbps": 1,
        "infiniband": False,
        "ethernet": True,
        "management": True,
        "rack_units": 1,
        "power_w": 100.0,
        "price": 4000,
        "breakout": 1,
    }
    return switch(**(fields | overrides))


def cable(**overrides: Any) -> CableSpec:
    fields: dict[str, Any] = {
        "sku": "FIB-10M",
        "name": "MPO-12 fiber 10 m",
        "kind": CableKind.FIBER,
        "speed_gbps": 400,
        "infiniband": True,
        "ethernet": True,
        "length_m": 10.0,
        "power_w": 0.0,
        "price": 100,
        "ends": CableEnds.ANY,
        "links": 1,
    }
    fields.update(overrides)
    _priced(fields, "price")
    return CableSpec(**fields)


def splitter_dac(**overrides: Any) -> CableSpec:
    fields: dict[str, Any] = {
        "sku": "DAC-NDR-3M",
        "name": "800G to 2 x 400G splitter DAC 3 m",
        "kind": CableKind.DAC,
        "length_m": 3.0,
        "power_w": 0.1,
        "price": 400,
        "ends": CableEnds.SWITCH_TO_ADAPTER,
        "links": 2,
    }
    return cable(**(fields | overrides))


def fiber_30m(**overrides: Any) -> CableSpec:
    return cable(
        **(
            {"sku": "FIB-30M", "name": "MPO-12 fiber 30 m", "length_m": 30.0, "price": 150}
            | overrides
        )
    )


def switch_optic(**overrides: Any) -> CableSpec:
    fields: dict[str, Any] = {
        "sku": "XCVR-IB-SW",
        "name": "twin-port 2 x 400G switch transceiver",
        "kind": CableKind.TRANSCEIVER,
        "ethernet": False,
        "length_m": 0.0,
        "power_w": 15.0,
        "price": 1500,
        "ends": CableEnds.SWITCH,
        "links": 2,
    }
    return cable(**(fields | overrides))


def adapter_optic(**overrides: Any) -> CableSpec:
    fields: dict[str, Any] = {
        "sku": "XCVR-IB-HCA",
        "name": "400G adapter transceiver",
        "kind": CableKind.TRANSCEIVER,
        "ethernet": False,
        "length_m": 0.0,
        "power_w": 9.0,
        "price": 900,
        "ends": CableEnds.ADAPTER,
        "links": 1,
    }
    return cable(**(fields | overrides))


def cat6(**overrides: Any) -> CableSpec:
    fields: dict[str, Any] = {
        "sku": "CAT6-3M",
        "name": "Cat6 patch cord 3 m",
        "kind": CableKind.COPPER,
        "speed_gbps": 1,
        "infiniband": False,
        "ethernet": True,
        "length_m": 3.0,
        "power_w": 0.0,
        "price": 5,
    }
    return cable(**(fields | overrides))


def cat6_10m(**overrides: Any) -> CableSpec:
    return cat6(
        **(
            {"sku": "CAT6-10M", "name": "Cat6 patch cord 10 m", "length_m": 10.0, "price": 10}
            | overrides
        )
    )


def storage_server(**overrides: Any) -> StorageServerSpec:
    fields: dict[str, Any] = {
        "sku": "NFS-150",
        "name": "NFS server 150 TB (RAID 6)",
        "vendor": "Supermicro",
        "usable_tb": 150.0,
        "read_mbs": 40000,
        "network_gbps": 400,
        "port_speed_gbps": 200,
        "rack_units": 2,
        "power_w": 800.0,
        "price": 50000,
        "managed_monthly_price": None,
    }
    fields.update(overrides)
    _priced(fields, "price", "managed_monthly_price")
    return StorageServerSpec(**fields)


def parallel_fs(**overrides: Any) -> StorageServerSpec:
    fields: dict[str, Any] = {
        "sku": "PFS-300",
        "name": "parallel filesystem block 300 TB (EC 8+2)",
        "usable_tb": 300.0,
        "read_mbs": 200000,
        "network_gbps": 3200,
        "port_speed_gbps": 400,
        "power_w": 2000.0,
        "price": 150000,
    }
    return storage_server(**(fields | overrides))


def infiniband_parts() -> list[Any]:
    """A complete NDR InfiniBand catalog: switch, optics, fibers, splitter DAC, management."""
    return [
        switch(),
        management_switch(),
        splitter_dac(),
        cable(),
        fiber_30m(),
        switch_optic(),
        adapter_optic(),
        cat6(),
        cat6_10m(),
    ]


def network_snapshot(*parts: Any, currency: str = CURRENCY) -> CatalogSnapshot:
    return CatalogSnapshot(
        currency=currency,
        switches=tuple(p for p in parts if isinstance(p, SwitchSpec)),
        cables=tuple(p for p in parts if isinstance(p, CableSpec)),
        storage_servers=tuple(p for p in parts if isinstance(p, StorageServerSpec)),
        nics=tuple(p for p in parts if isinstance(p, NicSpec)),
    )
