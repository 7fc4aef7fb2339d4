"""Cluster parts in the catalog: switches, cables and optics, storage servers, drive form factors.

The seed file is read as data (sources, dates, form factors), then loaded as ``load_catalog`` loads
it and handed to the engine's fabric and storage design through the snapshot.
"""

from __future__ import annotations

import importlib
import json
import re
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Cable, NetworkSwitch, StorageServer
from catalog.selectors import catalog_snapshot_get
from catalog.services import catalog_load
from engine.build.cluster.fabric import design_fabric
from engine.build.cluster.lines import LineRole
from engine.build.cluster.shared_storage import design_shared_storage
from engine.build.parts import CableEnds, CableKind, DriveFormFactor, PartKind, hot_swap_bay
from engine.money import Money

SEED_FILE = Path(__file__).resolve().parents[2] / "catalog" / "data" / "catalog.json"
SEED: list[dict[str, Any]] = json.loads(SEED_FILE.read_text(encoding="utf-8"))["parts"]
CLUSTER_KINDS = {PartKind.SWITCH, PartKind.CABLE, PartKind.STORAGE_SERVER}
CLUSTER_PARTS = [part for part in SEED if part["kind"] in CLUSTER_KINDS]
HTTPS = re.compile(r"https://\S+")
READ_ON = re.compile(r"read (\d{4}-\d{2}-\d{2})")


# --- The file ------------------------------------------------------------------------------------


def test_the_seed_has_the_cluster_parts_an_expert_asks_for():
    skus = {part["sku"] for part in CLUSTER_PARTS}

    assert {"NVIDIA-MQM9700-NS2F", "NVIDIA-MSN5600", "NVIDIA-MSN2201"} <= skus
    kinds = {(part["kind"], part["spec"].get("cable_kind")) for part in CLUSTER_PARTS}
    assert {
        ("cable", "transceiver"),
        ("cable", "fiber"),
        ("cable", "dac"),
        ("cable", "copper"),
    } <= kinds
    assert sum(part["kind"] == "storage_server" for part in CLUSTER_PARTS) >= 2


@pytest.mark.parametrize("part", CLUSTER_PARTS, ids=lambda part: part["sku"])
def test_every_cluster_part_cites_a_public_https_source_with_the_date_it_was_read(part):
    assert HTTPS.search(part["source"]), part["source"]
    assert READ_ON.search(part["source"]), part["source"]
    assert part["prices"], "a cluster part is priced"
    for price in part["prices"]:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", price["observed_on"])
        source = price["source"]
        assert "estimate" in source.lower() or source.startswith("GPUQuote managed tier")


def test_every_storage_server_states_its_data_protection():
    for part in CLUSTER_PARTS:
        if part["kind"] == "storage_server":
            protection = part["spec"]["protection"]
            assert re.search(r"RAID|erasure coding", protection)
            assert protection.removeprefix("erasure coding ") in part["model"]


@pytest.mark.parametrize(
    ("sku", "form"),
    [
        ("MICRON-7450PRO-480G-M2", "m2"),
        ("MICRON-9550PRO-7T68-U2", "u2"),
        ("MICRON-9550PRO-7T68-E1S", "e1s"),
        ("KIOXIA-CM7R-30T72-U3", "u3"),
        ("SAMSUNG-PM893-960G-SATA", "sata"),
        ("SEAGATE-EXOS-X20-20TB", "lff"),
    ],
)
def test_every_drive_has_its_real_form_factor(sku, form):
    drives = {part["sku"]: part for part in SEED if part["kind"] == "drive"}

    assert drives[sku]["spec"]["form_factor"] == form
    assert {part["spec"]["form_factor"] for part in drives.values()} <= set(DriveFormFactor)


# --- Loading and the snapshot --------------------------------------------------------------------


@pytest.mark.django_db
def test_load_catalog_fills_the_three_new_kinds_and_the_snapshot_returns_them(loaded_catalog):
    assert NetworkSwitch.objects.count() == 3
    assert StorageServer.objects.count() == 3
    assert Cable.objects.count() == sum(part["kind"] == "cable" for part in SEED)

    snapshot = catalog_snapshot_get(currency="EUR")

    switches = {switch.sku: switch for switch in snapshot.switches}
    qm9700 = switches["NVIDIA-MQM9700-NS2F"]
    assert (qm9700.ports_at(400), qm9700.ports_at(200), qm9700.rack_units) == (64, 128, 1)
    assert (qm9700.infiniband, qm9700.ethernet, qm9700.management) == (True, False, False)
    # USD 29,000 as observed, in euros at the built-in ECB 2024 average (1.0824)
    assert qm9700.price == Money(Decimal("26792.31"), "EUR")
    assert switches["NVIDIA-MSN5600"].ports_at(400) == 128
    assert switches["NVIDIA-MSN2201"].management
    cables = {cable.sku: cable for cable in snapshot.cables}
    twin = cables["NVIDIA-MMA4Z00-NS"]
    assert (twin.kind, twin.ends, twin.links) == (CableKind.TRANSCEIVER, CableEnds.SWITCH, 2)
    assert cables["NVIDIA-MFP7E10-N030"].length_m == 30.0
    storage = {server.sku: server for server in snapshot.storage_servers}
    nfs = storage["GPUQ-NFS-2U-12X15T"]
    assert (nfs.usable_tb, nfs.read_mbs, nfs.rack_units) == (153.6, 40000, 2)
    assert nfs.managed_monthly_price is None  # the host computes the fee; the seed sets none
    drives = {drive.sku: drive for drive in snapshot.drives}
    assert drives["MICRON-7450PRO-480G-M2"].form_factor is DriveFormFactor.M2
    assert not hot_swap_bay(drives["MICRON-7450PRO-480G-M2"])
    assert hot_swap_bay(drives["MICRON-9550PRO-7T68-E1S"])


