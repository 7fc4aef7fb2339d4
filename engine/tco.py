"""Total cost of ownership: buy (on premises), managed hosting, or cloud GPUs by the hour.

The model, month by month over a horizon of 1 to 7 years:

On premises
    capital       servers x purchase price, paid in month 1
    installation  servers x installation cost, one-off, month 1
    power         IT power x hours x electricity price; IT power per server is
                  idle + (full load - idle) x utilisation, idle = idle fraction x full load
    cooling       IT energy x (PUE - 1) x electricity price: the facility overhead, own line
    space         colocation rent per provisioned kW (full-load kW, whatever the utilisation)
    staff         fully loaded salary x FTE per server
    support       support share of the hardware price per year (spares and insurance alike)
    network       per server per month; software: per GPU per year
Managed hosting (the host owns and runs the hardware)
    setup         months of fee x monthly fee (undiscounted), month 1
    hosting_fees  monthly fee per server, less the contract discount for the horizon
                  (12/24/36-month tiers); the fee includes power, cooling, space, support and
                  hardware replacement, so none of those lines appears here
    staff         the work that stays with the customer (managed FTE per server)
    software      as on premises
    power/cooling only when the fee excludes power (``managed_power_included`` = 0)
Cloud, on demand and reserved for one year
    cloud         GPU-hours x price; on demand pays the GPU-hours used (servers x GPUs x 730 x
                  utilisation per month); reserved pays every hour of the commitment
    staff, software as for managed hosting

Cash, not accounting: capital is paid when it is paid. Depreciation (straight line, optional
residual value) is reported as book value per year and is never a cash line, so it is never
subtracted from a monthly difference (that would count the capital twice). When a discount rate
is set, the net present value (month-1 one-offs at t = 0, running costs at the end of each month,
monthly rate (1 + r)^(1/12) - 1) is shown next to the cash total.

Break-even month (against managed hosting or cloud): the first month m from which the on-premises
cumulative cash is at most the other option's and stays so up to the end of the horizon; ``None``
when that never happens within the horizon. Month 1 includes the one-offs.

Rounding: every figure is computed exactly and rounded to cents at presentation with
``round_money``; each category is rounded, and an option's total is the sum of its rounded
categories, so categories always add up to the total. The monthly, cumulative and yearly series
are each rounded from exact values (their sum can differ from the total by the category rounding,
a few cents at most).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from enum import StrEnum
from types import MappingProxyType

from .assumptions import Assumption, Assumptions
from .i18n import Message, gettext_noop
from .money import Money, round_money

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730  # 8,760 / 12
MONTHS_PER_YEAR = 12
MIN_HORIZON_YEARS = 1
MAX_HORIZON_YEARS = 7
MIN_UTILIZATION = Decimal("0.05")
MAX_UTILIZATION = Decimal(1)

SENSITIVITY_ELECTRICITY = (
    Decimal("-0.5"),
    Decimal("-0.25"),
    Decimal(0),
    Decimal("0.5"),
    Decimal(1),
)
SENSITIVITY_UTILIZATION = (Decimal("0.2"), Decimal("0.5"), Decimal("0.8"), Decimal(1))
SENSITIVITY_HORIZON_YEARS = tuple(range(MIN_HORIZON_YEARS, MAX_HORIZON_YEARS + 1))

_ZERO = Decimal(0)
_ONE = Decimal(1)
_12 = Decimal(MONTHS_PER_YEAR)
_HOURS_PER_MONTH = Decimal(HOURS_PER_MONTH)
_W_PER_KW = Decimal(1000)


class Option(StrEnum):
    ON_PREMISES = "on_premises"
    MANAGED = "managed"
    CLOUD = "cloud"
    CLOUD_RESERVED = "cloud_reserved"


class Category(StrEnum):
    CAPITAL = "capital"
    INSTALLATION = "installation"
    POWER = "power"
    COOLING = "cooling"
    SPACE = "space"
    STAFF = "staff"
    SUPPORT = "support"
    SPARES = "spares"
    INSURANCE = "insurance"
    NETWORK = "network"
    SOFTWARE = "software"
    SETUP = "setup"
    HOSTING_FEES = "hosting_fees"
    CLOUD = "cloud"


class SensitivityParameter(StrEnum):
    ELECTRICITY_PRICE = "electricity_price"
    UTILIZATION = "utilization"
    HORIZON_YEARS = "horizon_years"


class TcoInputError(ValueError):
    """Input the model cannot price; ``message`` is translatable, ``field`` names the input."""

    def __init__(self, message: Message, *, field: str) -> None:
        super().__init__(message.render())
        self.message = message
        self.field = field


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TcoConfiguration:
    servers: int
    gpus_per_server: int
    gpu_model: str | None
    power_w: int  # full-load draw per server, W
    price: Money  # purchase price per server
    rack_units: int
    managed_monthly_price: Money | None = None  # per server; None -> assumption per GPU

    def __post_init__(self) -> None:
        for name in ("servers", "gpus_per_server", "power_w", "rack_units"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TcoInputError(
                    _msg(gettext_noop("%(name)s must be a whole number of at least 1."), name=name),
                    field=name,
                )
        for name in ("price", "managed_monthly_price"):
            money = getattr(self, name)
            if money is not None and money.amount < 0:
                raise TcoInputError(
                    _msg(gettext_noop("%(name)s cannot be negative."), name=name), field=name
                )


@dataclass(frozen=True, slots=True)
class TcoInput:
    configuration: TcoConfiguration
    horizon_years: int
    utilization: Decimal
    region: str
    currency: str
    assumptions: Assumptions

    def __post_init__(self) -> None:
        years = self.horizon_years
        if (
            isinstance(years, bool)
            or not isinstance(years, int)
            or not (MIN_HORIZON_YEARS <= years <= MAX_HORIZON_YEARS)
        ):
            raise TcoInputError(
                _msg(
                    gettext_noop("The horizon must be %(minimum)s to %(maximum)s years."),
                    minimum=MIN_HORIZON_YEARS,
                    maximum=MAX_HORIZON_YEARS,
                ),
                field="horizon_years",
            )
        if not isinstance(self.utilization, Decimal) or not (
            MIN_UTILIZATION <= self.utilization <= MAX_UTILIZATION
        ):
            raise TcoInputError(
                _msg(
                    gettext_noop("Utilisation must be a decimal from %(minimum)s to %(maximum)s."),
                    minimum=MIN_UTILIZATION,
                    maximum=MAX_UTILIZATION,
                ),
                field="utilization",
            )
        if self.assumptions.region != self.region.strip().upper():
            raise TcoInputError(
                _msg(
                    gettext_noop("The assumptions are for %(other)s, not %(region)s."),
                    other=self.assumptions.region,
                    region=self.region,
                ),
                field="region",
            )
        config = self.configuration
        for name, money in (
            ("currency", None),
            ("price", config.price),
            ("managed_monthly_price", config.managed_monthly_price),
        ):
            currency = self.currency if money is None else money.currency
            if currency != self.assumptions.currency:
                raise TcoInputError(
                    _msg(
                        gettext_noop("%(name)s must be in %(currency)s."),
                        name=name,
                        currency=self.assumptions.currency,
                    ),
                    field=name,
                )


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OptionCost:
    option: Option
    total: Money
    by_category: Mapping[str, Money]
    monthly: tuple[Money, ...]  # month 1..N; month 1 carries the one-offs
    monthly_cumulative: tuple[Money, ...]  # month 1..N
    yearly: tuple[Money, ...]  # year 1..horizon
    npv: Money | None  # None when no discount rate is set
    cost_per_gpu_hour: Money  # total / GPU-hours actually used
    includes: Message


@dataclass(frozen=True, slots=True)
class BreakEven:
    """First month (1-based) from which buying stays cheaper in cumulative cash; None: never."""

    vs_managed: int | None
    vs_cloud: int | None
    vs_cloud_reserved: int | None


@dataclass(frozen=True, slots=True)
class SensitivityRow:
    parameter: SensitivityParameter
    value: Decimal  # electricity: relative change (-0.5 = -50%); utilisation; years
    label: Message
    totals: Mapping[str, Money]  # option -> cash total
    break_even: BreakEven


@dataclass(frozen=True, slots=True)
class BookValue:
    year: int
    depreciation: Money
    book_value: Money  # at the end of the year


@dataclass(frozen=True, slots=True)
class TcoResult:
    currency: str
    horizon_months: int
    utilization: Decimal
    on_premises: OptionCost
    managed: OptionCost | None  # None: no managed-hosting price known
    cloud: OptionCost | None  # None: no cloud price known for the GPU
    cloud_reserved: OptionCost | None
    break_even_month: BreakEven
    cheapest: Option
    sensitivity: tuple[SensitivityRow, ...]
    it_energy_kwh_per_year: Decimal
    facility_energy_kwh_per_year: Decimal
    co2e_kg_per_year: Decimal
    book_values: tuple[BookValue, ...]  # on-premises capital, not a cash line
    assumptions: tuple[Assumption, ...]
    explanations: tuple[Message, ...]

    @property
    def options(self) -> Mapping[Option, OptionCost]:
        found = (self.on_premises, self.managed, self.cloud, self.cloud_reserved)
        return MappingProxyType({cost.option: cost for cost in found if cost is not None})


# --------------------------------------------------------------------------------------------
# The model: exact upfront and monthly amounts per category (constant monthly costs, so every
# total, series and break-even has a closed form)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Values:
    """The numbers the model reads, pulled once from the assumptions and the input."""

    servers: Decimal
    gpus: Decimal  # all GPUs
    full_kw: Decimal  # all servers at full load
    hardware: Decimal  # all servers' purchase price
    electricity: Decimal
    pue: Decimal
    idle: Decimal
    colocation: Decimal
    staff_per_fte_month: Decimal
    fte: Decimal
    managed_fte: Decimal
    installation: Decimal
    support: Decimal
    spares: Decimal
    insurance: Decimal
    network: Decimal
    software: Decimal
    managed_fee: Decimal | None  # all servers, per month, before discount
    setup_months: Decimal
    discounts: tuple[Decimal, Decimal, Decimal]  # 12, 24, 36 months
    power_included: bool
    cloud_price: Decimal | None
    reserved_discount: Decimal
    discount_rate: Decimal
    grid_carbon: Decimal


# option -> category -> (upfront, monthly)
_Plan = dict[Option, dict[Category, tuple[Decimal, Decimal]]]


def _values(inp: TcoInput, assumptions: Assumptions) -> _Values:
    config = inp.configuration
    a = assumptions
    servers = Decimal(config.servers)
    managed_fee: Decimal | None
    if config.managed_monthly_price is not None:
        managed_fee = config.managed_monthly_price.amount * servers
    elif "managed_monthly_price" in a:
        managed_fee = a.value("managed_monthly_price") * config.gpus_per_server * servers
    else:
        managed_fee = None
    return _Values(
        servers=servers,
        gpus=servers * config.gpus_per_server,
        full_kw=servers * config.power_w / _W_PER_KW,
        hardware=servers * config.price.amount,
        electricity=a.value("electricity_price_per_kwh"),
        pue=a.value("pue"),
        idle=a.value("idle_power_fraction"),
        colocation=a.value("colocation_per_kw_month"),
        staff_per_fte_month=a.value("staff_cost_per_year") / _12,
        fte=a.value("staff_fte_per_server"),
        managed_fte=a.value("managed_staff_fte_per_server"),
        installation=a.value("installation_cost"),
        support=a.value("support_pct_per_year"),
        spares=a.value("spares_pct_per_year"),
        insurance=a.value("insurance_pct_per_year"),
        network=a.value("network_per_server_month"),
        software=a.value("software_per_gpu_year"),
        managed_fee=managed_fee,
        setup_months=a.value("managed_setup_fee_months"),
        discounts=(
            a.value("managed_discount_12m_pct"),
            a.value("managed_discount_24m_pct"),
            a.value("managed_discount_36m_pct"),
        ),
        power_included=a.value("managed_power_included") == _ONE,
        cloud_price=a.value("cloud_price_per_gpu_hour")
        if "cloud_price_per_gpu_hour" in a
        else None,
        reserved_discount=a.value("cloud_reserved_discount_pct"),
        discount_rate=a.value("discount_rate"),
        grid_carbon=a.value("grid_carbon_kg_per_kwh"),
    )


def _it_kw(v: _Values, utilization: Decimal) -> Decimal:
    return v.full_kw * (v.idle + (_ONE - v.idle) * utilization)


def _contract_discount(v: _Values, months: int) -> Decimal:
    twelve, twenty_four, thirty_six = v.discounts
    if months >= 36:
        return thirty_six
    if months >= 24:
        return twenty_four
    if months >= 12:
        return twelve
    return _ZERO


def _plan(v: _Values, utilization: Decimal, months: int, electricity: Decimal) -> _Plan:
    it_kwh_month = _it_kw(v, utilization) * _HOURS_PER_MONTH
    power = it_kwh_month * electricity
    cooling = it_kwh_month * (v.pue - _ONE) * electricity
    staff = v.staff_per_fte_month * v.servers
    software = v.software * v.gpus / _12
    per_year_of_hardware = v.hardware / _12
    plan: _Plan = {
        Option.ON_PREMISES: {
            Category.CAPITAL: (v.hardware, _ZERO),
            Category.INSTALLATION: (v.installation * v.servers, _ZERO),
            Category.POWER: (_ZERO, power),
            Category.COOLING: (_ZERO, cooling),
            Category.SPACE: (_ZERO, v.colocation * v.full_kw),
            Category.STAFF: (_ZERO, staff * v.fte),
            Category.SUPPORT: (_ZERO, per_year_of_hardware * v.support),
            Category.SPARES: (_ZERO, per_year_of_hardware * v.spares),
            Category.INSURANCE: (_ZERO, per_year_of_hardware * v.insurance),
            Category.NETWORK: (_ZERO, v.network * v.servers),
            Category.SOFTWARE: (_ZERO, software),
        }
    }
    if v.managed_fee is not None:
        fees = v.managed_fee * (_ONE - _contract_discount(v, months))
        managed = {
            Category.SETUP: (v.managed_fee * v.setup_months, _ZERO),
            Category.HOSTING_FEES: (_ZERO, fees),
            Category.STAFF: (_ZERO, staff * v.managed_fte),
            Category.SOFTWARE: (_ZERO, software),
        }
        if not v.power_included:
            managed[Category.POWER] = (_ZERO, power)
            managed[Category.COOLING] = (_ZERO, cooling)
        plan[Option.MANAGED] = managed
    if v.cloud_price is not None:
        all_hours = v.gpus * _HOURS_PER_MONTH
        for option, monthly in (
            (Option.CLOUD, all_hours * utilization * v.cloud_price),
            (Option.CLOUD_RESERVED, all_hours * v.cloud_price * (_ONE - v.reserved_discount)),
        ):
            plan[option] = {
                Category.CLOUD: (_ZERO, monthly),
                Category.STAFF: (_ZERO, staff * v.managed_fte),
                Category.SOFTWARE: (_ZERO, software),
            }
    return plan


def _flows(lines: Mapping[Category, tuple[Decimal, Decimal]]) -> tuple[Decimal, Decimal]:
    upfront = _ZERO
    monthly = _ZERO
    for up, month in lines.values():
        upfront += up
        monthly += month
    return upfront, monthly


def _rounded_total(lines: Mapping[Category, tuple[Decimal, Decimal]], months: int) -> Decimal:
    return sum((round_money(up + month * months) for up, month in lines.values()), _ZERO)


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


def _break_evens(plan: _Plan, months: int) -> BreakEven:
    own = _flows(plan[Option.ON_PREMISES])

    def against(option: Option) -> int | None:
        lines = plan.get(option)
        return None if lines is None else _break_even(own, _flows(lines), months)

    return BreakEven(
        vs_managed=against(Option.MANAGED),
        vs_cloud=against(Option.CLOUD),
        vs_cloud_reserved=against(Option.CLOUD_RESERVED),
    )


def _npv(upfront: Decimal, monthly: Decimal, months: int, rate: Decimal) -> Decimal:
    monthly_rate = (_ONE + rate) ** (_ONE / _12) - _ONE
    annuity = (_ONE - (_ONE + rate) ** (Decimal(-months) / _12)) / monthly_rate
    return upfront + monthly * annuity


_INCLUDES: Mapping[Option, str] = MappingProxyType(
    {
        Option.ON_PREMISES: gettext_noop(
            "You buy and run the servers: hardware, installation, power, cooling, colocation "
            "space, staff, support, spares, insurance, network and software."
        ),
        Option.MANAGED: gettext_noop(
            "The host owns and runs the servers: the fee includes power, cooling, space, "
            "hardware support and replacement; you keep the application work and software."
        ),
        Option.CLOUD: gettext_noop(
            "Cloud GPUs on demand: you pay only the GPU-hours you use, plus your own "
            "application work and software."
        ),
        Option.CLOUD_RESERVED: gettext_noop(
            "Cloud GPUs reserved for one year at a time: every hour is billed, used or not, "
            "plus your own application work and software."
        ),
    }
)


_MANAGED_WITHOUT_POWER = gettext_noop(
    "The host owns and runs the servers: the fee includes space, hardware support and "
    "replacement; power and cooling are billed at your electricity price; you keep the "
    "application work and software."
)


def _option_cost(
    option: Option,
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
    total = sum(by_category.values(), _ZERO)
    upfront, monthly = _flows(lines)
    first = Money(round_money(upfront + monthly), currency)
    rest = Money(round_money(monthly), currency)
    cumulative = tuple(
        Money(round_money(upfront + monthly * m), currency) for m in range(1, months + 1)
    )
    year = Money(round_money(monthly * _12), currency)
    years = months // MONTHS_PER_YEAR
    npv = None
    if discount_rate > 0:
        npv = Money(round_money(_npv(upfront, monthly, months, discount_rate)), currency)
    return OptionCost(
        option=option,
        total=Money(total, currency),
        by_category=MappingProxyType({k: Money(v, currency) for k, v in by_category.items()}),
        monthly=(first,) + (rest,) * (months - 1),
        monthly_cumulative=cumulative,
        yearly=(Money(round_money(upfront + monthly * _12), currency),) + (year,) * (years - 1),
        npv=npv,
        cost_per_gpu_hour=Money(round_money(total / gpu_hours_used), currency),
        includes=includes,
    )


def _book_values(
    v: _Values, years: int, depreciation_years: Decimal, residual: Decimal, currency: str
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


def _sensitivity(v: _Values, inp: TcoInput) -> tuple[SensitivityRow, ...]:
    months = inp.horizon_years * MONTHS_PER_YEAR
    currency = inp.assumptions.currency
    cases: list[tuple[SensitivityParameter, Decimal, Message, Decimal, Decimal, int]] = []
    for change in SENSITIVITY_ELECTRICITY:
        label = _msg(gettext_noop("Electricity price %(change)s%%"), change=_signed_percent(change))
        cases.append(
            (
                SensitivityParameter.ELECTRICITY_PRICE,
                change,
                label,
                v.electricity * (_ONE + change),
                inp.utilization,
                months,
            )
        )
    for utilization in SENSITIVITY_UTILIZATION:
        label = _msg(gettext_noop("Utilisation %(percent)s%%"), percent=_percent(utilization))
        cases.append(
            (
                SensitivityParameter.UTILIZATION,
                utilization,
                label,
                v.electricity,
                utilization,
                months,
            )
        )
    for years in SENSITIVITY_HORIZON_YEARS:
        label = _msg(gettext_noop("Horizon %(years)s years"), years=years)
        cases.append(
            (
                SensitivityParameter.HORIZON_YEARS,
                Decimal(years),
                label,
                v.electricity,
                inp.utilization,
                years * MONTHS_PER_YEAR,
            )
        )
    rows = []
    for parameter, value, label, electricity, utilization, horizon in cases:
        plan = _plan(v, utilization, horizon, electricity)
        totals = {
            str(option): Money(_rounded_total(lines, horizon), currency)
            for option, lines in plan.items()
        }
        rows.append(
            SensitivityRow(
                parameter=parameter,
                value=value,
                label=label,
                totals=MappingProxyType(totals),
                break_even=_break_evens(plan, horizon),
            )
        )
    return tuple(rows)


def _percent(fraction: Decimal) -> str:
    return str((fraction * 100).normalize().quantize(_ONE))


def _signed_percent(fraction: Decimal) -> str:
    text = _percent(fraction)
    return text if fraction < 0 else "+" + text


def compute_tco(inp: TcoInput, *, with_sensitivity: bool = True) -> TcoResult:
    """Price the three ways of getting the GPUs over the horizon; pure, no I/O."""
    config = inp.configuration
    assumptions = inp.assumptions.for_gpu_model(config.gpu_model)
    currency = assumptions.currency
    v = _values(inp, assumptions)
    months = inp.horizon_years * MONTHS_PER_YEAR
    plan = _plan(v, inp.utilization, months, v.electricity)
    gpu_hours_used = v.gpus * _HOURS_PER_MONTH * months * inp.utilization

    costs: dict[Option, OptionCost] = {}
    for option, lines in plan.items():
        includes = _INCLUDES[option]
        if option is Option.MANAGED and not v.power_included:
            includes = _MANAGED_WITHOUT_POWER
        costs[option] = _option_cost(
            option, lines, months, currency, gpu_hours_used, v.discount_rate, Message(includes)
        )
    order = list(Option)
    cheapest = min(costs, key=lambda option: (costs[option].total.amount, order.index(option)))

    it_kwh_year = _it_kw(v, inp.utilization) * HOURS_PER_YEAR
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
    if Option.MANAGED not in costs:
        explanations.append(
            Message(
                gettext_noop(
                    "No managed-hosting price is known for this configuration; set "
                    "managed_monthly_price to compare."
                )
            )
        )
    if Option.CLOUD not in costs:
        explanations.append(
            _msg(
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
        on_premises=costs[Option.ON_PREMISES],
        managed=costs.get(Option.MANAGED),
        cloud=costs.get(Option.CLOUD),
        cloud_reserved=costs.get(Option.CLOUD_RESERVED),
        break_even_month=_break_evens(plan, months),
        cheapest=cheapest,
        sensitivity=_sensitivity(v, inp) if with_sensitivity else (),
        it_energy_kwh_per_year=it_kwh_year,
        facility_energy_kwh_per_year=facility_kwh_year,
        co2e_kg_per_year=facility_kwh_year * v.grid_carbon,
        book_values=_book_values(
            v,
            inp.horizon_years,
            assumptions.value("depreciation_years"),
            assumptions.value("residual_value_pct"),
            currency,
        ),
        assumptions=tuple(assumptions.values()),
        explanations=tuple(explanations),
    )
