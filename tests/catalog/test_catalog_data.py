"""The seed catalog's data: availability, baseboards, sources, the vendors' own figures.

The file is read as data (every part, every price) and, loaded into the database, as the builder
sees it: what a customer is offered from it must be buildable and buyable.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from catalog.models import Chassis, Cpu, Gpu
from catalog.selectors import catalog_snapshot_get
from catalog.services import catalog_load
from engine.advice.pipeline import advise
from engine.build import rules
from engine.build.builder import (
    BuildNeeds,
    Environment,
    GpuFit,
    ServerConfiguration,
    check_configuration,
)
from engine.build.parts import Availability
from engine.workload import Task, Workload
from gpuquote.core.choices import values_of
from quotes.advice.presenters import option_to_dict

SEED_FILE = Path(__file__).resolve().parents[2] / "catalog" / "data" / "catalog.json"
SEED: list[dict[str, Any]] = json.loads(SEED_FILE.read_text(encoding="utf-8"))["parts"]
BY_SKU = {part["sku"]: part for part in SEED}
URL = re.compile(r"https?://\S+")
# A path on the machine that wrote the data, or a file that is not public: never a source.
PRIVATE = re.compile(
    r"(^|[\s(])(/work|/home|/tmp|\.\./|~/)|gpu_hosting_offers|hardware_prices\.csv"
)


# --- The file ------------------------------------------------------------------------------------


@pytest.mark.parametrize("part", SEED, ids=lambda part: part["sku"])
def test_every_part_says_whether_it_is_sold_new_and_how_long_it_takes(part):
    assert part["availability"] in values_of(Availability)
    assert isinstance(part["lead_time_weeks"], int)
    assert part["lead_time_weeks"] > 0
    source = part["availability_source"]
    assert "estimate" in source.lower() or URL.search(source)


def test_the_a100s_and_the_rtx_4090_are_end_of_life_and_the_rest_is_current():
    not_current = {part["sku"] for part in SEED if part["availability"] != "current"}

    assert not_current == {"NVIDIA-A100-SXM4-80GB", "NVIDIA-A100-PCIE-40GB", "NVIDIA-RTX4090-24GB"}


def test_every_sxm_or_oam_gpu_names_its_baseboard_and_a_chassis_is_built_for_it():
    boards_of_chassis = {
        board.strip()
        for part in SEED
        if part["kind"] == "chassis"
        for board in part["spec"]["baseboards"].split(",")
        if board.strip()
    }
    gpus = [part for part in SEED if part["kind"] == "gpu"]

    boards = {part["sku"]: part["spec"]["baseboard"] for part in gpus}

    assert boards == {
        "NVIDIA-H200-SXM5-141GB": "HGX-H100",
        "NVIDIA-H100-SXM5-80GB": "HGX-H100",
        "NVIDIA-H100-PCIE-80GB": "",
        "NVIDIA-H100-NVL-94GB": "",
        "NVIDIA-A100-SXM4-80GB": "HGX-A100",
        "NVIDIA-A100-PCIE-40GB": "",
        "NVIDIA-L40S-48GB": "",
        "NVIDIA-L4-24GB": "",
        "NVIDIA-RTX6000-ADA-48GB": "",
        "NVIDIA-RTX4090-24GB": "",
        "NVIDIA-RTX5090-32GB": "",
        "NVIDIA-B200-SXM-180GB": "HGX-B200",
        "AMD-MI300X-OAM-192GB": "OAM-MI300X",
        "AMD-MI325X-OAM-256GB": "OAM-MI300X",  # same UBB, 1,000 W: no chassis rated for it yet
    }
    assert set(boards.values()) - {""} <= boards_of_chassis


def test_the_hgx_h100_chassis_takes_no_a100_or_b200_board():
    spec = BY_SKU["SMC-SYS-821GE-TNHR"]["spec"]

    assert spec["baseboards"] == "HGX-H100"


@pytest.mark.parametrize(
    "gpu", [part for part in SEED if part["kind"] == "gpu"], ids=lambda part: part["sku"]
)
def test_a_gpu_has_fp8_figures_exactly_when_its_architecture_runs_fp8(gpu):
    spec = gpu["spec"]

    assert (spec["fp8_tflops"] is not None) is rules.runs_precision(spec["architecture"], "fp8")


def test_the_xeon_w7_3465x_is_a_workstation_cpu_not_a_server_grade_one():
    spec = BY_SKU["INTEL-XEON-W7-3465X"]["spec"]

    assert spec["server_grade"] is False


def test_the_power_supplies_follow_the_vendors_datasheets():
    hgx = BY_SKU["SMC-SYS-821GE-TNHR"]["spec"]
    pcie = BY_SKU["SMC-AS-4125GS-TNRT"]["spec"]

    assert (hgx["psu_count"], hgx["psu_w"], hgx["psu_redundant"]) == (6, 3000, 3)  # 3+3
    assert (pcie["psu_count"], pcie["psu_w"], pcie["psu_redundant"]) == (4, 2000, 2)  # 2+2


def test_no_amd_part_is_described_as_on_nvswitch():
    for sku in ("AMD-MI300X-OAM-192GB", "AMD-MI325X-OAM-256GB", "SMC-AS-8125GS-TNMR2"):
        notes = BY_SKU[sku]["notes"]
        assert "Infinity Fabric" in notes
        assert set(re.findall(r"(\w+),? NVSwitch", notes)) <= {"no", "not"}, notes


@pytest.mark.parametrize("part", SEED, ids=lambda part: part["sku"])
def test_every_source_is_a_public_document_or_an_estimate_with_its_basis(part):
    assert URL.search(part["source"]), part["source"]
    texts = [part["source"], part["notes"], part["availability_source"]]
    texts += [price["source"] for price in part["prices"]]
    for text in texts:
        assert not PRIVATE.search(text), text
    for price in part["prices"]:
        source = price["source"]
        # A market price cites its page; GPUQuote's own figures say they are estimates, or are
        # its managed-hosting tariff (a house price, its formula and calibration stated).
        house = source.startswith("GPUQuote managed tier")
        assert URL.search(source) or "estimate" in source.lower() or house, source
        assert price["observed_on"]  # the date the price was read


# --- Loading -------------------------------------------------------------------------------------


def _entry(**overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kind": "gpu",
        "sku": "TEST-A100-SXM4",
        "vendor": "NVIDIA",
        "model": "A100 SXM4 80GB",
        "source": "https://www.nvidia.com/en-us/data-center/a100/",
        "availability": "end_of_life",
        "lead_time_weeks": 6,
        "availability_source": "GPUQuote estimate: channel stock.",
        "spec": {
            "architecture": "Ampere",
            "memory_gb": 80,
            "memory_bandwidth_gbs": 2039,
            "bf16_tflops": "312.0",
            "fp8_tflops": None,
            "tdp_w": 400,
            "form_factor": "sxm",
            "baseboard": "HGX-A100",
            "ecc": True,
            "gpu_class": "datacenter",
            "pcie_gen": 4,
        },
    }
    return entry | overrides


@pytest.mark.django_db
def test_the_loader_reads_availability_lead_time_and_baseboard():
    catalog_load(parts=[_entry()])

    gpu = Gpu.objects.get(sku="TEST-A100-SXM4")
    assert (gpu.availability, gpu.lead_time_weeks, gpu.baseboard) == ("end_of_life", 6, "HGX-A100")
    assert gpu.availability_source == "GPUQuote estimate: channel stock."


@pytest.mark.django_db
def test_a_part_without_availability_data_loads_as_current_with_no_lead_time():
    entry = _entry()
    for key in ("availability", "lead_time_weeks", "availability_source"):
        del entry[key]

    catalog_load(parts=[entry])

    gpu = Gpu.objects.get(sku="TEST-A100-SXM4")
    assert (gpu.availability, gpu.lead_time_weeks, gpu.availability_source) == ("current", None, "")


@pytest.mark.django_db
def test_an_sxm_gpu_without_its_baseboard_is_refused_and_nothing_is_written():
    entry = _entry()
    entry["spec"] = entry["spec"] | {"baseboard": ""}

    with pytest.raises(Exception, match="baseboard"):
        catalog_load(parts=[entry])

    assert not Gpu.objects.filter(sku="TEST-A100-SXM4").exists()


@pytest.mark.django_db
def test_the_seed_loads_its_new_fields_into_the_snapshot(seed_catalog):
    w7 = Cpu.objects.get(sku="INTEL-XEON-W7-3465X")
    dell = Chassis.objects.get(sku="DELL-POWEREDGE-XE9680")
    snapshot = catalog_snapshot_get(currency="EUR")
    gpus = {gpu.sku: gpu for gpu in snapshot.gpus}
    chassis = {spec.sku: spec for spec in snapshot.chassis}

    assert w7.server_grade is False
    assert dell.baseboard_set == {"HGX-H100", "HGX-A100", "OAM-MI300X"}
    a100 = gpus["NVIDIA-A100-SXM4-80GB"]
    assert (a100.availability, a100.baseboard, a100.architecture) == (
        Availability.END_OF_LIFE,
        "HGX-A100",
        "Ampere",
    )
    assert chassis["SMC-SYS-821GE-TNHR"].baseboards == frozenset({"HGX-H100"})
    assert chassis["SMC-SYS-821GE-TNHR"].psu_redundant == 3


# --- The seed as the builder sees it -------------------------------------------------------------


def _configuration(snapshot: Any, gpu_sku: str, chassis_sku: str) -> ServerConfiguration:
    gpus = {gpu.sku: gpu for gpu in snapshot.gpus}
    chassis = {spec.sku: spec for spec in snapshot.chassis}
    cpus = {cpu.sku: cpu for cpu in snapshot.cpus}
    dimms = {dimm.sku: dimm for dimm in snapshot.memory}
    drives = {drive.sku: drive for drive in snapshot.drives}
    return ServerConfiguration(
        servers=1,
        chassis=chassis[chassis_sku],
        gpu=gpus[gpu_sku],
        gpu_count=8,
        cpu=cpus["INTEL-XEON-8462YP"] if "821GE" in chassis_sku else cpus["AMD-EPYC-9654"],
        cpu_count=2,
        dimm=dimms["DDR5-RDIMM-128GB-5600"],
        dimm_count=16,
        data_drive=drives["MICRON-9550PRO-7T68-U2"],
        data_drive_count=1,
    )


def _eight_gpu_needs(memory_per_gpu_gb: float) -> BuildNeeds:
    """A job for one 8-GPU baseboard, sharing the model (the builder's needs, without sizing)."""
    return BuildNeeds(
        gpus_for=lambda _gpu: GpuFit(gpus=8, memory_per_gpu_gb=memory_per_gpu_gb),
        environment=Environment.EXPERIMENT,
        model_sharded=True,
        large_project=True,
        storage_gb=1000.0,
        storage_read_mbs=1000.0,
        cpu_cores_min=16,
        interconnect_gbps_per_gpu=0,
    )


@pytest.mark.django_db
def test_an_a100_sxm4_in_the_hgx_h100_server_fails_the_chassis_rule(seed_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")
    needs = _eight_gpu_needs(memory_per_gpu_gb=40.0)

    checks = check_configuration(
        _configuration(snapshot, "NVIDIA-A100-SXM4-80GB", "SMC-SYS-821GE-TNHR"), needs
    )

    fit = next(check for check in checks if check.rule == rules.GPU_FIT_CHASSIS)
    assert not fit.passed
    assert "HGX-A100" in fit.detail.render()


@pytest.mark.django_db
def test_an_mi300x_server_says_infinity_fabric_not_nvswitch(seed_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")
    needs = _eight_gpu_needs(memory_per_gpu_gb=100.0)

    checks = check_configuration(
        _configuration(snapshot, "AMD-MI300X-OAM-192GB", "SMC-AS-8125GS-TNMR2"), needs
    )

    texts = [check.detail.render() for check in checks]
    nvlink = next(check for check in checks if check.rule == rules.NVLINK)
    assert nvlink.passed
    assert "Infinity Fabric" in nvlink.detail.render()
    assert not any("NVSwitch" in text for text in texts)


@pytest.mark.django_db
def test_an_option_from_the_seed_carries_each_part_availability_in_its_dict(seed_catalog):
    snapshot = catalog_snapshot_get(currency="EUR")
    workload = Workload(task=Task.INFERENCE, model="llama-3.1-8b")

    advice = advise(workload, snapshot, environment=Environment.EXPERIMENT)

    assert advice.build.options
    for option in advice.build.options:
        parts = option_to_dict(option)["parts"]
        assert all(part["availability"] in values_of(Availability) for part in parts)
        assert all(isinstance(part["lead_time_weeks"], int) for part in parts)
        # Current parts do this job: nothing end-of-life is offered.
        assert {part["availability"] for part in parts} == {"current"}