@pytest.mark.django_db
def test_the_seed_designs_a_64_gpu_infiniband_cluster_without_gaps(loaded_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")

    design = design_fabric(8, 8, 400, True, snapshot, production=True)

    # 64 endpoints on the 64-port QM9700: one leaf; eight servers stand in a row, so optics.
    assert design is not None
    assert design.unmet == ()
    assert (design.leaf_switches, design.spine_switches, design.management_switches) == (1, 0, 1)
    roles = {(line.role, line.sku): line.quantity for line in design.lines}
    assert roles[(LineRole.SERVER_LINK, "NVIDIA-MMA4Z00-NS")] == 32
    assert roles[(LineRole.SERVER_LINK, "NVIDIA-MMA4Z00-NS400")] == 64
    assert roles[(LineRole.SERVER_LINK, "NVIDIA-MFP7E10-N010")] == 64
    assert roles[(LineRole.MANAGEMENT_LINK, "STARTECH-N6PATC10MBL")] == 8 + 1 + 1


@pytest.mark.django_db
def test_the_seed_cables_two_servers_in_their_rack_with_splitter_dacs(loaded_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")

    design = design_fabric(2, 8, 400, True, snapshot, production=False)

    assert design is not None
    assert design.unmet == ()
    lines = {(line.role, line.sku): line.quantity for line in design.lines}
    assert lines[(LineRole.SERVER_LINK, "NVIDIA-MCP7Y00-N003")] == 8


@pytest.mark.django_db
def test_the_seed_designs_an_ethernet_roce_fabric_on_the_800g_switch(loaded_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")

    design = design_fabric(16, 8, 400, False, snapshot, production=False)

    assert design is not None
    assert design.unmet == ()
    assert (design.leaf_switches, design.spine_switches) == (1, 0)  # 128 x 400GbE on one SN5600
    assert {line.sku for line in design.lines if line.role == LineRole.LEAF} == {"NVIDIA-MSN5600"}


@pytest.mark.django_db
def test_the_seed_sizes_a_50_tb_shared_tier(loaded_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")

    design = design_shared_storage(50_000, 8_000, snapshot)

    assert design is not None
    assert (design.servers, design.lines[0].sku) == (1, "GPUQ-NFS-2U-12X15T")


@pytest.mark.django_db
def test_a_transceiver_with_two_ends_is_refused_and_nothing_is_written():
    entry = {
        "kind": "cable",
        "sku": "TEST-XCVR",
        "vendor": "NVIDIA",
        "model": "bad transceiver",
        "source": "https://docs.nvidia.com/networking/display/800gmma4z00nst/overview",
        "spec": {
            "cable_kind": "transceiver",
            "speed_gbps": 400,
            "infiniband": True,
            "ethernet": False,
            "length_m": "0.00",
            "ends": "switch_to_adapter",
            "links": 2,
            "power_w": "15.00",
        },
    }

    with pytest.raises(ValidationError, match="one cage"):
        catalog_load(parts=[entry])

    assert not Cable.objects.filter(sku="TEST-XCVR").exists()


# --- The migration of free-text form factors -----------------------------------------------------


def test_the_migration_turns_free_text_form_factors_into_codes():
    migration = importlib.import_module("catalog.migrations.0005_cluster_parts_drive_form_factor")
    saved: list[str] = []

    class Drive(SimpleNamespace):
        def save(self, update_fields):
            saved.append(self.form_factor)

    drives = [
        Drive(form_factor=text)
        for text in (
            "U.2",
            "M.2 2280",
            "E1.S",
            "U.3",
            "2.5in SATA",
            "3.5in SATA",
            "E3.S",
            "u2",
            "?",
        )
    ]
    manager = SimpleNamespace(all=lambda: drives)
    apps = SimpleNamespace(get_model=lambda *_: SimpleNamespace(objects=manager))

    migration.drive_form_factor_codes(apps, None)

    assert [d.form_factor for d in drives] == [
        "u2",
        "m2",
        "e1s",
        "u3",
        "sata",
        "lff",
        "e3s",
        "u2",
        "u2",
    ]
    assert len(saved) == 8  # the one already a code is left alone
