"""What can be built and bought: baseboard generations, number formats, parts that are not new.

An SXM/OAM GPU fits only a chassis built for its baseboard; a GPU that cannot run the job's number
format gets no fit; an end-of-life or refurbished part is used only when no current part does the
job, and its part line says so; a workstation CPU is for a tower, in experiments only.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.advice.pipeline import build_needs
from engine.build import rules
from engine.build.builder import (
    BuildNeeds,
    Environment,
    GpuFit,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
)
from engine.build.parts import Availability, FormFactor
from engine.workload import Precision, Task, Workload
from tests.engine import catalog_factory as make

# --- Helpers -------------------------------------------------------------------------------------


def needs(**overrides: Any) -> BuildNeeds:
    """An 8-GPU job whose GPUs share the model; every GPU model fits at 8 GPUs of 60 GB."""
    fields: dict[str, Any] = {
        "gpus_for": lambda _gpu: GpuFit(gpus=8, memory_per_gpu_gb=60.0),
        "environment": Environment.EXPERIMENT,
        "model_sharded": True,
        "large_project": True,
        "storage_gb": 2000.0,
        "storage_read_mbs": 2000.0,
        "cpu_cores_min": 16,
        "interconnect_gbps_per_gpu": 400,
    }
    return BuildNeeds(**(fields | overrides))


def server_parts() -> tuple[Any, ...]:
    """CPUs, DIMMs and drives that fit the factory's HGX and PCIe chassis."""
    return (
        make.cpu(),
        make.epyc_9354(),
        make.xeon_4410y(),
        make.dimm_gb(64, 300),
        make.dimm_gb(128, 700),
        make.drive(),
        make.boot_ssd(),
    )


def a100_sxm4(**overrides: Any) -> Any:
    fields: dict[str, Any] = {
        "sku": "GPU-A100-SXM4",
        "name": "A100 SXM4 80GB",
        "memory_bandwidth_gbs": 2039.0,
        "bf16_tflops": 312.0,
        "fp8_tflops": None,
        "tdp_w": 400,
        "nvlink_gbs": 600.0,
        "pcie_gen": 4,
        "architecture": "Ampere",
        "baseboard": "HGX-A100",
        "price": 9000,
    }
    return make.gpu(**(fields | overrides))


def hgx_h100_chassis(**overrides: Any) -> Any:
    return make.chassis(sku="CH-HGX-H100", name="HGX H100 8-GPU", **overrides)


def gpu_skus(result: Any) -> set[str]:
    return {line.sku for option in result.options for line in option.parts if line.kind == "gpu"}


def chassis_sku(option: Any) -> str:
    return next(line.sku for line in option.parts if line.kind == "chassis")


# --- Baseboard generations -----------------------------------------------------------------------


def test_an_a100_sxm4_never_lands_in_an_hgx_h100_chassis_even_when_cheaper():
    # Given a cheap A100 SXM4 (HGX A100 board), a dearer H100 SXM and only an HGX H100 chassis
    catalog = make.snapshot(a100_sxm4(), make.h100_sxm(), hgx_h100_chassis(), *server_parts())

    # When the builder runs
    result = build_options(needs(), catalog)

    # Then every option carries the H100, never the A100
    assert result.options
    assert gpu_skus(result) == {"GPU-H100-SXM"}
    assert {chassis_sku(option) for option in result.options} == {"CH-HGX-H100"}


def test_an_a100_sxm4_goes_in_a_chassis_built_for_its_baseboard():
    hgx_a100 = make.chassis(
        sku="CH-HGX-A100", name="HGX A100 8-GPU", baseboards=frozenset({"HGX-A100"}), price=40000
    )
    catalog = make.snapshot(
        a100_sxm4(), make.h100_sxm(), hgx_h100_chassis(), hgx_a100, *server_parts()
    )

    [budget, *_] = build_options(needs(), catalog).options

    assert budget.tier is Tier.BUDGET
    assert [line.sku for line in budget.parts[:2]] == ["CH-HGX-A100", "GPU-A100-SXM4"]


def test_without_a_chassis_for_its_baseboard_the_gpu_is_not_offered_and_the_reason_names_it():
    catalog = make.snapshot(a100_sxm4(), hgx_h100_chassis(), *server_parts())

    result = build_options(needs(), catalog)

    assert result.options == ()
    assert [message.render() for message in result.unmet] == [
        "The A100 SXM4 80GB comes on an HGX-A100 baseboard and no chassis is built for it: add an "
        "HGX-A100 server, or choose a GPU for the chassis the catalog has."
    ]


