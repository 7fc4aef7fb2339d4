"""Balanced GPU server configurations from a catalog snapshot.

``build_options(needs, catalog)`` turns what a job needs (``BuildNeeds``: for each GPU model, how
many GPUs and how much memory per GPU; storage; cores; network; environment; budget) into up to
three priced options, each a set of identical servers that passes every rule of ``rules.py``.
``check_configuration(config, needs)`` checks any server configuration, hand-built ones included,
against the same rules; the builder's own options are verified with it before they are returned.

The configuration model
-----------------------
A ``ServerConfiguration`` is ``servers`` identical servers, each with one chassis, ``gpu_count``
GPUs of one model, one server CPU model in every socket, identical DIMMs, identical NVMe data
drives, in production a mirrored pair of boot SSDs, and when ``servers > 1`` identical
InfiniBand/RoCE NICs. The builder searches exactly this space with ``servers = ceil(job GPUs /
gpu_count)`` for every ``gpu_count`` the chassis allows (SXM/OAM baseboards: all their slots).

Reading of the figures (kept in one place: ``_server_needs`` and the checks):

- ``storage_gb``, ``storage_read_mbs`` and ``cpu_cores_min`` are for the whole job and are shared
  equally between the servers; RAM (2 x VRAM), cores (8, 4 per GPU) are per server.
- Boot SSDs sit on the board (M.2): they use no NVMe bay and no CPU lanes, and their power is in
  the chassis' ``base_power_w``. Data drives use one NVMe bay and x4 each.
- Growth slots (``growth_gpus``) are kept free in every server, and the server is sized for them
  now: PCIe lanes and the power budget include the future GPUs, so adding them needs no new
  supplies. RAM is sized for the installed GPUs (DIMMs are easy to add later).
- Power in ``Totals``: ``power_w`` is the raw full-load draw of one server as built;
  ``power_sized_w`` is ``(power_w + growth GPUs' TDP) x POWER_MARGIN``, what its supplies must
  deliver.

Tiers
-----
- ``budget``: the cheapest configuration (total over all servers) that passes every rule. When a
  budget is given and this is above it, there are no options and ``unmet`` says by how much.
- The upper tiers, when the request says what a build delivers (``BuildNeeds.delivered``:
  tokens/s per user, images/s, training speed on the working GPUs): ranked by that figure, see
  ``tiers.py``. ``performance`` is the cheapest build within ``rules.UPPER_TIER_MIN_GAIN`` of the
  fastest, ``balanced`` the most delivered per unit of price strictly between budget and
  performance; no option is dearer and slower than another. Candidates are each GPU model's
  cheapest build within the budget, or without one ``rules.PERFORMANCE_MAX_PRICE_FACTOR`` x the
  budget tier, rebuilt with comfort margins once chosen.
- Otherwise (no delivered figure for the job), by dense BF16 TFLOPS:
  ``balanced``: the GPU model whose cheapest build within the budget gives the most dense BF16
  TFLOPS per unit of price (then more TFLOPS, then cheaper), rebuilt with comfort margins.
  Without a budget, it may cost at most ``rules.BALANCED_MAX_PRICE_FACTOR`` x the budget tier.
  ``performance``: the GPU model whose cheapest build within the budget delivers the most total
  dense BF16 TFLOPS (then memory bandwidth, then price), rebuilt with comfort margins. Without a
  budget, it may cost at most ``rules.PERFORMANCE_MAX_PRICE_FACTOR`` x the budget tier.
- Either way, tiers compare GPU models, each at the job's own GPU count: GPUs are never added
  only to raise the total.
Comfort margins: the same GPUs in the same number of servers, but one DIMM per channel (the full
memory clock) and NVMe reads at twice the job's need, the cheapest such build. When none exists
within the budget, the tier keeps the plain cheapest build of its GPU model.
An option identical (same servers and parts) to an earlier tier is left out, so one to three
options come back, in the order budget, balanced, performance.
Every tier is built from current parts when current parts alone make a valid configuration
within the budget; only otherwise may an option use end-of-life or refurbished parts, and its
part lines say so (``PartLine.availability``).

The search
----------
Exact branch and bound, not a cross product. Per catalog snapshot an index is built once
(``SearchIndex``; whoever holds the snapshot keeps its index and passes it in: the catalog app keeps
one per catalog version, ``catalog_search_index_get``). It holds the offered parts only (priced, in
the catalog's currency, not negative) with prices as exact integers, and drops parts that can never
be needed: GPU SKUs identical in every figure (one GPU model, kept at its cheapest SKU), chassis
another chassis of the same CPU/DIMM platform beats on price and every capability, CPUs beaten
within their socket and channel count, DIMMs beaten within their capacity, NVMe drives beaten on
price, power, capacity and speed, fabric NICs beaten on price, power, lanes, speed and ports. Per
request:

1. ``gpus_for`` is called once per GPU model that passes the static GPU rules.
2. Each model gets a lower bound: its GPUs, a boot mirror, storage, RAM and cores at the
   catalog's lowest price per drive, GB and core, and the cheapest chassis. ``budget`` visits
   models by that bound with one global best price and stops when the bound reaches it.
3. For a model, chassis are visited by price and stop when the cheapest possible server count
   times the chassis price plus the bound reaches the best price. For each allowed GPU count
   per server (for PCIe only the smallest count for a given number of servers: a larger one
   costs more and makes no rule easier) a per-server bound skips hopeless cases.
4. The remaining parts come from a nested search over memoised candidate lists sorted by price
   (CPUs per socket and cores, DIMM sets per channel layout and capacity, NVMe sets per
   capacity/throughput/bays, NIC sets per port count), pruned by price, power and PCIe lanes.
   Each list holds, per part, the smallest legal count: more DIMMs, drives or NICs of the same
   part only add price, power and lanes.
5. By TFLOPS, ``balanced`` and ``performance`` visit models in order of an upper bound on their
   metric (TFLOPS per price, TFLOPS) and stop when no remaining model can win; by delivered
   figure, every model's cheapest build below the ceiling is searched (``Search.model_plans``).
``tests/engine/build/test_builder_properties.py`` checks the budget option against a brute force
over every configuration of small random catalogs.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, Decimal
from typing import Any

from ..i18n import Message, gettext_noop
from ..money import Money
from . import rules
from .checks import check_configuration, configuration_feasible, iter_checks, load_mw
from .configuration import (
    BuilderInconsistencyError,
    BuildNeeds,
    BuildResult,
    BuiltOption,
    Check,
    Environment,
    GpuFit,
    PartLine,
    PartScope,
    ServerConfiguration,
    Tier,
    Totals,
    message,
    sized_w,
    usable_data_gb,
)
from .parts import CatalogSnapshot
from .search import INF, Plan, PricedCluster, Search, SearchIndex, preferred_search
from .tiers import Missing, delivered_of, tiers_by_delivery

# The builder's public face: callers import everything from here.
__all__ = [
    "BuildNeeds",
    "BuildResult",
    "BuilderInconsistencyError",
    "BuiltOption",
    "Check",
    "Environment",
    "GpuFit",
    "PartLine",
    "ServerConfiguration",
    "Tier",
    "Totals",
    "build_options",
    "check_configuration",
    "configuration_feasible",
]

# --- Options -------------------------------------------------------------------------------------


def _part_lines(config: ServerConfiguration) -> tuple[PartLine, ...]:
    def line(kind: str, spec: Any, quantity: int, role: str = "") -> PartLine:
        if spec.price is None:
            raise BuilderInconsistencyError(f"{spec.sku} has no price")
        return PartLine(
            kind,
            spec.sku,
            spec.name,
            quantity,
            spec.price,
            role,
            spec.availability,
            spec.lead_time_weeks,
        )

    c = config
    lines = [
        line("chassis", c.chassis, 1),
        line("gpu", c.gpu, c.gpu_count),
        line("cpu", c.cpu, c.cpu_count),
        line("memory", c.dimm, c.dimm_count),
    ]
    if c.boot_drive is not None and c.boot_drive_count:
        lines.append(line("drive", c.boot_drive, c.boot_drive_count, "boot"))
    lines.append(line("drive", c.data_drive, c.data_drive_count, "data"))
    if c.nic is not None and c.nic_count:
        lines.append(line("nic", c.nic, c.nic_count))
    return tuple(lines)


def _cluster_lines(cluster: PricedCluster) -> tuple[PartLine, ...]:
    return tuple(
        PartLine(
            line.kind,
            line.sku,
            line.name,
            line.quantity,
            line.unit_price,
            line.role,
            line.availability,
            line.lead_time_weeks,
            PartScope.CLUSTER,
        )
        for design in cluster.designs
        for line in design.lines
    )


def _totals(
    config: ServerConfiguration,
    parts: Sequence[PartLine],
    needs: BuildNeeds,
    currency: str,
    cluster: PricedCluster,
) -> Totals:
    c = config
    per_server = sum(
        (p.unit_price.amount * p.quantity for p in parts if p.scope == PartScope.SERVER),
        Decimal(0),
    )
    shared = sum(
        (p.unit_price.amount * p.quantity for p in parts if p.scope == PartScope.CLUSTER),
        Decimal(0),
    )
    designs = cluster.designs
    chassis_fee, gpu_fee = c.chassis.managed_monthly_price, c.gpu.managed_monthly_price
    managed = None
    if (
        chassis_fee is not None
        and gpu_fee is not None
        and chassis_fee.currency == gpu_fee.currency == currency
    ):
        managed = ((chassis_fee + gpu_fee * c.gpu_count) * c.servers).rounded()
    load = load_mw(c)
    return Totals(
        gpus=c.servers * c.gpu_count,
        vram_gb=c.servers * c.gpu_count * c.gpu.memory_gb,
        ram_gb=c.servers * c.dimm_count * c.dimm.capacity_gb,
        storage_gb=c.servers
        * usable_data_gb(
            c.data_drive, c.data_drive_count, needs.environment is Environment.PRODUCTION
        ),
        power_w=-(-load // 1000),
        power_sized_w=sized_w(load + c.gpu.tdp_w * 1000 * needs.growth_gpus),
        price=Money(per_server * c.servers + shared, currency).rounded(),
        currency=currency,
        rack_units=c.servers * c.chassis.rack_units + sum(d.rack_units for d in designs),
        managed_monthly_price=managed,
        cluster_power_w=sum(d.power_w for d in designs),
    )


def _option(
    tier: Tier, plan: Plan, needs: BuildNeeds, currency: str, delivered: float | None = None
) -> BuiltOption:
    config = plan.configuration()
    checks = tuple(iter_checks(config, needs, plan.model.fit))  # the fit the search used
    failed = [check.rule for check in checks if not check.passed]
    if failed:
        raise BuilderInconsistencyError(f"{tier} option fails {', '.join(failed)}")
    cluster = plan.cluster
    parts = _part_lines(config) + _cluster_lines(cluster)
    return BuiltOption(
        tier=tier,
        servers=config.servers,
        parts=parts,
        totals=_totals(config, parts, needs, currency, cluster),
        checks=checks,
        notes=tuple(design.explanation for design in cluster.designs),
        spare_servers=needs.spare_servers,
        delivered=delivered,
    )


def _money_figure(index: SearchIndex, units: int) -> Decimal:
    return Money(index.amount(units), index.currency).rounded().amount


def build_options(
    needs: BuildNeeds, catalog: CatalogSnapshot, index: SearchIndex | None = None
) -> BuildResult:
    """Up to three options (budget, balanced, performance) or, when none exists, why not.
    ``index``: the snapshot's search index when the caller keeps one (built here otherwise)."""
    if needs.currency != catalog.currency:
        return BuildResult(
            (),
            (
                message(
                    gettext_noop(
                        "The catalog is priced in %(catalog)s but the request is in "
                        "%(requested)s: ask for %(catalog)s."
                    ),
                    catalog=catalog.currency,
                    requested=needs.currency,
                ),
            ),
        )
    if needs.budget is not None and needs.budget.currency != needs.currency:
        return BuildResult(
            (),
            (
                message(
                    gettext_noop(
                        "The budget is in %(budget)s but the request is in %(requested)s."
                    ),
                    budget=needs.budget.currency,
                    requested=needs.currency,
                ),
            ),
        )
    search = preferred_search(SearchIndex(catalog) if index is None else index, needs)
    index = search.index
    cheapest = search.cheapest()
    if cheapest is None:
        return BuildResult((), search.unmet())
    bound: float = INF
    if needs.budget is not None:
        limit = index.units_floor(needs.budget)
        if cheapest.total > limit:
            # Whole currency units, rounded up: a budget of exactly this builds it
            needed = Money(
                index.amount(cheapest.total).to_integral_value(rounding=ROUND_CEILING),
                index.currency,
            )
            return BuildResult(
                (), (_budget_message(index, needs.budget, cheapest),), budget_needed=needed
            )
        bound = limit + 1
    budgeted = needs.budget is not None
    ceiling = bound if budgeted else _band(cheapest.total, rules.PERFORMANCE_MAX_PRICE_FACTOR)
    delivered = delivered_of(needs)
    ranked = None if delivered is None else tiers_by_delivery(search, cheapest, ceiling, delivered)
    notes: list[Message] = []
    if ranked is None:
        plans, missing_notes = _tiers_by_tflops(search, cheapest, bound, budgeted)
        scores: dict[Tier, float | None] = {}
    else:
        tiers, missing = ranked
        plans = [(found.tier, found.plan) for found in tiers]
        scores = {found.tier: found.delivered for found in tiers}
        missing_notes = [_not_delivered_note(tier, why, budgeted) for tier, why in missing]
    options: list[BuiltOption] = []
    seen: dict[tuple[int, tuple[PartLine, ...]], Tier] = {}
    for tier, plan in plans:
        option = _option(tier, plan, needs, index.currency, scores.get(tier))
        identity = (option.servers, option.parts)
        if identity in seen:
            notes.append(_repeat_note(tier, seen[identity], budgeted))
        else:
            seen[identity] = tier
            options.append(option)
    notes.extend(missing_notes)
    return BuildResult(tuple(options), (), tuple(notes))


