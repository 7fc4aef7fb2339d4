"""The configuration builder on small hand-made catalogs: exact parts, prices and sentences.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engine import rules
from engine.builder import (
    BuildNeeds,
    Check,
    Environment,
    GpuFit,
    Option,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
)
from engine.parts import Cooling, FormFactor
from tests.engine import catalog_factory as make

# --- Helpers -------------------------------------------------------------------------------------


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


def lines(option: Option) -> list[tuple[str, str, int, str, str]]:
    return [
        (p.kind, p.sku, p.quantity, str(p.unit_price.rounded().amount), p.role)
        for p in option.parts
    ]


def check(option: Option | tuple[Check, ...], rule: str) -> Check:
    checks = option.checks if isinstance(option, Option) else option
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


def nvl_chassis(**overrides: Any) -> Any:
    fields = {"sku": "CH-PCIE-4-NVL", "name": "2U 4-GPU NVLink", "nvlink_bridge": True}
    return make.pcie_chassis(**(fields | {"price": 14000} | overrides))


# --- Training on SXM: the HGX chassis ------------------------------------------------------------


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


def test_training_on_eight_h100_sxm_picks_the_hgx_chassis():
    # Given an 8 x H100 SXM training job (the L40S cannot run it) in production
    result = build_options(hgx_needs(), hgx_catalog())

    # Then one server: the HGX baseboard, 2 x 16 cores (>= 4 per GPU), RAM >= 2 x 640 GB as
    # 24 x 64 GB (one per channel of 2 x 12), 20 TB at 10 GB/s on 3 x 7.68 TB, a boot mirror.
    # Comfort changes nothing here, so balanced and performance collapse into budget.
    assert result.unmet == ()
    [option] = result.options
    assert option.tier is Tier.BUDGET
    assert option.servers == 1
    assert lines(option) == [
        ("chassis", "CH-HGX-8", 1, "60000.00", ""),
        ("gpu", "GPU-H100-SXM", 8, "25000.00", ""),
        ("cpu", "CPU-EPYC-9124", 2, "1200.00", ""),
        ("memory", "DIMM-DDR5-64", 24, "300.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 3, "900.00", "data"),
    ]
    # 60,000 + 8 x 25,000 + 2 x 1,200 + 24 x 300 + 2 x 120 + 3 x 900
    assert option.totals.price == make.eur("272540.00")
    # 8 x 700 + 2 x 200 + 24 x 8 + 3 x 25 + 1,500 base = 7,767 W; x 1.25 = 9,708.75
    assert (option.totals.power_w, option.totals.power_sized_w) == (7767, 9709)
    assert (option.totals.gpus, option.totals.vram_gb, option.totals.ram_gb) == (8, 640.0, 1536)
    assert (option.totals.storage_gb, option.totals.rack_units) == (23040.0, 8)
    assert [c.rule for c in option.checks] == list(rules.RULE_ORDER)
    assert all(c.passed and not c.warning for c in option.checks)
    assert check(option, rules.NVLINK).detail.render() == (
        "NVSwitch links the 8 GPUs at 900 GB/s each."
    )
    assert check(option, rules.POWER).detail.render() == (
        "7767 W at full load per server, 9709 W sized (x1.25, with 0 growth GPUs), within the "
        "10200 W allowed by 4 usable supplies of 3000 W and the chassis maximum of 10200 W."
    )


def test_two_servers_when_the_job_needs_sixteen_sxm_gpus():
    # Given 16 x H100 SXM, 96 cores and 40 TB for the whole job, 400 Gb/s per GPU between nodes
    catalog = make.snapshot(
        make.h100_sxm(),
        make.chassis(),
        *hgx_parts(),
        make.nic(),  # 1 x 400G InfiniBand/RoCE, 2,000
        make.nic(sku="NIC-2x200", name="2 x 200G", speed_gbps=200, ports=2, price=1500),
        make.nic(
            sku="NIC-ETH",
            name="100G Ethernet",
            speed_gbps=100,
            infiniband=False,
            roce=False,
            price=300,
        ),
    )
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)), cpu_cores_min=96, storage_gb=40000.0)

    [option] = build_options(job, catalog).options

    # Then 2 identical servers, each with 8 x 400G ports (the 200G and Ethernet cards do not
    # qualify), 2 x 32 cores for its 48-core share, and half the storage (20 TB on 3 drives)
    assert option.servers == 2
    assert lines(option) == [
        ("chassis", "CH-HGX-8", 1, "60000.00", ""),
        ("gpu", "GPU-H100-SXM", 8, "25000.00", ""),
        ("cpu", "CPU-EPYC-9354", 2, "3000.00", ""),
        ("memory", "DIMM-DDR5-64", 24, "300.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 3, "900.00", "data"),
        ("nic", "NIC-CX7-400", 8, "2000.00", ""),
    ]
    # per server 60,000 + 200,000 + 6,000 + 7,200 + 240 + 2,700 + 16,000 = 292,140
    assert option.totals.price == make.eur("584280.00")
    assert option.totals.gpus == 16
    assert check(option, rules.INTERCONNECT).detail.render() == (
        "8 x ConnectX-7 400G: 8 InfiniBand ports at 400 Gb/s for 8 GPUs (400 Gb/s needed per GPU)."
    )
    assert check(option, rules.CPU_CORES).detail.render() == (
        "64 cores per server for the 48 needed (at least 8, 4 per GPU, 48 as the job's share)."
    )
    # 8,127 W x 1.25 = 10,158.75: just within the chassis' 10,200 W
    assert (option.totals.power_w, option.totals.power_sized_w) == (8127, 10159)


def test_budget_below_the_cheapest_configuration_is_unmet_with_both_figures():
    result = build_options(hgx_needs(budget=make.eur(50000)), hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "The budget of 50000.00 EUR is below the cheapest configuration that passes every rule, "
        "272540.00 EUR: 1 x HGX H100 8-GPU with 8 x H100 SXM each."
    ]


def test_no_chassis_for_sxm_gpus_is_unmet_and_says_what_to_add():
    catalog = make.snapshot(make.h100_sxm(), make.pcie_chassis(), *pcie_parts())

    result = build_options(hgx_needs(), catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "No chassis takes SXM GPUs such as the H100 SXM: add a chassis with SXM slots."
    ]


def test_multi_node_without_a_fabric_nic_is_unmet():
    catalog = make.snapshot(make.h100_sxm(), make.chassis(), *hgx_parts())
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)))

    result = build_options(job, catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "2 servers of 8 x H100 SXM need an InfiniBand or RoCE port of 400 Gb/s per GPU, and the "
        "catalog offers no such NIC: add one."
    ]


def test_a_job_too_large_for_the_usable_memory_names_the_gpu_size_that_would_fit():
    # 75 GB per GPU on an 80 GB card: only 72 GB (90 %) are usable
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(1, 75.0)))

    result = build_options(job, hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "The job cannot run on the L40S (48 GB) at any GPU count: it needs GPUs with more memory.",
        "On 1 x H100 SXM the job needs 75 GB per GPU, more than the 72 GB usable: a GPU of at "
        "least 84 GB would fit.",
    ]


# --- Sharing a model over two PCIe cards: NVLink ------------------------------------------------


def nvlink_catalog(*chassis: Any) -> Any:
    return make.snapshot(make.a100_pcie(), make.l40s(), *chassis, *pcie_parts())


# A 70B model in 16-bit: 140 GB of weights, ~70 GB per GPU on two 80 GB cards, or four L40S
# (which have no NVLink at all).
SEVENTY_B = fits(GPU_A100_80_PCIE=(2, 70.0), GPU_L40S=(4, 40.0))


def test_seventy_b_inference_on_two_80gb_cards_needs_an_nvlink_bridge():
    catalog = nvlink_catalog(make.pcie_chassis(), nvl_chassis())

    result = build_options(needs(SEVENTY_B, model_sharded=True), catalog)

    # Then both A100s sit in the bridged chassis (one card per server would need a fabric NIC)
    budget, balanced = result.options
    assert lines(budget) == [
        ("chassis", "CH-PCIE-4-NVL", 1, "14000.00", ""),
        ("gpu", "GPU-A100-80-PCIE", 2, "15000.00", ""),
        ("cpu", "CPU-XEON-4410Y", 2, "1000.00", ""),
        ("memory", "DIMM-DDR5-32", 16, "150.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 1, "900.00", "data"),
    ]
    assert budget.totals.price == make.eur("49540.00")
    assert check(budget, rules.NVLINK).detail.render() == (
        "An NVLink bridge joins the 2 GPUs at 600 GB/s."
    )
    # Balanced: the same GPUs with twice the read throughput (2 x 7,000 >= 2 x 6,000 MB/s)
    assert balanced.tier is Tier.BALANCED
    assert lines(balanced)[-1] == ("drive", "NVME-7.68", 2, "900.00", "data")
    assert balanced.totals.price == make.eur("50440.00")


def test_the_same_cards_in_a_chassis_without_bridges_fail_the_nvlink_check():
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.a100_pcie(),
        gpu_count=2,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
        boot_drive=make.boot_ssd(),
        boot_drive_count=2,
    )

    checks = check_configuration(config, needs(SEVENTY_B, model_sharded=True))

    assert [c.rule for c in checks if not c.passed] == [rules.NVLINK]
    assert check(checks, rules.NVLINK).detail.render() == (
        "The 2U 4-GPU PCIe has neither NVSwitch nor NVLink bridges to link 2 GPUs that share one "
        "model."
    )


def test_without_any_nvlink_chassis_the_unmet_reasons_name_nvlink():
    result = build_options(
        needs(SEVENTY_B, model_sharded=True), nvlink_catalog(make.pcie_chassis())
    )

    assert result.options == ()
    assert (
        "2 x A100 80GB PCIe in one server share the model and need NVLink (NVSwitch, or a bridge "
        "for 2 cards), which no chassis offers for them: add such a chassis."
    ) in rendered(result.unmet)


# --- Production and experiments -----------------------------------------------------------------


def consumer_catalog(*gpus: Any) -> Any:
    return make.snapshot(*gpus, make.pcie_chassis(), *pcie_parts())


SMALL_JOB = fits(GPU_RTX_4090=(2, 20.0), GPU_L40S=(1, 30.0))


def test_production_rejects_the_rtx_4090():
    result = build_options(needs(SMALL_JOB), consumer_catalog(make.rtx_4090(), make.l40s()))

    # 12,000 + 8,000 + 2 x 1,000 + 16 x 80 (256 GB >= 2 x 48) + 2 x 120 + 900
    assert [(o.tier, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, make.eur("24420.00")),
        (Tier.BALANCED, make.eur("25320.00")),  # a second drive for twice the throughput
    ]
    assert all(check(o, rules.PRODUCTION_GPU).passed for o in result.options)
    assert {p.sku for o in result.options for p in o.parts if p.kind == "gpu"} == {"GPU-L40S"}


def test_production_with_only_consumer_cards_is_unmet():
    result = build_options(needs(SMALL_JOB), consumer_catalog(make.rtx_4090()))

    assert result.options == ()
    assert rendered(result.unmet) == [
        "Production needs a datacenter GPU with ECC; the RTX 4090 is a consumer GPU without ECC."
    ]


def test_an_experiment_may_use_two_rtx_4090_flagged_without_ecc():
    job = needs(SMALL_JOB, environment=Environment.EXPERIMENT)

    result = build_options(job, consumer_catalog(make.rtx_4090(), make.l40s()))

    # 12,000 + 2 x 1,800 + 2 x 1,000 + 16 x 80 + 900, no boot mirror outside production
    budget = result.options[0]
    assert budget.totals.price == make.eur("19780.00")
    assert [p.sku for p in budget.parts if p.kind == "gpu"] == ["GPU-RTX-4090"]
    assert not any(p.role == "boot" for p in budget.parts)
    ecc = check(budget, rules.PRODUCTION_GPU)
    assert (ecc.passed, ecc.warning) == (True, True)
    assert ecc.detail.render() == (
        "Experiment: the RTX 4090 (consumer) is allowed, with no ECC: a memory error can go "
        "unnoticed."
    )


def test_at_most_two_consumer_cards_per_server_spreads_four_over_two_servers():
    catalog = make.snapshot(
        make.rtx_4090(),
        make.pcie_chassis(),
        *pcie_parts(),
        make.nic(
            sku="NIC-100-2P",
            name="2 x 100G RoCE",
            speed_gbps=100,
            ports=2,
            infiniband=False,
            price=700,
        ),
    )
    job = needs(
        fits(GPU_RTX_4090=(4, 20.0)),
        environment=Environment.EXPERIMENT,
        interconnect_gbps_per_gpu=100,
    )

    [option] = build_options(job, catalog).options

    # Per server: 12,000 + 2 x 1,800 + 2,000 + 16 x 80 + one 2-port NIC 700, and for half the
    # job's 4 TB at 3,000 MB/s five 480 GB NVMe sticks (600) beat one 7.68 TB drive (900)
    assert option.servers == 2
    assert ("drive", "M2-480", 5, "120.00", "data") in lines(option)
    assert option.totals.price == make.eur("40360.00")
    assert check(option, rules.CONSUMER_LIMIT).detail.render() == (
        "2 consumer cards per server, within the limit of 2."
    )
    four = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.rtx_4090(),
        gpu_count=4,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(16, 80),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
    )
    assert check(check_configuration(four, job), rules.CONSUMER_LIMIT).passed is False


def test_production_needs_a_spare_power_supply():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(psu_redundant=0), *pcie_parts())

    production = build_options(needs(SMALL_JOB), catalog)
    experiment = build_options(needs(SMALL_JOB, environment=Environment.EXPERIMENT), catalog)

    assert rendered(production.unmet) == [
        "No chassis for the L40S has a spare power supply, which production needs: add an N+1 "
        "PCIe chassis."
    ]
    assert experiment.options != ()
    assert check(experiment.options[0], rules.REDUNDANT_PSU).detail.render() == (
        "Experiment: redundancy not required (N+0)."
    )


# --- Memory --------------------------------------------------------------------------------------


FOUR_L40S = fits(GPU_L40S=(4, 40.0))


def test_ram_is_twice_the_vram_rounded_up_to_one_dimm_per_channel():
    # 4 x 48 GB = 192 GB of VRAM -> 384 GB; 2 sockets x 8 channels = 16 DIMMs:
    # 16 x 16 GB = 256 is short, 32 x 16 GB (1,920 at 2 per channel) costs more than 16 x 32 GB
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())

    budget = build_options(needs(FOUR_L40S), catalog).options[0]

    assert ("memory", "DIMM-DDR5-32", 16, "150.00", "") in lines(budget)
    assert budget.totals.ram_gb == 512
    assert check(budget, rules.SYSTEM_RAM).detail.render() == (
        "512 GB of RAM per server for the 384 GB needed (2 x 192 GB of GPU memory)."
    )
    assert check(budget, rules.MEMORY_POPULATION).detail.render() == (
        "16 x 32 GB DDR5, one per channel on all 16 channels."
    )


def test_two_dimms_per_channel_pass_with_a_warning_and_balanced_avoids_them():
    # Given 16 GB DIMMs cheap enough that 32 of them (2 per channel) beat 16 x 32 GB
    parts = [p for p in pcie_parts() if p.sku != "DIMM-DDR5-16"] + [make.dimm_gb(16, 60)]
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *parts)

    budget, balanced = build_options(needs(FOUR_L40S), catalog).options

    assert ("memory", "DIMM-DDR5-16", 32, "60.00", "") in lines(budget)
    population = check(budget, rules.MEMORY_POPULATION)
    assert (population.passed, population.warning) == (True, True)
    assert population.detail.render() == (
        "32 x 16 GB DDR5 fill the 16 channels evenly, but 2 DIMMs per channel lower the memory "
        "clock."
    )
    assert ("memory", "DIMM-DDR5-32", 16, "150.00", "") in lines(balanced)
    assert check(balanced, rules.MEMORY_POPULATION).warning is False


def test_memory_of_the_wrong_generation_or_uneven_count_fails():
    job = needs(FOUR_L40S)
    base = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.l40s(),
        gpu_count=4,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
        boot_drive=make.boot_ssd(),
        boot_drive_count=2,
    )
    ddr4 = make.dimm(sku="DIMM-DDR4-64", name="64 GB DDR4", ddr_generation=4)
    uneven = ServerConfiguration(**{**_fields(base), "dimm_count": 12})
    wrong_generation = ServerConfiguration(**{**_fields(base), "dimm": ddr4})

    assert all(c.passed for c in check_configuration(base, job))
    assert check(check_configuration(uneven, job), rules.MEMORY_POPULATION).detail.render() == (
        "12 DIMMs cannot fill the 16 channels (2 CPUs x 8) evenly."
    )
    assert (
        check(check_configuration(wrong_generation, job), rules.MEMORY_POPULATION).detail.render()
        == "The 64 GB DDR4 is DDR4; the 2U 4-GPU PCIe takes DDR5."
    )


def _fields(config: ServerConfiguration) -> dict[str, Any]:
    return {name: getattr(config, name) for name in ServerConfiguration.__slots__}


# --- Power, cooling, growth ----------------------------------------------------------------------


def test_power_counts_every_part_with_the_margin_and_without_the_spare_supply():
    # 4 x L40S 1,400 + 2 x 150 + 16 x 8 + 25 + 300 base = 2,153 W; x 1.25 = 2,692 W > 2,400 W
    small = make.pcie_chassis(psu_w=2400, max_system_power_w=4800)
    config = ServerConfiguration(
        servers=1,
        chassis=small,
        gpu=make.l40s(),
        gpu_count=4,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
        boot_drive=make.boot_ssd(),
        boot_drive_count=2,
    )

    production = check(check_configuration(config, needs(FOUR_L40S)), rules.POWER)
    experiment = check(
        check_configuration(config, needs(FOUR_L40S, environment=Environment.EXPERIMENT)),
        rules.POWER,
    )

    assert production.passed is False
    assert production.detail.render() == (
        "2153 W at full load per server, 2692 W sized (x1.25, with 0 growth GPUs), more than the "
        "2400 W allowed by 1 usable supplies of 2400 W and the chassis maximum of 4800 W."
    )
    assert experiment.passed is True  # both supplies count: 4,800 W


def test_gpus_above_1000_w_need_a_liquid_cooled_chassis():
    hot = make.gpu(sku="GPU-HOT", name="B300 SXM", tdp_w=1200, memory_gb=192.0, price=40000)
    # 2 x 192 GB x 8 = 3,072 GB of RAM: 48 x 64 GB at two per channel
    air = make.chassis(max_gpu_tdp_w=1200, max_system_power_w=20000, psu_w=4000, dimm_slots=48)
    job = hgx_needs(gpus_for=fits(GPU_HOT=(8, 150.0)))

    unmet = build_options(job, make.snapshot(hot, air, *hgx_parts())).unmet
    liquid = make.chassis(
        sku="CH-HGX-LIQUID",
        name="HGX liquid",
        cooling=Cooling.LIQUID,
        max_gpu_tdp_w=1200,
        max_system_power_w=20000,
        psu_w=4000,
        dimm_slots=48,
        price=80000,
    )
    options = build_options(job, make.snapshot(hot, air, liquid, *hgx_parts())).options

    assert rendered(unmet) == [
        "The B300 SXM draws 1200 W and needs liquid cooling: add a liquid-cooled SXM chassis."
    ]
    assert [p.sku for p in options[0].parts if p.kind == "chassis"] == ["CH-HGX-LIQUID"]
    assert check(options[0], rules.COOLING).detail.render() == (
        "The HGX liquid (liquid cooling) is rated for 1200 W per GPU; the B300 SXM draws 1200 W."
    )


def test_growth_slots_stay_free_and_are_powered_now():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())
    job = needs(fits(GPU_L40S=(2, 40.0)), growth_gpus=2)

    budget = build_options(job, catalog).options[0]

    assert check(budget, rules.GPU_FIT_CHASSIS).detail.render() == (
        "2 PCIe GPUs in the 4 slots of the 2U 4-GPU PCIe, 2 free (2 kept for growth)."
    )
    # 2 x 350 + 300 + 16 x 8 + 25 + 300 = 1,453 W; with 2 more L40S: 2,153 W x 1.25 = 2,692
    assert (budget.totals.power_w, budget.totals.power_sized_w) == (1453, 2692)
    assert check(budget, rules.PCIE_LANES).detail.render() == (
        "68 PCIe lanes needed (GPUs and growth slots 64, NICs 0, NVMe 4); the CPUs provide 160."
    )


def test_growth_is_impossible_on_a_fully_populated_baseboard():
    result = build_options(hgx_needs(growth_gpus=1), hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "SXM baseboards are always fully populated, so no slot stays free for growth next to the "
        "H100 SXM: ask for no growth or choose PCIe GPUs.",
        "The job cannot run on the L40S (48 GB) at any GPU count: it needs GPUs with more memory.",
    ]


# --- Tiers ---------------------------------------------------------------------------------------


def tier_catalog() -> Any:
    return make.snapshot(make.l40s(), make.h100_nvl(), make.pcie_chassis(), *pcie_parts())


# 60 GB in total: two L40S (30 GB each) or one H100 NVL
SIXTY_GB = fits(GPU_L40S=(2, 30.0), GPU_H100_NVL=(1, 60.0))


def test_three_tiers_budget_balanced_and_performance():
    result = build_options(needs(SIXTY_GB), tier_catalog())

    summary = [
        (
            o.tier,
            o.totals.price,
            [(p.sku, p.quantity) for p in o.parts if p.kind in {"gpu", "drive"}],
        )
        for o in result.options
    ]
    # Budget: 12,000 + 2 x 8,000 + 2,000 + 16 x 80 + 240 + 900 = 32,420 (724 TFLOPS)
    # Balanced: best TFLOPS per euro is the L40S build, with a second drive for 2x reads
    # Performance: one H100 NVL has more TFLOPS (835): 12,000 + 28,000 + ... + 2 drives
    assert summary == [
        (Tier.BUDGET, make.eur("32420.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 1)]),
        (Tier.BALANCED, make.eur("33320.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 2)]),
        (
            Tier.PERFORMANCE,
            make.eur("45320.00"),
            [("GPU-H100-NVL", 1), ("M2-480", 2), ("NVME-7.68", 2)],
        ),
    ]


def test_performance_stays_within_the_budget_and_duplicates_are_left_out():
    result = build_options(needs(SIXTY_GB, budget=make.eur(40000)), tier_catalog())

    # The H100 NVL build is over budget: performance falls back to the L40S comfort build,
    # which is the balanced option already.
    assert [(o.tier, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, make.eur("32420.00")),
        (Tier.BALANCED, make.eur("33320.00")),
    ]


def test_parts_without_a_price_are_not_offered():
    free_looking = make.l40s(sku="GPU-L40S-NOPRICE", name="L40S (no price)", price=None)
    catalog = make.snapshot(free_looking, make.l40s(), make.pcie_chassis(), *pcie_parts())
    job = needs(lambda gpu: GpuFit(1, 30.0))

    result = build_options(job, catalog)

    assert {p.sku for o in result.options for p in o.parts if p.kind == "gpu"} == {"GPU-L40S"}


def test_identical_skus_count_as_one_model_and_the_cheapest_is_chosen():
    calls: list[str] = []

    def gpus_for(gpu: Any) -> GpuFit:
        calls.append(gpu.sku)
        return GpuFit(1, 30.0)

    dear = make.l40s(sku="GPU-L40S-OEM", name="L40S OEM", vendor="OEM", price=9000)
    catalog = make.snapshot(dear, make.l40s(), make.pcie_chassis(), *pcie_parts())

    result = build_options(needs(gpus_for), catalog)

    assert calls == ["GPU-L40S"]
    assert [p.sku for p in result.options[0].parts if p.kind == "gpu"] == ["GPU-L40S"]


def test_a_request_in_another_currency_is_unmet():
    result = build_options(needs(SIXTY_GB, currency="USD"), tier_catalog())

    assert rendered(result.unmet) == [
        "The catalog is priced in EUR but the request is in USD: ask for EUR."
    ]


# --- Hand-built servers --------------------------------------------------------------------------


def test_check_configuration_reports_every_rule_for_a_hand_built_server():
    # A desktop CPU in the wrong socket, one data drive on SATA, no boot mirror, in production
    desktop = make.cpu(sku="CPU-RYZEN", name="Ryzen 9", socket="AM5", server_grade=False)
    sata = make.drive(
        sku="SATA-3.84", name="3.84 TB SATA", kind="sata_ssd", capacity_tb=3.84, read_mbs=550
    )
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.l40s(),
        gpu_count=1,
        cpu=desktop,
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=sata,
        data_drive_count=1,
    )

    checks = check_configuration(config, needs(fits(GPU_L40S=(1, 30.0))))

    assert [c.rule for c in checks] == list(rules.RULE_ORDER)
    assert {c.rule: c.detail.render() for c in checks if not c.passed} == {
        rules.CPU_SERVER_GRADE: "The Ryzen 9 fits socket AM5; the 2U 4-GPU PCIe has LGA4677.",
        rules.MEMORY_POPULATION: "16 DIMMs cannot fill the 24 channels (2 CPUs x 12) evenly.",
        rules.STORAGE_NVME: "The 3.84 TB SATA is a SATA SSD drive; data needs NVMe.",
        rules.STORAGE_CAPACITY: (
            "3840 GB of data storage per server, less than the 4000 GB needed (4000 GB over 1 "
            "servers)."
        ),
        rules.STORAGE_THROUGHPUT: (
            "The data drives read 550 MB/s per server, less than the 6000 MB/s needed."
        ),
        rules.BOOT_MIRROR: ("0 boot drives; production needs a mirror of 2 identical SSDs."),
    }


def test_every_check_code_is_a_rule_with_words_and_a_source():
    assert set(rules.RULES) == set(rules.RULE_ORDER)
    for rule in rules.RULES.values():
        assert rule.title.render()
        assert rule.reason.render()
        assert rule.source
        assert "%(" not in rule.title.render() + rule.reason.render()
    assert rules.rule_get(rules.SYSTEM_RAM).title.render() == "System RAM at least 2 x GPU memory"


@pytest.mark.parametrize(
    ("environment", "expected"),
    [(Environment.PRODUCTION, "GPU-L40S"), (Environment.EXPERIMENT, "GPU-RTX-4090")],
)
def test_the_environment_decides_between_consumer_and_datacenter_cards(environment, expected):
    job = needs(SMALL_JOB, environment=environment)

    result = build_options(job, consumer_catalog(make.rtx_4090(), make.l40s()))

    assert [p.sku for p in result.options[0].parts if p.kind == "gpu"] == [expected]


def test_money_totals_keep_cents():
    catalog = make.snapshot(make.l40s(price=Decimal("8000.45")), make.pcie_chassis(), *pcie_parts())

    budget = build_options(needs(fits(GPU_L40S=(1, 30.0))), catalog).options[0]

    # 12,000 + 8,000.45 + 2,000 + 16 x 80 + 240 + 900
    assert budget.totals.price == make.eur("24420.45")


def test_a_gpu_of_another_form_factor_does_not_fit_the_chassis():
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.h100_sxm(),
        gpu_count=1,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
    )

    checks = check_configuration(config, needs(fits(GPU_H100_SXM=(1, 30.0))))

    assert check(checks, rules.GPU_FIT_CHASSIS).detail.render() == (
        "The 2U 4-GPU PCIe takes PCIe GPUs, not the SXM H100 SXM."
    )
    assert FormFactor.SXM not in make.pcie_chassis().gpu_form_factors


def test_production_never_uses_a_workstation_tower():
    tower = make.pcie_chassis(sku="CHS-TOWER", price=make.eur(100), rack_mount=False)
    rack = make.pcie_chassis(sku="CHS-RACK")
    catalog = make.snapshot(make.l40s(), tower, rack, *pcie_parts())

    production = build_options(needs(SMALL_JOB), catalog)
    experiment = build_options(needs(SMALL_JOB, environment=Environment.EXPERIMENT), catalog)

    assert {p.sku for o in production.options for p in o.parts if p.kind == "chassis"} == {
        "CHS-RACK"
    }
    assert all(check(o, rules.RACK_CHASSIS).passed for o in production.options)
    cheapest = experiment.options[0]
    assert [p.sku for p in cheapest.parts if p.kind == "chassis"] == ["CHS-TOWER"]
    assert check(cheapest, rules.RACK_CHASSIS).warning


def test_production_with_only_a_tower_says_what_to_add():
    tower = make.pcie_chassis(sku="CHS-TOWER", rack_mount=False)
    result = build_options(needs(SMALL_JOB), make.snapshot(make.l40s(), tower, *pcie_parts()))
    assert result.options == ()
    assert any("rack-mount" in line for line in rendered(result.unmet))
