"""The upper tiers chosen by what the job gets (``BuildNeeds.delivered``), over small random
catalogs and random delivered figures: the budget option is still the cheapest build, no option
is dearer and slower than another, and "performance" is never slower than "budget"."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.build import rules
from engine.build.builder import Tier, build_options
from engine.build.parts import GpuSpec
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

    def figure(gpu: GpuSpec, gpus: int) -> float:
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
        assert option.delivered == figure(gpu, option.working_gpus)
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
    result = build_options(dataclasses.replace(needs, delivered=lambda gpu, n: 1.0), catalog)
    event(f"{len(result.options)} options")
    if result.options:
        assert [option.tier for option in result.options] == [Tier.BUDGET]
        assert any("noticeably faster" in note.template for note in result.notes)
