"""The configuration builder within one server's limits: memory per channel, power with its
margin, cooling, and slots kept free for growth.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from typing import Any

from engine.build import rules
from engine.build.builder import (
    Environment,
    ServerConfiguration,
    build_options,
    check_configuration,
)
from engine.build.parts import Cooling
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import (
    check,
    fits,
    hgx_catalog,
    hgx_needs,
    hgx_parts,
    lines,
    needs,
    pcie_parts,
    rendered,
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
        data_drive_count=2,  # production mirrors its data: 2 x 7,680 / 2 = 7,680 GB usable
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
        "2153 W at full load per server, 2692 W sized (×1.25, with 0 growth GPUs), more than the "
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
    # Two mirrored data drives: 2 x 350 + 2 x 150 + 16 x 8 + 2 x 25 + 300 = 1,478 W; with 2
    # more L40S: 2,178 W x 1.25 = 2,722.5
    assert (budget.totals.power_w, budget.totals.power_sized_w) == (1478, 2723)
    assert check(budget, rules.PCIE_LANES).detail.render() == (
        "72 PCIe lanes needed (GPUs and growth slots 64, NICs 0, NVMe 8); the CPUs provide 160."
    )


def test_growth_is_impossible_on_a_fully_populated_baseboard():
    result = build_options(hgx_needs(growth_gpus=1), hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "SXM baseboards are always fully populated, so no slot stays free for growth next to the "
        "H100 SXM: ask for no growth or choose PCIe GPUs.",
        "The job cannot run on the L40S (48 GB) at any GPU count: it needs GPUs with more memory.",
    ]
