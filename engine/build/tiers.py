"""The upper tiers chosen by what the job gets (``BuildNeeds.delivered``), not by TFLOPS.

Each GPU model's cheapest upper-tier build within the price ceiling is a candidate (the search
keeps them, ``Search.model_plans``), scored by the job's delivered figure on its working GPUs
(spare servers are not capacity). Then:

- ``performance``: the cheapest candidate that delivers within ``rules.UPPER_TIER_MIN_GAIN`` of
  the most any candidate delivers (a gain below it is within the speed model's error), when
  that is at least the gain times what the budget build delivers;
- ``balanced``: among the candidates dearer than the budget build and cheaper than the
  performance one, faster than the first and slower than the second by that gain, the one
  that delivers the most per unit of price;
- neither can then be dominated (dearer and slower than another option): the budget build is
  the cheapest, the performance build the fastest, the balanced one strictly between both.
  Comfort margins only add to an upper tier's price, kept below the performance build's for
  the balanced one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from . import rules
from .configuration import BuildNeeds, Tier
from .search import Plan, Search


class Missing(Enum):
    """Why a tier has no option of its own."""

    NOT_FASTER = "not_faster"  # nothing within the ceiling beats the budget build
    NOTHING_BETWEEN = "nothing_between"  # no build between the budget and performance ones


@dataclass(frozen=True, slots=True)
class Ranked:
    tier: Tier
    plan: Plan
    delivered: float


def delivered_of(needs: BuildNeeds) -> Callable[[Plan], float | None] | None:
    """The job's delivered figure on a plan's working GPUs (memoised per GPU model and count);
    None when the request gives no ``delivered``."""
    score = needs.delivered
    if score is None:
        return None
    found: dict[tuple[str, int, int], float | None] = {}

    def of(plan: Plan) -> float | None:
        working = plan.per_server * max(1, plan.servers - needs.spare_servers)
        key = (plan.model.gpu.sku, working, plan.per_server)
        if key not in found:
            found[key] = score(plan.model.gpu, working, plan.per_server)
        return found[key]

    return of


def tiers_by_delivery(
    search: Search, cheapest: Plan, ceiling: float, delivered: Callable[[Plan], float | None]
) -> tuple[list[Ranked], list[tuple[Tier, Missing]]] | None:
    """The tiers in order (budget first) and why a tier is missing; None when the budget build
    has no delivered figure (the job has none: the caller ranks by TFLOPS)."""
    base = delivered(cheapest)
    if base is None:
        return None
    gain = float(rules.UPPER_TIER_MIN_GAIN)
    scored = [
        (plan, figure)
        for plan in search.model_plans(ceiling)
        if (figure := delivered(plan)) is not None
    ]
    budget = Ranked(Tier.BUDGET, cheapest, base)
    most = max((figure for _, figure in scored), default=base)
    if most < base * gain:
        return [budget], [
            (Tier.BALANCED, Missing.NOT_FASTER),
            (Tier.PERFORMANCE, Missing.NOT_FASTER),
        ]
    # The fastest within the speed model's error: the cheapest build that delivers at least the
    # most there is divided by the gain (a build twice the price for 4% more is not offered).
    fast = min(
        (found for found in scored if found[1] * gain >= most and found[1] >= base * gain),
        key=lambda found: (found[0].total, -found[1]),
    )
    performance = Ranked(Tier.PERFORMANCE, search.with_comfort(fast[0], ceiling), fast[1])
    between = [
        (plan, figure)
        for plan, figure in scored
        if base * gain <= figure
        and figure * gain <= performance.delivered
        and cheapest.total < plan.total < performance.plan.total
    ]
    value = max(
        between,
        key=lambda found: (found[1] / found[0].total, found[1], -found[0].total),
        default=None,
    )
    if value is None:
        return [budget, performance], [(Tier.BALANCED, Missing.NOTHING_BETWEEN)]
    # Comfort margins within the performance build's price: the balanced one stays cheaper.
    balanced = Ranked(
        Tier.BALANCED, search.with_comfort(value[0], performance.plan.total), value[1]
    )
    return [budget, balanced, performance], []
