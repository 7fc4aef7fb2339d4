"""``compute_tco``: the three ways of getting the GPUs priced over the horizon."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ..assumptions import RATE_CURRENCIES, Assumption
from ..i18n import Message, gettext_noop
from .hosting import FeeBasis, ManagedOffer
from .inputs import (
    DECIMAL_HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    MONTHS_PER_YEAR,
    TcoInput,
    Way,
    make_message,
)
from .market import MarketPosition
from .model import cost_plan, it_kw, tco_values
from .options import (
    INCLUDES,
    MANAGED_WITHOUT_POWER,
    break_evens,
    option_cost,
    residual_book_values,
)
from .results import OptionCost, TcoResult
from .sensitivity import sensitivity_table


def compute_tco(inp: TcoInput, *, with_sensitivity: bool = True) -> TcoResult:
    """Price the three ways of getting the GPUs over the horizon; pure, no I/O."""
    config = inp.configuration
    assumptions = inp.assumptions.for_gpu_model(config.gpu_model)
    currency = assumptions.currency
    v = tco_values(inp, assumptions)
    months = inp.horizon_years * MONTHS_PER_YEAR
    plan = cost_plan(v, inp.utilization, months, v.electricity)
    gpu_hours_used = v.gpus * DECIMAL_HOURS_PER_MONTH * months * inp.utilization

    costs: dict[Way, OptionCost] = {}
    for option, lines in plan.items():
        includes = INCLUDES[option]
        if option is Way.MANAGED and not v.power_included:
            includes = MANAGED_WITHOUT_POWER
        costs[option] = option_cost(
            option, lines, months, currency, gpu_hours_used, v.discount_rate, Message(includes)
        )
    order = list(Way)
    cheapest = min(costs, key=lambda option: (costs[option].total.amount, order.index(option)))

    it_kwh_year = it_kw(v, inp.utilization) * HOURS_PER_YEAR
    facility_kwh_year = it_kwh_year * v.pue

    explanations = [
        Message(
            gettext_noop(
                "Break-even is the first month from which buying stays cheaper in cumulative "
                "cash, with the purchase paid in month 1; depreciation is shown as book value "
                "and never counted as a cost."
            )
        )
    ]
    if Way.CLOUD in costs:
        explanations.append(
            Message(
                gettext_noop(
                    "Cloud GPUs are billed for every hour: an always-on service keeps them "
                    "running whatever their utilisation."
                )
            )
            if inp.always_on
            else make_message(
                gettext_noop(
                    "Cloud GPUs are billed for the hours they run: %(percent)s %% of the time, "
                    "the utilisation given."
                ),
                percent=(inp.utilization * 100).normalize().quantize(Decimal(1)),
            )
        )
    explanations.append(
        make_message(
            gettext_noop(
                "Colocation rent is paid on the %(kw)s kW provisioned for the servers' supplies; "
                "energy on their measured draw (%(draw)s kW at full load)."
            ),
            kw=v.provisioned_kw.quantize(Decimal("0.1")),
            draw=v.full_kw.quantize(Decimal("0.1")),
        )
    )
    explanations.extend(_managed_explanations(v.managed, months))
    tier = inp.service_tier
    if tier is not None and Way.MANAGED in costs and not tier.monthly.amount:
        explanations.append(
            make_message(
                gettext_noop(
                    "Managed hosting includes the %(tier)s service tier at no extra cost."
                ),
                tier=tier.code,
            )
        )
    elif tier is not None and Way.MANAGED in costs:
        explanations.append(
            make_message(
                gettext_noop(
                    "Managed hosting with the %(tier)s service tier: %(price)s %(currency)s per "
                    "server and month on top of the hosting fee, the managed option's support "
                    "line."
                ),
                tier=tier.code,
                price=tier.monthly.amount.quantize(Decimal(1)),
                currency=tier.monthly.currency,
            )
        )
    if Way.CLOUD not in costs:
        explanations.append(
            make_message(
                gettext_noop(
                    "No dated cloud price is known for %(gpu)s; set cloud_price_per_gpu_hour "
                    "to compare."
                ),
                gpu=config.gpu_model or "-",
            )
        )

    return TcoResult(
        currency=currency,
        horizon_months=months,
        utilization=inp.utilization,
        on_premises=costs[Way.ON_PREMISES],
        managed=costs.get(Way.MANAGED),
        cloud=costs.get(Way.CLOUD),
        cloud_reserved=costs.get(Way.CLOUD_RESERVED),
        break_even_month=break_evens(plan, months),
        cheapest=cheapest,
        sensitivity=sensitivity_table(v, inp) if with_sensitivity else (),
        it_energy_kwh_per_year=it_kwh_year,
        facility_energy_kwh_per_year=facility_kwh_year,
        co2e_kg_per_year=facility_kwh_year * v.grid_carbon,
        book_values=residual_book_values(
            v,
            inp.horizon_years,
            assumptions.value("depreciation_years"),
            assumptions.value("residual_value_pct"),
            currency,
        ),
        assumptions=_shown(assumptions.values(), set(costs), months, v.managed, currency),
        explanations=tuple(explanations),
        managed_offer=v.managed,
        service_tier=tier,
    )


def _managed_explanations(offer: ManagedOffer, months: int) -> list[Message]:
    """How the host's fee was set, and where it sits in the market."""
    term = offer.term(months)
    whole = Decimal(1)
    params = {
        "fee": term.monthly.amount.quantize(whole),
        "per_gpu": term.per_gpu_month.amount.quantize(whole),
        "floor": term.floor.amount.quantize(whole),
        "currency": offer.currency,
        "term": term.months,
    }
    if offer.basis is FeeBasis.OVERRIDE and term.floored:
        template = gettext_noop(
            "Managed hosting: the fee our sales team set is below what the hardware costs to "
            "pay back over the contract; it is raised to that floor, %(floor)s %(currency)s per "
            "server and month (%(per_gpu)s %(currency)s per GPU)."
        )
    elif offer.basis is FeeBasis.OVERRIDE:
        template = gettext_noop(
            "Managed hosting: %(fee)s %(currency)s per server and month (%(per_gpu)s "
            "%(currency)s per GPU), the fee our sales team set."
        )
    elif term.months == 0:
        template = gettext_noop(
            "Managed hosting: %(fee)s %(currency)s per server and month with no commitment "
            "(%(per_gpu)s %(currency)s per GPU): the host's own cost (the hardware paid back over "
            "its life at the fleet's occupancy, power, space, operations staff, spares) plus its "
            "margin."
        )
    else:
        template = gettext_noop(
            "Managed hosting: %(fee)s %(currency)s per server and month for a %(term)s-month "
            "contract (%(per_gpu)s %(currency)s per GPU): the host's fee with no commitment, less "
            "the contract's discount; the host's own cost (the hardware paid back over its life, "
            "power, space, operations staff, spares) plus its margin."
        )
    found = [make_message(template, **params)]
    if term.paid_back and months > term.months:
        found.append(
            make_message(
                gettext_noop(
                    "The contract pays the hardware back: for the %(rest)s months after it, "
                    "renewing costs %(renewal)s %(currency)s per server and month, the running "
                    "cost plus the host's margin."
                ),
                rest=months - term.months,
                renewal=term.renewal.amount.quantize(whole),
                currency=offer.currency,
            )
        )
    band = offer.band
    if band is not None and term.market is not MarketPosition.UNKNOWN:
        where = {
            MarketPosition.BELOW: gettext_noop(
                "That is below the market: public offers for %(klass)s GPUs ask %(low)s to "
                "%(high)s %(currency)s per GPU and month (%(offers)s offers seen %(oldest)s to "
                "%(newest)s)."
            ),
            MarketPosition.WITHIN: gettext_noop(
                "That is within the market: public offers for %(klass)s GPUs ask %(low)s to "
                "%(high)s %(currency)s per GPU and month (%(offers)s offers seen %(oldest)s to "
                "%(newest)s)."
            ),
            MarketPosition.ABOVE: gettext_noop(
                "That is above the market: public offers for %(klass)s GPUs ask %(low)s to "
                "%(high)s %(currency)s per GPU and month (%(offers)s offers seen %(oldest)s to "
                "%(newest)s)."
            ),
        }[term.market]
        found.append(
            make_message(
                where,
                klass=band.name,
                low=band.low.amount.quantize(whole),
                high=band.high.amount.quantize(whole),
                currency=offer.currency,
                offers=band.offers,
                oldest=band.oldest.isoformat(),
                newest=band.newest.isoformat(),
            )
        )
    return found


