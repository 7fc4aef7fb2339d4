"""Tiers ranked by what the customer gets, against the seed catalog.

For a language model served to users, the options are ranked by the tokens/s each user sees at
the asked concurrency on the working GPUs (a spare server is not capacity), the figure each
option's card shows: no option is dearer and slower than another, "performance" is never slower
than "budget", and the recommendation is the option that delivers the most per euro.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from catalog.selectors import catalog_search_index_get, catalog_snapshot_get
from engine.advice.pipeline import advise
from engine.advice.recommendation import chosen_option
from engine.build.builder import BuildResult, BuiltOption, Environment, Tier
from engine.build.parts import CatalogSnapshot
from engine.money import Money
from engine.performance.options import option_performance
from engine.workload import Workload, workload_from_dict
from engine.workload.registry import get_model

LANGUAGE_MODELS = (
    "llama-3.2-1b",
    "qwen2.5-7b",
    "llama-3.1-8b",
    "mistral-7b",
    "llama-2-13b",
    "falcon-40b",
    "mixtral-8x7b",
    "llama-3.1-70b",
    "qwen2.5-72b",
    "llama-3.1-405b",
)


def _per_user(workload: Workload, option: BuiltOption, catalog: CatalogSnapshot) -> float:
    found = option_performance(workload, option, catalog.gpus)
    assert found is not None
    assert found.serving is not None
    return found.serving.tokens_per_second_per_user


def _advice(
    workload: Workload, environment: Environment, *, always_on: bool, budget_eur: int | None
) -> tuple[BuildResult, CatalogSnapshot]:
    catalog = catalog_snapshot_get(currency="EUR")
    advice = advise(
        workload,
        catalog,
        environment=environment,
        always_on=always_on,
        budget=None if budget_eur is None else Money(Decimal(budget_eur), "EUR"),
        index=catalog_search_index_get(currency="EUR"),
    )
    return advice.build, catalog


def _assert_sound_tiers(workload: Workload, build: BuildResult, catalog: CatalogSnapshot) -> None:
    if not build.options:
        assert build.unmet  # nothing fits (or the budget is too small), and the answer says why
        return
    speeds = {option.tier: _per_user(workload, option, catalog) for option in build.options}
    prices = {option.tier: option.totals.price.amount for option in build.options}
    for option in build.options:
        # the figure the tiers were ranked by is the one the card shows
        assert option.delivered == pytest.approx(speeds[option.tier], rel=1e-9)
    for dearer in build.options:
        for other in build.options:
            if prices[dearer.tier] > prices[other.tier]:
                assert speeds[dearer.tier] > speeds[other.tier], (dearer.tier, other.tier)
    if Tier.PERFORMANCE in speeds:
        assert speeds[Tier.PERFORMANCE] == max(speeds.values())
        assert speeds[Tier.PERFORMANCE] > speeds[Tier.BUDGET]
    assert len(build.options) + len(build.notes) >= 3  # a missing tier is explained


@st.composite
def serving_requests(draw: Any) -> dict[str, Any]:
    model = draw(st.sampled_from(LANGUAGE_MODELS))
    context = draw(st.sampled_from((2048, 4096, 8192, 16384, 32768)))
    entry = get_model(model)
    assert entry is not None
    longest = entry.architecture.context_length or context
    return {
        "workload": {
            "task": "inference",
            "model": model,
            "precision": draw(st.sampled_from(("bf16", "fp8"))),
            "inference": {
                "concurrent_requests": draw(st.integers(1, 400)),
                "sequence_length": min(context, longest),
            },
        },
        "environment": draw(st.sampled_from(tuple(Environment))),
        "always_on": draw(st.booleans()),
        "budget_eur": draw(st.none() | st.integers(30_000, 900_000)),
    }


@pytest.mark.django_db
@pytest.mark.usefixtures("seed_catalog")
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(request=serving_requests())
def test_no_offered_option_is_dominated_and_performance_is_never_slower(request):
    workload = workload_from_dict(request["workload"])
    build, catalog = _advice(
        workload,
        Environment(request["environment"]),
        always_on=request["always_on"],
        budget_eur=request["budget_eur"],
    )
    event(f"{len(build.options)} options")
    _assert_sound_tiers(workload, build, catalog)


@pytest.mark.django_db
@pytest.mark.usefixtures("seed_catalog")
def test_70b_for_32_users_at_8k_gets_a_faster_performance_option_than_budget():
    # Llama 3.1 70B in BF16 for 32 users at 8k, a production service that must stay up: the
    # budget build is 2 x 4 H100 PCIe, one server of them a spare. Ranked by total TFLOPS, the
    # performance tier was 11 servers of 8 L4 at more than twice the price, a third as fast.
    workload = workload_from_dict(
        {
            "task": "inference",
            "model": "llama-3.1-70b",
            "precision": "bf16",
            "inference": {"concurrent_requests": 32, "sequence_length": 8192},
        }
    )
    build, catalog = _advice(workload, Environment.PRODUCTION, always_on=True, budget_eur=None)

    tiers = [option.tier for option in build.options]
    assert tiers[0] is Tier.BUDGET
    assert Tier.PERFORMANCE in tiers
    budget, performance = build.options[0], build.options[-1]
    assert "L4" not in performance.gpu_line.name
    assert _per_user(workload, performance, catalog) > _per_user(workload, budget, catalog)
    # the spare server holds no capacity: one working server of 4 GPUs in the budget build
    assert budget.spare_servers == 1
    assert budget.working_gpus == budget.gpu_line.quantity * (budget.servers - 1)
    _assert_sound_tiers(workload, build, catalog)
    # the recommendation is the option that delivers the most per euro
    recommended = chosen_option(build.options)
    assert recommended is not None
    value = {
        option.tier: _per_user(workload, option, catalog) / float(option.totals.price.amount)
        for option in build.options
    }
    assert value[recommended.tier] == max(value.values())