def test_the_chassis_rule_fails_an_a100_sxm4_in_an_hgx_h100_chassis_with_both_baseboards():
    config = ServerConfiguration(
        servers=1,
        chassis=hgx_h100_chassis(),
        gpu=a100_sxm4(),
        gpu_count=8,
        cpu=make.cpu(),
        cpu_count=2,
        dimm=make.dimm_gb(128, 700),
        dimm_count=24,
        data_drive=make.drive(),
        data_drive_count=1,
    )

    checks = {check.rule: check for check in check_configuration(config, needs())}

    fit = checks[rules.GPU_FIT_CHASSIS]
    assert fit.passed is False
    assert fit.detail.render() == (
        "The A100 SXM4 80GB comes on an HGX-A100 baseboard; the HGX H100 8-GPU is built for "
        "HGX-H100 baseboards only."
    )


def test_pcie_cards_have_no_baseboard_to_match():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *server_parts())

    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=2, memory_per_gpu_gb=30.0), model_sharded=False)

    result = build_options(job, catalog)

    assert gpu_skus(result) == {"GPU-L40S"}


def test_an_amd_baseboard_is_never_described_as_nvswitch():
    mi300x = make.gpu(
        sku="GPU-MI300X",
        name="Instinct MI300X",
        vendor="AMD",
        memory_gb=192.0,
        tdp_w=750,
        form_factor=FormFactor.OAM,
        nvlink_gbs=896.0,
        architecture="CDNA 3",
        baseboard="OAM-MI300X",
    )
    oam = make.chassis(
        sku="CH-OAM",
        name="8x OAM server",
        gpu_form_factors=frozenset({FormFactor.OAM}),
        baseboards=frozenset({"OAM-MI300X"}),
        max_gpu_tdp_w=750,
        psu_w=6000,
        max_system_power_w=20000,
    )
    catalog = make.snapshot(mi300x, oam, *server_parts())

    [option, *_] = build_options(needs(), catalog).options

    nvlink = next(check for check in option.checks if check.rule == rules.NVLINK)
    assert nvlink.passed
    assert nvlink.detail.render() == (
        "The Infinity Fabric mesh of the baseboard links the 8 GPUs all-to-all at 896 GB/s each."
    )


# --- Number formats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("architecture", "precision", "runs"),
    [
        ("Ampere", "fp8", False),
        ("Ampere", "bf16", True),
        ("Hopper", "fp8", True),
        ("Ada Lovelace", "fp8", True),
        ("Blackwell Ultra", "fp8", True),  # a family's later names belong to it
        ("CDNA 3", "fp8", True),
        ("CDNA 2", "fp8", False),
        ("CDNA 2", "bf16", True),
        ("Volta", "bf16", False),
        ("Turing", "int4", True),
        ("Volta", "fp16", True),  # FP16 and FP32 run everywhere
        ("Unknown", "fp32", True),
        ("Unknown", "bf16", False),
        ("Ampere", "", True),  # no number format asked
    ],
)
def test_which_architecture_runs_which_number_format(architecture, precision, runs):
    assert rules.runs_precision(architecture, precision) is runs


def test_an_fp8_workload_gets_no_fit_on_an_ampere_gpu():
    workload = Workload(task=Task.INFERENCE, model="llama-3.1-8b", precision=Precision.FP8)

    _sizing, fp8_needs = build_needs(workload, environment=Environment.EXPERIMENT, currency="EUR")

    assert fp8_needs.precision == "fp8"
    assert fp8_needs.gpus_for(make.a100_pcie()) is None
    assert fp8_needs.gpus_for(make.h100_nvl()) is not None


def test_an_fp8_job_is_never_built_on_ampere_and_the_gpu_check_names_fp8():
    catalog = make.snapshot(
        make.a100_pcie(price=5000), make.h100_nvl(), make.pcie_chassis(), *server_parts()
    )
    job = needs(
        gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=40.0),
        model_sharded=False,
        precision="fp8",
    )

    result = build_options(job, catalog)

    assert gpu_skus(result) == {"GPU-H100-NVL"}
    precision = next(c for c in result.options[0].checks if c.rule == rules.GPU_PRECISION)
    assert precision.passed
    assert precision.detail.render() == "The H100 NVL (Hopper) runs FP8."


def test_when_only_ampere_gpus_are_offered_the_unmet_text_names_fp8():
    catalog = make.snapshot(make.a100_pcie(), make.pcie_chassis(), *server_parts())
    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=40.0), precision="fp8")

    result = build_options(job, catalog)

    assert result.options == ()
    assert [message.render() for message in result.unmet] == [
        "The A100 80GB PCIe (Ampere) cannot run FP8: FP8 needs one of these GPU architectures: "
        "Ada Lovelace, Hopper, Blackwell, CDNA 3, CDNA 4."
    ]


# --- Parts that are not new ----------------------------------------------------------------------


def test_an_end_of_life_gpu_is_left_out_at_every_tier_while_a_current_one_does_the_job():
    old = make.h100_nvl(
        sku="GPU-OLD", name="Old card", price=1000, availability=Availability.END_OF_LIFE
    )
    catalog = make.snapshot(old, make.l40s(), make.pcie_chassis(), *server_parts())
    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=30.0), model_sharded=False)

    result = build_options(job, catalog)

    assert gpu_skus(result) == {"GPU-L40S"}
    assert all(
        line.availability is Availability.CURRENT
        for option in result.options
        for line in option.parts
    )