def _tiers_by_tflops(
    search: Search, cheapest: Plan, bound: float, budgeted: bool
) -> tuple[list[tuple[Tier, Plan]], list[Message]]:
    """The upper tiers of a job without a delivered figure: by dense BF16 TFLOPS per price
    (balanced) and total TFLOPS (performance), each in its price band above the budget build."""
    plans = [(Tier.BUDGET, cheapest)]
    value_bound = bound if budgeted else _band(cheapest.total, rules.BALANCED_MAX_PRICE_FACTOR)
    value = search.best_value(value_bound)
    if value is not None:
        plans.append((Tier.BALANCED, search.with_comfort(value, value_bound)))
    fast_bound = bound if budgeted else _band(cheapest.total, rules.PERFORMANCE_MAX_PRICE_FACTOR)
    fastest = search.fastest(fast_bound)
    if fastest is not None:
        plans.append((Tier.PERFORMANCE, search.with_comfort(fastest, fast_bound)))
    found = {tier for tier, _ in plans}
    return plans, [
        _missing_note(tier, factor, budgeted)
        for tier, factor in (
            (Tier.BALANCED, rules.BALANCED_MAX_PRICE_FACTOR),
            (Tier.PERFORMANCE, rules.PERFORMANCE_MAX_PRICE_FACTOR),
        )
        if tier not in found
    ]


