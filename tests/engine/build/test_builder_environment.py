"""The configuration builder in production and for experiments: ECC datacenter GPUs, a spare
power supply and rack chassis in production; consumer cards, flagged, in experiments.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.build import rules
from engine.build.builder import (
    Environment,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
)
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import check, fits, lines, needs, pcie_parts, rendered


def consumer_catalog(*gpus: Any) -> Any:
    return make.snapshot(*gpus, make.pcie_chassis(), *pcie_parts())


SMALL_JOB = fits(GPU_RTX_4090=(2, 20.0), GPU_L40S=(1, 30.0))


def test_production_rejects_the_rtx_4090():
    result = build_options(needs(SMALL_JOB), consumer_catalog(make.rtx_4090(), make.l40s()))

    # 12,000 + 8,000 + 2 x 1,000 + 16 x 80 (256 GB >= 2 x 48) + 2 x 120 boot + 2 x 900 data:
    # production mirrors its data, so 2 x 7.68 TB (7,680 GB usable >= 4,000 GB). They read
    # 14,000 MB/s, already twice the 6,000 needed: the balanced comfort build is the same.
    assert [(o.tier, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, make.eur("25320.00")),
    ]
    assert all(check(o, rules.PRODUCTION_GPU).passed for o in result.options)
    assert {p.sku for o in result.options for p in o.parts if p.kind == "gpu"} == {"GPU-L40S"}
    assert rendered(result.notes) == [
        "No separate balanced option: the budget option already gives the most computing power "
        "per euro within 1.5 times its price.",
        "No separate performance option: the budget option is already the fastest build within 3 "
        "times the budget option's price that does not leave more GPUs idle than the job uses.",
    ]


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
    # Serving: each 24 GB card holds a whole copy of the model (20 GB), four copies in all
    job = needs(
        fits(GPU_RTX_4090=(4, 20.0)),
        environment=Environment.EXPERIMENT,
        interconnect_gbps_per_gpu=100,
        serving=True,
    )

    [option] = build_options(job, catalog).options

    # Per server: 12,000 + 2 x 1,800 + 2 x 1,000 + 16 x 80 + one 7.68 TB drive 900 = 19,780.
    # Each server loads the whole 4 TB (its own copies of the model) at half the 6,000 MB/s;
    # the M.2 sticks only boot. Servers holding whole copies need no fabric: no NIC, no switch.
    assert option.servers == 2
    assert ("drive", "NVME-7.68", 1, "900.00", "data") in lines(option)
    assert {p.kind for p in option.parts} == {"chassis", "gpu", "cpu", "memory", "drive"}
    assert option.totals.price == make.eur("39560.00")
    assert check(option, rules.CONSUMER_LIMIT).detail.render() == (
        "2 consumer cards per server, within the limit of 2."
    )
    assert check(option, rules.INTERCONNECT).detail.render() == (
        "Every server holds whole copies of the model and answers requests on its own: no GPU "
        "fabric between servers is needed, only the front-end network."
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


def test_training_on_four_consumer_cards_is_not_spread_over_two_card_servers():
    # The same four cards for training: two per server would make a sparse training cluster
    # (fewer than 4 GPUs per server), and no chassis may hold more than two consumer cards.
    catalog = make.snapshot(make.rtx_4090(), make.pcie_chassis(), *pcie_parts(), make.nic())
    job = needs(fits(GPU_RTX_4090=(4, 20.0)), environment=Environment.EXPERIMENT)

    result = build_options(job, catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "Training the job on RTX 4090 GPUs spreads it over servers, and no chassis holds them as "
        "a dense training server does (a power of two, at least 4 per server): add a 4- or "
        "8-GPU chassis."
    ]


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


@pytest.mark.parametrize(
    ("environment", "expected"),
    [(Environment.PRODUCTION, "GPU-L40S"), (Environment.EXPERIMENT, "GPU-RTX-4090")],
)
def test_the_environment_decides_between_consumer_and_datacenter_cards(environment, expected):
    job = needs(SMALL_JOB, environment=environment)

    result = build_options(job, consumer_catalog(make.rtx_4090(), make.l40s()))

    assert [p.sku for p in result.options[0].parts if p.kind == "gpu"] == [expected]


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