def _converted_from(item: Assumption, code: str) -> bool:
    """Whether ``item`` was converted at the rate of ``code`` (its conversion quotes it)."""
    params = {} if item.conversion is None else item.conversion.params
    return code in (params.get("published"), params.get("currency"))


def _shown(
    values: Iterable[Assumption],
    priced: set[Way],
    months: int,
    offer: ManagedOffer,
    currency: str,
) -> tuple[Assumption, ...]:
    """The assumptions that entered the figures, and every override: a customer is shown only
    those, never a default that did not enter them."""
    items = tuple(values)
    converted = {
        code
        for code in RATE_CURRENCIES.values()
        if code == currency or any(_converted_from(item, code) for item in items)
    }
    set_by_sales = offer.basis is FeeBasis.OVERRIDE
    return tuple(
        item
        for item in items
        if item.overridden or _used(item.name, priced, months, set_by_sales, converted)
    )


def _used(
    name: str, priced: set[Way], months: int, set_by_sales: bool, converted: set[str]
) -> bool:
    """Whether an assumption entered the figures: a managed-hosting figure when hosting is priced
    (the margin only when the host's fee is computed, not set by sales; the discount of the
    contract length only); a cloud figure when the cloud is; an exchange rate when prices went
    through it."""
    if name == "provider_margin_pct":
        return Way.MANAGED in priced and not set_by_sales
    if name.startswith(("provider_", "host_")):
        return Way.MANAGED in priced
    if name.startswith("managed_discount_"):
        term = next((t for t in (36, 24, 12) if months >= t), 0)
        return Way.MANAGED in priced and name == f"managed_discount_{term}m_pct"
    if name.startswith("managed_"):
        return Way.MANAGED in priced
    if name.startswith("cloud_"):
        return bool(priced & {Way.CLOUD, Way.CLOUD_RESERVED})
    if name in RATE_CURRENCIES:
        return RATE_CURRENCIES[name] in converted
    return True