_TIER_NAMES = {
    Tier.BUDGET: gettext_noop("budget"),
    Tier.BALANCED: gettext_noop("balanced"),
    Tier.PERFORMANCE: gettext_noop("performance"),
}


def _repeat_note(tier: Tier, same_as: Tier, budgeted: bool) -> Message:
    if budgeted:
        return message(
            gettext_noop(
                "No separate %(tier)s option: within your budget it would be the %(same)s "
                "option itself."
            ),
            tier=Message(_TIER_NAMES[tier]),
            same=Message(_TIER_NAMES[same_as]),
        )
    template = (
        gettext_noop(
            "No separate balanced option: the budget option already gives the most computing "
            "power per euro within %(factor)s times its price."
        )
        if tier is Tier.BALANCED
        else gettext_noop(
            "No separate performance option: the %(same)s option is already the fastest build "
            "within %(factor)s times the budget option's price that does not leave more GPUs "
            "idle than the job uses."
        )
    )
    factor = (
        rules.BALANCED_MAX_PRICE_FACTOR
        if tier is Tier.BALANCED
        else rules.PERFORMANCE_MAX_PRICE_FACTOR
    )
    return message(template, factor=factor, same=Message(_TIER_NAMES[same_as]))


def _missing_note(tier: Tier, factor: Decimal, budgeted: bool) -> Message:
    if budgeted:
        return message(
            gettext_noop(
                "No %(tier)s option: within your budget no other build does this job better "
                "without leaving more GPUs idle than it uses."
            ),
            tier=Message(_TIER_NAMES[tier]),
        )
    return message(
        gettext_noop(
            "No %(tier)s option: no other build does this job better within %(factor)s times "
            "the budget option's price without leaving more GPUs idle than it uses."
        ),
        tier=Message(_TIER_NAMES[tier]),
        factor=factor,
    )


