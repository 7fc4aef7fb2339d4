"""The five-point decision checklist, from figures alone (no Django)."""

from decimal import Decimal
from typing import Any

import pytest

from engine.advice.checklist import (
    POINT_RULES,
    ChecklistInput,
    CostFigures,
    Deployment,
    OptionFigures,
    Point,
    evaluate,
)
from engine.build import rules
from engine.money import Money


def _eur(amount: str) -> Money:
    return Money(Decimal(amount), "EUR")


def _option(**overrides: Any) -> OptionFigures:
    values: dict[str, Any] = {
        "servers": 1,
        "gpus": 2,
        "gpu_name": "NVIDIA A100 PCIe 40GB",
        "vram_gb": 80.0,
        "ram_gb": 768,
        "storage_gb": 480.0,
        "cpu_name": "AMD EPYC 9124",
        "cpus": 2,
        "price": _eur("33333.00"),
        "passed": dict.fromkeys(rules.RULE_ORDER, True),
    }
    return OptionFigures(**(values | overrides))


def _costs(**overrides: Any) -> CostFigures:
    values: dict[str, Any] = {
        "horizon_years": 3,
        "on_premises": _eur("72610.00"),
        "managed": _eur("47866.00"),
        "cloud": _eur("65357.00"),
        "capital": _eur("33333.00"),
        "energy": _eur("8487.00"),
        "support": _eur("10000.00"),
        "break_even_vs_managed": None,
    }
    return CostFigures(**(values | overrides))


def _input(**overrides: Any) -> ChecklistInput:
    values: dict[str, Any] = {
        "job_memory_gb": 36.25,
        "storage_need_gb": 19.82,
        "growth_gpus": 1,
        "deployment": Deployment.MANAGED,
        "option": _option(),
        "costs": _costs(),
        "budget": None,
    }
    return ChecklistInput(**(values | overrides))


def _by_point(inp: ChecklistInput):
    return {item.point: item for item in evaluate(inp)}


def test_five_points_in_the_articles_order_all_met_for_a_decided_growing_plan():
    items = evaluate(_input())

    assert [item.point for item in items] == [
        Point.VRAM,
        Point.SYNERGY,
        Point.GROWTH,
        Point.DEPLOYMENT,
        Point.TOTAL_COST,
    ]
    assert all(item.met for item in items)


def test_vram_reason_carries_the_jobs_figures():
    item = _by_point(_input())[Point.VRAM]

    assert item.reason.params["need_gb"] == Decimal("36.3")  # 36.25, half up as on the page
    assert item.reason.params["gpus"] == 2
    assert item.reason.params["vram_gb"] == Decimal("80.0")
    assert item.reason.render() == (
        "The work needs 36.3 GB of GPU memory; 2 x NVIDIA A100 PCIe 40GB give 80.0 GB and pass "
        "every GPU memory rule."
    )


@pytest.mark.parametrize(
    ("rule", "point"),
    [
        (rules.GPU_MEMORY, Point.VRAM),
        (rules.SYSTEM_RAM, Point.SYNERGY),
        (rules.STORAGE_THROUGHPUT, Point.SYNERGY),
        (rules.GPU_FIT_CHASSIS, Point.GROWTH),
    ],
)
def test_a_failed_rule_fails_its_point_and_is_named(rule, point):
    passed = dict.fromkeys(rules.RULE_ORDER, True) | {rule: False}

    items = _by_point(_input(option=_option(passed=passed)))

    assert items[point].met is False
    assert items[point].reason.params["failed"] == (rules.rule_get(rule).title,)
    others = {p for p in Point if p is not point}
    assert all(items[p].met for p in others)


def test_every_hardware_point_is_decided_by_known_rules():
    for codes in POINT_RULES.values():
        assert set(codes) <= set(rules.RULES)


def test_no_growth_planned_is_not_met():
    item = _by_point(_input(growth_gpus=0))[Point.GROWTH]

    assert item.met is False
    assert "No growth was planned" in item.reason.render()


def test_growth_reason_names_the_free_slots():
    item = _by_point(_input(growth_gpus=2))[Point.GROWTH]

    assert item.met is True
    assert item.reason.params == {"servers": 1, "growth": 2}


def test_undecided_deployment_is_not_met_and_still_compares_costs():
    item = _by_point(_input(deployment=Deployment.NOT_SURE))[Point.DEPLOYMENT]

    assert item.met is False
    assert item.reason.params["on_premises"] == _eur("72610.00")
    assert item.reason.params["managed"] == _eur("47866.00")
    assert item.reason.params["break_even"].render() == (
        "buying does not become cheaper than managed hosting within 3 years"
    )


def test_break_even_month_is_quoted_when_buying_pays_off():
    item = _by_point(_input(costs=_costs(break_even_vs_managed=19)))[Point.DEPLOYMENT]

    assert item.met is True
    assert item.reason.params["break_even"].params == {"month": 19}


def test_total_cost_splits_purchase_energy_and_support():
    item = _by_point(_input())[Point.TOTAL_COST]

    assert item.met is True
    params = item.reason.params
    assert (params["capital"], params["energy"], params["support"]) == (
        _eur("33333.00"),
        _eur("8487.00"),
        _eur("10000.00"),
    )
    assert "Managed hosting costs" in item.reason.template


def test_total_cost_above_the_budget_is_not_met():
    item = _by_point(_input(budget=_eur("30000.00")))[Point.TOTAL_COST]

    assert item.met is False
    assert item.reason.params == {"price": _eur("33333.00"), "budget": _eur("30000.00")}


def test_total_cost_within_the_budget_says_so():
    item = _by_point(_input(budget=_eur("40000.00")))[Point.TOTAL_COST]

    assert item.met is True
    assert "within your budget" in item.reason.template


def test_without_a_configuration_nothing_is_met():
    items = evaluate(_input(option=None, costs=None))

    assert [item.met for item in items] == [False] * 5


def test_managed_price_unknown_keeps_the_decision():
    item = _by_point(_input(costs=_costs(managed=None)))[Point.DEPLOYMENT]

    assert item.met is True
    assert "no managed-hosting price is known" in item.reason.template
