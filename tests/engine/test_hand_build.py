"""Quote lines read back as servers and checked by the builder's rules (``hand_build``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine.build import rules
from engine.build.builder import Environment, build_options
from engine.build.configuration import PartScope
from engine.build.hand_build import (
    JOB_RULES,
    QuotedPart,
    configuration_from_parts,
    server_review,
)
from tests.engine import catalog_factory as make
from tests.engine import cluster_parts as net
from tests.engine.builder_cases import fits, hgx_catalog, hgx_needs, hgx_parts


def specs(catalog: Any) -> dict[str, Any]:
    groups = (catalog.chassis, catalog.gpus, catalog.cpus, catalog.memory, catalog.drives)
    return {spec.sku: spec for group in (*groups, catalog.nics) for spec in group}


def quoted(catalog: Any, *rows: tuple[str, int | str]) -> list[QuotedPart]:
    by_sku = specs(catalog)
    return [QuotedPart(sku, by_sku.get(sku), Decimal(quantity)) for sku, quantity in rows]


def option_as_quote_lines(option: Any, catalog: Any) -> list[QuotedPart]:
    """What ``quote_create_from_request`` / ``quote_option_apply`` store (per-server lines x
    servers), as ``quote_server_review_get`` reads them back: the cluster's switches, cables and
    storage servers are not parts of a server and are left out."""
    by_sku = specs(catalog)
    return [
        QuotedPart(p.sku, by_sku[p.sku], Decimal(p.total_quantity(option.servers)), p.role)
        for p in option.parts
        if p.scope == PartScope.SERVER
    ]


def review(parts: list[QuotedPart], needs: Any = None, environment=Environment.PRODUCTION):
    return server_review(parts, needs=needs, environment=environment, currency="EUR")


def test_a_builder_option_read_back_from_quote_lines_is_the_same_servers_and_passes():
    catalog = make.snapshot(
        make.h100_sxm(), make.chassis(), *hgx_parts(), make.nic(), *net.infiniband_parts()
    )
    needs = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)))
    [option, *_] = build_options(needs, catalog).options
    assert option.servers == 2
    assert {p.kind for p in option.parts if p.scope == PartScope.CLUSTER} == {"switch", "cable"}

    result = review(option_as_quote_lines(option, catalog), needs)

    assert result.problems == ()
    assert result.configuration.servers == 2
    assert result.configuration.gpu_count == 8
    assert result.configuration.boot_drive_count == 2  # the line the builder marked "boot"
    data = next(p for p in option.parts if p.role == "data")
    assert (result.configuration.data_drive.sku, result.configuration.data_drive_count) == (
        data.sku,
        data.quantity,
    )
    assert [c.rule for c in result.checks] == list(rules.RULE_ORDER)
    assert result.passed, [c.detail.render() for c in result.checks if not c.passed]


def test_removing_half_the_memory_fails_the_system_ram_rule_with_the_figures():
    catalog = hgx_catalog()
    needs = hgx_needs()
    [option, *_] = build_options(needs, catalog).options
    parts = option_as_quote_lines(option, catalog)
    halved = [
        QuotedPart(p.sku, p.spec, p.quantity / 2) if p.sku.startswith("DIMM") else p for p in parts
    ]

    result = review(halved, needs)

    failed = [c for c in result.checks if not c.passed]
    assert [c.rule for c in failed] == [rules.SYSTEM_RAM, rules.MEMORY_POPULATION]
    assert "1280 GB" in failed[0].detail.render()  # 2 x 8 x 80 GB of VRAM
    assert not result.passed
    assert len(result.failures) == 2


def test_without_a_workload_the_job_rules_are_left_out_not_passed():
    catalog = hgx_catalog()
    [option, *_] = build_options(hgx_needs(), catalog).options

    result = review(option_as_quote_lines(option, catalog), needs=None)

    assert result.with_workload is False
    codes = {c.rule for c in result.checks}
    assert codes == set(rules.RULE_ORDER) - JOB_RULES
    assert result.passed


def test_a_gpu_alone_is_not_a_server_and_says_what_is_missing():
    catalog = hgx_catalog()

    result = review(quoted(catalog, ("GPU-H100-SXM", 2)))

    assert result.configuration is None
    assert result.checks == ()
    texts = [m.render() for m in result.problems]
    assert texts == [
        "No chassis in the lines.",
        "No CPU in the lines.",
        "No memory module in the lines.",
        "No data drive in the lines.",
    ]


def test_two_gpu_models_uneven_counts_and_unknown_skus_are_named():
    catalog = hgx_catalog()
    rows = [
        ("CH-HGX-8", 2),
        ("GPU-H100-SXM", 8),
        ("GPU-L40S", 2),
        ("CPU-EPYC-9124", 3),
        ("RETIRED-1", 1),
    ]
    by_sku = specs(catalog)
    assert {"CH-HGX-8", "GPU-H100-SXM", "GPU-L40S", "CPU-EPYC-9124"} <= set(by_sku), by_sku.keys()

    _configuration, problems = configuration_from_parts(quoted(catalog, *rows))

    texts = " | ".join(m.render() for m in problems)
    assert "RETIRED-1 is not in the catalog" in texts
    assert "2 GPU models" in texts
    assert "3 x " in texts
    assert "do not divide evenly between 2 servers" in texts


def test_lines_of_the_same_sku_add_up():
    catalog = hgx_catalog()
    [option, *_] = build_options(hgx_needs(), catalog).options
    parts = option_as_quote_lines(option, catalog)
    gpu_line = next(p for p in parts if p.sku == "GPU-H100-SXM")
    split = [p for p in parts if p is not gpu_line] + [
        QuotedPart(gpu_line.sku, gpu_line.spec, Decimal(4)),
        QuotedPart(gpu_line.sku, gpu_line.spec, Decimal(4)),
    ]

    configuration, problems = configuration_from_parts(split)

    assert problems == ()
    assert configuration is not None
    assert configuration.gpu_count == 8


def test_a_services_only_quote_has_nothing_to_check():
    assert review([]) is None


def test_a_tower_in_production_fails_and_passes_with_a_caveat_for_an_experiment():
    tower = make.pcie_chassis(sku="CH-TOWER", name="Tower", rack_mount=False, rack_units=0)
    catalog = make.snapshot(make.l40s(), tower, make.cpu(), make.dimm_gb(64, 300), make.drive())
    rows = [
        ("CH-TOWER", 1),
        ("GPU-L40S", 1),
        ("CPU-EPYC-9124", 1),
        ("DIMM-DDR5-64", 2),
        ("NVME-7.68", 1),
    ]
    parts = quoted(catalog, *rows)
    assert all(p.spec is not None for p in parts), [p.sku for p in parts if p.spec is None]

    production = review(parts)
    experiment = review(parts, environment=Environment.EXPERIMENT)

    assert not next(c for c in production.checks if c.rule == rules.RACK_CHASSIS).passed
    rack = next(c for c in experiment.checks if c.rule == rules.RACK_CHASSIS)
    assert rack.passed
    assert rack.warning