def _not_delivered_note(tier: Tier, why: Missing, budgeted: bool) -> Message:
    """Why a tier chosen by what the job gets has no option of its own."""
    if why is Missing.NOTHING_BETWEEN:
        return message(
            gettext_noop(
                "No balanced option: no build costs between the budget and performance options "
                "and does this job faster than the first."
            )
        )
    if budgeted:
        return message(
            gettext_noop(
                "No %(tier)s option: within your budget no build does this job noticeably "
                "faster than the budget option."
            ),
            tier=Message(_TIER_NAMES[tier]),
        )
    return message(
        gettext_noop(
            "No %(tier)s option: no build within %(factor)s times the budget option's price "
            "does this job noticeably faster than the budget option."
        ),
        tier=Message(_TIER_NAMES[tier]),
        factor=rules.PERFORMANCE_MAX_PRICE_FACTOR,
    )


def _band(cheapest_units: int, factor: Decimal) -> int:
    """The exclusive price bound (in index units) of a tier's band above the cheapest price."""
    return int(Decimal(cheapest_units) * factor) + 1


def _budget_message(index: SearchIndex, budget: Money, cheapest: Plan) -> Message:
    return message(
        gettext_noop(
            "The budget of %(budget)s %(currency)s is below the cheapest configuration that "
            "passes every rule, %(cheapest)s %(currency)s: %(servers)s x %(chassis)s with "
            "%(count)s x %(gpu)s each."
        ),
        budget=budget.rounded().amount,
        currency=index.currency,
        cheapest=_money_figure(index, cheapest.total),
        servers=cheapest.servers,
        chassis=cheapest.chassis.spec.name,
        count=cheapest.per_server,
        gpu=cheapest.model.gpu.name,
    )
