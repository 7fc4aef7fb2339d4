"""The site check (``rules.SITE_POWER``) on hand-built servers: kW per server, servers per rack,
the feed, and office versus datacenter.

Draws are worked out by hand from the catalog factory's figures (tests/engine/catalog_factory.py):
GPUs at their TDP, CPUs at theirs, DIMMs 8 W, NVMe drives 25 W, NICs 25 W, plus the chassis' base
draw. A server's kW is rounded up to 0.1 kW; feeds are 230 V x 16 A = 3.68 kW, 230 V x 32 A =
7.36 kW and sqrt(3) x 400 V x 32 A = 22.17 kW.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.build import rules
from engine.build.builder import Environment, ServerConfiguration, check_configuration
from engine.build.checks.records import Subject
from engine.build.checks.site_rules import draw_mw, liquid_cooled
from engine.build.configuration import server_needs
from engine.build.parts import Cooling, FormFactor
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import check, fits, needs

ANY_JOB = fits(GPU_L4=(1, 10.0), GPU_L40S=(1, 30.0), GPU_RTX_4090=(1, 10.0))


def l4(**overrides: Any) -> Any:
    fields: dict[str, Any] = {
        "sku": "GPU-L4",
        "name": "L4",
        "memory_gb": 24.0,
        "memory_bandwidth_gbs": 300.0,
        "bf16_tflops": 121.0,
        "fp8_tflops": 242.0,
        "tdp_w": 72,
        "form_factor": FormFactor.PCIE,
        "nvlink_gbs": None,
        "pcie_gen": 4,
        "price": 2500,
        "architecture": "Ada Lovelace",
        "baseboard": "",
    }
    return make.gpu(**(fields | overrides))


def b200(**overrides: Any) -> Any:
    fields: dict[str, Any] = {
        "sku": "GPU-B200",
        "name": "B200",
        "memory_gb": 180.0,
        "memory_bandwidth_gbs": 8000.0,
        "bf16_tflops": 2250.0,
        "fp8_tflops": 4500.0,
        "tdp_w": 1000,
        "nvlink_gbs": 1800.0,
        "architecture": "Blackwell",
        "baseboard": "HGX-B200",
    }
    return make.gpu(**(fields | overrides))


def l4_1u(**chassis: Any) -> ServerConfiguration:
    """A 1U single-socket server with 2 x L4: 2 x 72 + 150 + 8 x 8 + 2 x 25 + 200 = 608 W."""
    return ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(
            **{
                "sku": "CH-1U",
                "name": "1U 2-GPU PCIe",
                "rack_units": 1,
                "cpu_sockets": 1,
                "base_power_w": 200,
                **chassis,
            }
        ),
        gpu=l4(),
        gpu_count=2,
        cpu=make.xeon_4410y(),
        cpu_count=1,
        dimm=make.dimm_gb(32, 150),
        dimm_count=8,
        data_drive=make.drive(),
        data_drive_count=2,
    )


def hgx_h100(*, base_power_w: int = 1500, nics: int = 0, cpu: Any = None) -> ServerConfiguration:
    """8 x H100 SXM on the factory's HGX chassis: 8 x 700 + 2 x CPU + 24 x 8 + 3 x 25 + NICs
    + base."""
    return ServerConfiguration(
        servers=1,
        chassis=make.chassis(base_power_w=base_power_w),
        gpu=make.h100_sxm(),
        gpu_count=8,
        cpu=cpu or make.cpu(),
        cpu_count=2,
        dimm=make.dimm(),
        dimm_count=24,
        data_drive=make.drive(),
        data_drive_count=3,
        nic=make.nic() if nics else None,
        nic_count=nics,
    )


def site(config: ServerConfiguration, **need: Any) -> Any:
    checks = check_configuration(config, needs(need.pop("gpus_for", ANY_JOB), **need))
    return check(checks, rules.SITE_POWER)


def test_a_1u_l4_server_passes_plainly_with_the_rack_and_the_office_figures():
    result = site(l4_1u())

    # 10,000 W // 608 W = 16 per rack (9,728 W), well within 42 x 1U
    assert (result.passed, result.warning) == (True, False)
    assert result.detail.render() == (
        "0.7 kW per server: 16 per 10 kW air-cooled rack (9.8 kW); one alone also runs in an "
        "office or lab on a single-phase 230 V 16 A circuit (3.7 kW), in a room whose cooling "
        "takes 0.7 kW of heat."
    )


def test_a_rack_holds_no_more_servers_than_its_42_units():
    # 608 W would allow 16 per 10 kW rack, but only 42 // 4 = 10 servers of 4U fit (6,080 W)
    result = site(l4_1u(rack_units=4))

    assert result.detail.render().startswith(
        "0.7 kW per server: 10 per 10 kW air-cooled rack (6.1 kW);"
    )


def test_the_draw_counts_the_gpus_kept_for_growth():
    # 2 x L40S in the 2U 4-GPU server: 700 + 2 x 150 + 16 x 8 + 25 + 300 = 1,453 W; two more
    # L40S for growth add 700 W: 2,153 W, 4 per 10 kW rack (8,612 W)
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.l40s(),
        gpu_count=2,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
    )

    without_growth = site(config)
    with_growth = site(config, growth_gpus=2)

    assert without_growth.detail.render().startswith("1.5 kW per server: 6 per 10 kW")
    assert (with_growth.passed, with_growth.warning) == (True, False)
    assert with_growth.detail.render() == (
        "2.2 kW per server: 4 per 10 kW air-cooled rack (8.7 kW); one alone also runs in an "
        "office or lab on a single-phase 230 V 16 A circuit (3.7 kW), in a room whose cooling "
        "takes 2.2 kW of heat."
    )


def test_a_tower_is_for_an_office_or_lab():
    # 2 x RTX 4090: 900 + 2 x 150 + 16 x 8 + 25 + 300 = 1,653 W
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(sku="CHS-TOWER", name="4-GPU tower", rack_mount=False),
        gpu=make.rtx_4090(),
        gpu_count=2,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=1,
    )

    result = site(config, environment=Environment.EXPERIMENT)

    assert (result.passed, result.warning) == (True, False)
    assert result.detail.render() == (
        "1.7 kW: a tower for an office or lab, on a single-phase 230 V 16 A circuit (3.7 kW), in "
        "a room whose cooling takes 1.7 kW of heat."
    )


def test_an_eight_gpu_pcie_server_needs_more_than_an_office_circuit():
    # 8 x L40S in a 4U server: 2,800 + 2 x 280 + 24 x 8 + 4 x 25 + 2 x 25 + 600 = 4,302 W:
    # above 3.68 kW, within a single-phase 32 A feed (7.36 kW); 2 per 10 kW rack (8,604 W)
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(
            sku="CH-PCIE-8", name="4U 8-GPU PCIe", rack_units=4, gpu_slots=8, base_power_w=600
        ),
        gpu=make.l40s(),
        gpu_count=8,
        cpu=make.epyc_9354(),
        cpu_count=2,
        dimm=make.dimm(),
        dimm_count=24,
        data_drive=make.drive(),
        data_drive_count=4,
        nic=make.nic(),
        nic_count=2,
    )

    result = site(config)

    assert (result.passed, result.warning) == (True, True)
    assert result.detail.render() == (
        "4.4 kW per server, more than an office's single-phase 16 A circuit gives (3.7 kW): a "
        "datacenter or server room, 2 per 10 kW air-cooled rack (8.7 kW), each server on a "
        "single-phase 230 V 32 A feed (7.4 kW)."
    )


def test_an_hgx_h100_server_needs_a_three_phase_feed():
    # 5,600 + 2 x 200 + 192 + 75 + 1,500 = 7,767 W: above a single-phase 32 A feed
    result = site(hgx_h100(), gpus_for=fits(GPU_H100_SXM=(8, 60.0)))

    assert (result.passed, result.warning) == (True, True)
    assert result.detail.render() == (
        "7.8 kW per server, more than an office's single-phase 16 A circuit gives (3.7 kW): a "
        "datacenter or server room, 1 per 10 kW air-cooled rack (7.8 kW), each server on a "
        "three-phase 400 V 32 A feed (22.2 kW)."
    )


def test_a_fully_built_hgx_h100_above_ten_kw_needs_a_high_density_rack():
    # Like NVIDIA DGX H100 (10.2 kW maximum): 5,600 + 2 x 280 + 192 + 75 + 8 NICs x 25 + 3,600
    # of fans and board = 10,227 W: more than a 10 kW air-cooled rack, 1 per 20 kW rack
    config = hgx_h100(base_power_w=3600, nics=8, cpu=make.epyc_9354())
    assert draw_mw(_subject(config)) == 10_227_000

    result = site(config, gpus_for=fits(GPU_H100_SXM=(8, 60.0)))

    assert (result.passed, result.warning) == (True, True)
    assert result.detail.render() == (
        "10.3 kW per server, more than a typical air-cooled rack of 5-10 kW: a datacenter with "
        "high-density racks (up to 20 kW with aisle containment or rear-door heat exchangers), "
        "1 per rack, each server on a three-phase 400 V 32 A feed (22.2 kW); never an office."
    )


def test_a_liquid_cooled_b200_server_needs_a_liquid_ready_datacenter():
    # 8 x 1,000 + 2 x 280 + 192 + 4 x 25 + 8 x 25 + 1,160 = 10,212 W per server, read 10.3 kW;
    # two servers read 2 x 10.3 = 20.6 kW (not 20.424 rounded up to 20.5)
    chassis = make.chassis(
        sku="CH-HGX-B200-LC",
        name="HGX B200 8-GPU liquid-cooled",
        rack_units=4,
        cooling=Cooling.LIQUID,
        max_gpu_tdp_w=1200,
        max_system_power_w=15000,
        base_power_w=1160,
        baseboards=frozenset({"HGX-B200"}),
    )
    config = ServerConfiguration(
        servers=2,
        chassis=chassis,
        gpu=b200(),
        gpu_count=8,
        cpu=make.epyc_9354(),
        cpu_count=2,
        dimm=make.dimm(),
        dimm_count=24,
        data_drive=make.drive(),
        data_drive_count=4,
        nic=make.nic(),
        nic_count=8,
    )

    result = site(config, gpus_for=fits(GPU_B200=(16, 100.0)))

    assert (result.passed, result.warning) == (True, True)
    assert result.detail.render() == (
        "10.3 kW per server, liquid-cooled (2 x 10.3 = 20.6 kW): a datacenter that brings liquid "
        "cooling to the rack (coolant distribution and facility water), never an office; each "
        "server on a three-phase 400 V 32 A feed (22.2 kW)."
    )


def test_gpus_above_the_air_limit_mean_liquid_even_in_an_air_chassis():
    # The cooling rule fails such a build; the site check still says what the GPUs need
    config = hgx_h100()
    hot = ServerConfiguration(**{**_fields(config), "gpu": b200(tdp_w=1200)})

    assert liquid_cooled(_subject(config)) is False
    assert liquid_cooled(_subject(hot)) is True
    assert "liquid-cooled" in site(hot, gpus_for=fits(GPU_B200=(8, 100.0))).detail.render()


def test_a_server_above_a_high_density_rack_and_one_feed_gets_its_own_rack_and_two_feeds():
    # 7,767 - 1,500 + 20,000 of base = 26,267 W: over 20 kW and over one 22.17 kW feed
    result = site(hgx_h100(base_power_w=20_000), gpus_for=fits(GPU_H100_SXM=(8, 60.0)))

    assert (result.passed, result.warning) == (True, True)
    assert result.detail.render() == (
        "26.3 kW per server, more than even a high-density air-cooled rack of 20 kW: a "
        "datacenter rack of its own with rear-door or liquid cooling, on 2 three-phase 400 V "
        "32 A feeds (22.2 kW each); never an office."
    )


def test_the_site_check_follows_the_power_check_and_cites_its_sources():
    order = list(rules.RULE_ORDER)
    assert order.index(rules.SITE_POWER) == order.index(rules.POWER) + 1
    rule = rules.rule_get(rules.SITE_POWER)
    assert "uptimeinstitute.com" in rule.source
    assert "IEC 60309" in rule.source
    assert "5-10 kW" in rule.reason.render()
    assert "three-phase 400 V 32 A feed 22.2 kW" in rule.reason.render()
    assert (rules.SINGLE_PHASE_16A_W, rules.SINGLE_PHASE_32A_W) == (230 * 16, 230 * 32)
    assert round(3**0.5 * 400 * 32) == rules.THREE_PHASE_32A_W


@pytest.mark.parametrize("base_power_w", [0, 1500, 3600, 20_000, 60_000])
def test_the_site_check_never_fails_a_configuration(base_power_w):
    result = site(hgx_h100(base_power_w=base_power_w), gpus_for=fits(GPU_H100_SXM=(8, 60.0)))
    assert result.passed


# --- helpers ------------------------------------------------------------------------------------


def _fields(config: ServerConfiguration) -> dict[str, Any]:
    return {name: getattr(config, name) for name in ServerConfiguration.__slots__}


def _subject(config: ServerConfiguration) -> Subject:
    job = needs(fits())
    return Subject(
        config=config,
        needs=job,
        fit=None,
        server=server_needs(job, config.gpu, config.gpu_count, config.servers),
        production=True,
    )
