"""The upper tiers chosen by what the job gets (``BuildNeeds.delivered``), over small random
catalogs and random delivered figures: the budget option is still the cheapest build, no option
is dearer and slower than another, and "performance" is never slower than "budget"."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any, cast

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.build import rules
from engine.build.builder import Tier, build_options
from engine.build.parts import GpuSpec
from engine.build.tiers import tiers_by_delivery
from tests.engine.build.test_builder_properties import catalogs, needs_for

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def delivered_figures(draw: Any) -> Any:
    """A figure per GPU model that grows (or not) with the working GPUs: a random rate per SKU
    times the count to a random power (0: the count does not help, as one model copy)."""
    rates: dict[str, float] = {}
    power = draw(st.sampled_from([0.0, 0.5, 1.0]))
    seed = draw(st.integers(0, 10**6))

    def figure(gpu: GpuSpec, gpus: int, per_server: int) -> float:
        if gpu.sku not in rates:
            rates[gpu.sku] = 1 + (hash((seed, gpu.sku)) % 1000) / 10
        return rates[gpu.sku] * gpus**power

    return figure


@SETTINGS
@given(
    catalog=catalogs(),
    needs=st.booleans().flatmap(lambda budget: needs_for(with_budget=budget)),
    figure=delivered_figures(),
)
def test_no_option_is_dominated_and_performance_is_never_slower(catalog, needs, figure):
    ranked = dataclasses.replace(needs, delivered=figure)
    by_tflops = build_options(needs, catalog)
    result = build_options(ranked, catalog)
    event(f"{len(result.options)} options")

    assert (result.options == ()) == (by_tflops.options == ())
    if not result.options:
        return
    # The budget option is the same cheapest build whatever ranks the upper tiers.
    assert result.options[0].tier is Tier.BUDGET
    assert result.options[0].totals.price == by_tflops.options[0].totals.price
    price = {o.tier: o.totals.price.amount for o in result.options}
    speed: dict[Tier, float] = {}
    for option in result.options:
        assert option.delivered is not None
        speed[option.tier] = option.delivered
    for option in result.options:
        gpu = next(g for g in catalog.gpus if g.sku == option.gpu_line.sku)
        # ranked by the working GPUs: a spare server is not capacity
        assert option.delivered == figure(gpu, option.working_gpus, option.gpu_line.quantity)
        assert option.working_gpus == option.gpu_line.quantity * (
            option.servers - needs.spare_servers
        )
    gain = float(rules.UPPER_TIER_MIN_GAIN)
    for a in result.options:
        for b in result.options:
            if price[a.tier] > price[b.tier]:
                assert speed[a.tier] >= speed[b.tier] * gain, (a.tier, b.tier)
    if Tier.PERFORMANCE in speed:
        assert speed[Tier.PERFORMANCE] == max(speed.values())
    # every tier left out is explained
    assert len(result.options) + len(result.notes) >= 3


@SETTINGS
@given(catalog=catalogs(), needs=needs_for())
def test_a_budget_build_nothing_beats_by_the_gain_stands_alone(catalog, needs):
    # Given a job every GPU model does equally fast: only the budget option, and the answer
    # says why there is no faster one.
    result = build_options(
        dataclasses.replace(needs, delivered=lambda gpu, n, per_server: 1.0), catalog
    )
    event(f"{len(result.options)} options")
    if result.options:
        assert [option.tier for option in result.options] == [Tier.BUDGET]
        assert any("noticeably faster" in note.template for note in result.notes)


class _Search:
    """Stands in for ``Search``: the candidates, and comfort margins that change nothing."""

    def __init__(self, plans: list[Any]) -> None:
        self.plans = plans

    def model_plans(self, ceiling: float) -> list[Any]:
        return [plan for plan in self.plans if plan.total < ceiling]

    def with_comfort(self, plan: Any, bound: float) -> Any:
        return plan


def _plan(name: str, total: int) -> Any:
    return SimpleNamespace(name=name, total=total)


def _tiers(figures: dict[str, float], totals: dict[str, int]) -> list[tuple[Tier, str]]:
    plans = {name: _plan(name, totals[name]) for name in figures}
    found = tiers_by_delivery(
        cast(Any, _Search(list(plans.values()))),
        plans["cheapest"],
        300,
        lambda plan: figures[cast(Any, plan).name],
    )
    assert found is not None
    return [(ranked.tier, cast(Any, ranked.plan).name) for ranked in found[0]]


def test_performance_beats_the_budget_by_the_gain_even_when_the_fastest_is_near_it():
    # 10.6 is the fastest; 10.2 is within 5 % of it and cheaper, but only 2 % above the budget
    # build's 10: the performance option is the 10.6 one.
    assert _tiers(
        {"cheapest": 10.0, "near": 10.2, "fastest": 10.6},
        {"cheapest": 100, "near": 120, "fastest": 200},
    ) == [(Tier.BUDGET, "cheapest"), (Tier.PERFORMANCE, "fastest")]


def test_performance_is_the_cheapest_build_within_the_gain_of_the_fastest():
    # 40 at 544 units is 4.7 % above 38.2 at 260: the cheaper one is the performance option,
    # and nothing between 208 and 260 is faster than the budget build by the gain.
    assert _tiers(
        {"cheapest": 19.4, "nvl": 38.2, "sxm": 40.0, "l4": 8.8},
        {"cheapest": 208, "nvl": 260, "sxm": 290, "l4": 250},
    ) == [(Tier.BUDGET, "cheapest"), (Tier.PERFORMANCE, "nvl")]


def test_balanced_is_the_best_value_strictly_between_budget_and_performance():
    assert _tiers(
        {"cheapest": 10.0, "good": 20.0, "meh": 14.0, "fast": 40.0, "dear_slow": 15.0},
        {"cheapest": 100, "good": 150, "meh": 140, "fast": 250, "dear_slow": 260},
    ) == [(Tier.BUDGET, "cheapest"), (Tier.BALANCED, "good"), (Tier.PERFORMANCE, "fast")]
