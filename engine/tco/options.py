"""Per-option results: costs with what each option includes, break-evens and book values."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_CEILING, Decimal
from types import MappingProxyType

from ..i18n import Message, gettext_noop
from ..money import Money, round_money
from .inputs import DECIMAL_MONTHS_PER_YEAR, MONTHS_PER_YEAR, ZERO, Category, Way
from .model import CostPlan, Values, cash_flows, net_present_value
from .results import BookValue, BreakEven, OptionCost


def _break_even(
    own: tuple[Decimal, Decimal], other: tuple[Decimal, Decimal], months: int
) -> int | None:
    """First m in 1..months with d(k) <= 0 for every k in m..months, d = own - other cumulative.

    Both cumulative curves are upfront + monthly x m, so d is linear in m.
    """
    gap = own[0] - other[0]
    slope = own[1] - other[1]

    def d(m: int) -> Decimal:
        return gap + slope * m

    if d(months) > 0:
        return None
    if slope >= 0 or d(1) <= 0:
        return 1  # d never decreases and ends <= 0, or is <= 0 from month 1 on
    month = int((gap / -slope).to_integral_value(rounding=ROUND_CEILING))
    month = min(max(month, 1), months)
    while month > 1 and d(month - 1) <= 0:  # guard against the division's last digit
        month -= 1
    while d(month) > 0:
        month += 1
    return month


def break_evens(plan: CostPlan, months: int) -> BreakEven:
    own = cash_flows(plan[Way.ON_PREMISES])

    def against(option: Way) -> int | None:
        lines = plan.get(option)
        return None if lines is None else _break_even(own, cash_flows(lines), months)

    return BreakEven(
        vs_managed=against(Way.MANAGED),
        vs_cloud=against(Way.CLOUD),
        vs_cloud_reserved=against(Way.CLOUD_RESERVED),
    )


INCLUDES: Mapping[Way, str] = MappingProxyType(
    {
        Way.ON_PREMISES: gettext_noop(
            "You buy and run the servers: hardware, installation, power, cooling, colocation "
            "space, staff, support, spares, insurance, network and software."
        ),
        Way.MANAGED: gettext_noop(
            "The host owns and runs the servers: the fee includes power, cooling, space, "
            "hardware support and replacement; you keep the application work and software."
        ),
        Way.CLOUD: gettext_noop(
            "Cloud GPUs on demand: you pay only the GPU-hours you use, plus your own "
            "application work and software."
        ),
        Way.CLOUD_RESERVED: gettext_noop(
            "Cloud GPUs reserved for one year at a time: every hour is billed, used or not, "
            "plus your own application work and software."
        ),
    }
)


MANAGED_WITHOUT_POWER = gettext_noop(
    "The host owns and runs the servers: the fee includes space, hardware support and "
    "replacement; power and cooling are billed at your electricity price; you keep the "
    "application work and software."
)


def option_cost(
    option: Way,
    lines: Mapping[Category, tuple[Decimal, Decimal]],
    months: int,
    currency: str,
    gpu_hours_used: Decimal,
    discount_rate: Decimal,
    includes: Message,
) -> OptionCost:
    by_category = {
        str(category): round_money(up + month * months) for category, (up, month) in lines.items()
    }
    total = sum(by_category.values(), ZERO)
    upfront, monthly = cash_flows(lines)
    first = Money(round_money(upfront + monthly), currency)
    rest = Money(round_money(monthly), currency)
    # The last month's cumulative cost is the total itself: the total adds categories rounded
    # to the cent, and a chart's end label must read the figure the totals table reads.
    before_last = (Money(round_money(upfront + monthly * m), currency) for m in range(1, months))
    cumulative = (*before_last, Money(total, currency))
    year = Money(round_money(monthly * DECIMAL_MONTHS_PER_YEAR), currency)
    years = months // MONTHS_PER_YEAR
    npv = None
    if discount_rate > 0:
        npv = Money(
            round_money(net_present_value(upfront, monthly, months, discount_rate)), currency
        )
    return OptionCost(
        option=option,
        total=Money(total, currency),
        by_category=MappingProxyType({k: Money(v, currency) for k, v in by_category.items()}),
        monthly=(first,) + (rest,) * (months - 1),
        monthly_cumulative=cumulative,
        yearly=(Money(round_money(upfront + monthly * DECIMAL_MONTHS_PER_YEAR), currency),)
        + (year,) * (years - 1),
        npv=npv,
        cost_per_gpu_hour=Money(round_money(total / gpu_hours_used), currency),
        includes=includes,
    )


def residual_book_values(
    v: Values, years: int, depreciation_years: Decimal, residual: Decimal, currency: str
) -> tuple[BookValue, ...]:
    cost = v.hardware + v.installation * v.servers
    salvage = cost * residual
    per_year = (cost - salvage) / depreciation_years
    rows = []
    value = cost
    for year in range(1, years + 1):
        step = min(per_year, value - salvage)
        value -= step
        rows.append(
            BookValue(year, Money(round_money(step), currency), Money(round_money(value), currency))
        )
    return tuple(rows)