def test_an_end_of_life_gpu_is_used_and_labelled_when_no_current_part_does_the_job():
    old = make.h100_nvl(
        sku="GPU-OLD",
        name="Old card",
        availability=Availability.END_OF_LIFE,
        lead_time_weeks=6,
    )

    def fits(gpu: Any) -> GpuFit | None:  # only the old card has the memory for the job
        return GpuFit(gpus=1, memory_per_gpu_gb=80.0) if gpu.memory_gb >= 90 else None

    catalog = make.snapshot(old, make.l40s(), make.pcie_chassis(), *server_parts())

    result = build_options(needs(gpus_for=fits, model_sharded=False), catalog)

    assert result.options
    for option in result.options:
        line = next(line for line in option.parts if line.kind == "gpu")
        assert (line.sku, line.availability, line.lead_time_weeks) == (
            "GPU-OLD",
            Availability.END_OF_LIFE,
            6,
        )
        others = [line for line in option.parts if line.kind != "gpu"]
        assert all(line.availability is Availability.CURRENT for line in others)


def test_a_refurbished_dimm_is_used_only_when_no_current_dimm_fits():
    refurbished = make.dimm_gb(128, 100, sku="DIMM-REFURB", availability=Availability.REFURBISHED)
    catalog = make.snapshot(
        make.l40s(), make.pcie_chassis(), make.xeon_4410y(), make.drive(), make.dimm_gb(128, 700)
    )
    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=30.0), model_sharded=False)

    current_only = build_options(job, catalog)
    with_refurbished = build_options(job, make.snapshot(*_parts_of(catalog), refurbished))
    refurbished_only = build_options(
        job,
        make.snapshot(
            make.l40s(), make.pcie_chassis(), make.xeon_4410y(), make.drive(), refurbished
        ),
    )

    def dimm(result: Any) -> str:
        return next(line.sku for line in result.options[0].parts if line.kind == "memory")

    assert dimm(current_only) == dimm(with_refurbished) == "DIMM-DDR5-128"
    assert dimm(refurbished_only) == "DIMM-REFURB"
    line = next(line for line in refurbished_only.options[0].parts if line.kind == "memory")
    assert line.availability is Availability.REFURBISHED


def _parts_of(catalog: Any) -> tuple[Any, ...]:
    return (
        *catalog.gpus,
        *catalog.cpus,
        *catalog.memory,
        *catalog.drives,
        *catalog.nics,
        *catalog.chassis,
    )


# --- Workstation CPUs ----------------------------------------------------------------------------


def _tower_catalog() -> Any:
    tower = make.pcie_chassis(
        sku="CH-TOWER",
        name="W790 workstation",
        rack_mount=False,
        cpu_sockets=1,
        cpu_socket_type="LGA4677-W790",
        psu_w=2200,
        max_system_power_w=2200,
    )
    xeon_w = make.cpu(
        sku="CPU-XEON-W7",
        name="Xeon w7-3465X",
        vendor="Intel",
        socket="LGA4677-W790",
        cores=28,
        threads=56,
        tdp_w=300,
        memory_channels=8,
        max_memory_gb=4096,
        pcie_lanes=112,
        server_grade=False,
        price=2500,
    )
    return make.snapshot(
        make.rtx_4090(), tower, xeon_w, make.dimm_gb(64, 300), make.drive(), make.boot_ssd()
    )


def test_a_workstation_cpu_is_allowed_in_a_tower_for_an_experiment_with_a_caveat():
    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=20.0), model_sharded=False)

    [option, *_] = build_options(job, _tower_catalog()).options

    cpu_check = next(c for c in option.checks if c.rule == rules.CPU_SERVER_GRADE)
    assert (cpu_check.passed, cpu_check.warning) == (True, True)
    assert cpu_check.detail.render() == (
        "Experiment: 1 x Xeon w7-3465X, a workstation CPU, in the 1 LGA4677-W790 sockets of the "
        "W790 workstation tower; a rack server needs a server-grade CPU."
    )


def test_a_workstation_cpu_never_goes_in_a_rack_server():
    xeon_w = make.xeon_4410y(sku="CPU-W", name="Workstation Xeon", server_grade=False)
    catalog = make.snapshot(
        make.l40s(), make.pcie_chassis(), xeon_w, make.dimm_gb(64, 300), make.drive()
    )
    job = needs(gpus_for=lambda _gpu: GpuFit(gpus=1, memory_per_gpu_gb=30.0), model_sharded=False)

    result = build_options(job, catalog)

    assert result.options == ()
    assert [message.render() for message in result.unmet] == [
        "The 2U 4-GPU PCIe takes LGA4677 CPUs and the catalog offers no server-grade one: add "
        "one, or a chassis for another socket."
    ]
