"""The model: exact upfront and monthly amounts per category, their flows and net present value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from ..assumptions import Assumptions
from ..money import round_money
from .hosting import ManagedOffer, managed_offer
from .inputs import (
    DECIMAL_HOURS_PER_MONTH,
    DECIMAL_MONTHS_PER_YEAR,
    ONE,
    W_PER_KW,
    ZERO,
    Category,
    TcoInput,
    Way,
)

# --------------------------------------------------------------------------------------------
# The model: exact upfront and monthly amounts per category (constant monthly costs, so every
# total, series and break-even has a closed form)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Values:
    """The numbers the model reads, pulled once from the assumptions and the input."""

    servers: Decimal
    gpus: Decimal  # all GPUs
    full_kw: Decimal  # all servers at full load
    provisioned_kw: Decimal  # all servers, as the site provisions them (rent)
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
    managed: ManagedOffer  # per server, every contract term
    service: Decimal  # the service tier's price per server and month (0: none chosen)
    power_included: bool
    cloud_price: Decimal | None
    reserved_discount: Decimal
    discount_rate: Decimal
    grid_carbon: Decimal
    always_on: bool  # cloud billed for every hour


# option -> category -> (upfront, monthly)
CostPlan = dict[Way, dict[Category, tuple[Decimal, Decimal]]]


def tco_values(inp: TcoInput, assumptions: Assumptions) -> Values:
    config = inp.configuration
    a = assumptions
    servers = Decimal(config.servers)
    return Values(
        servers=servers,
        gpus=servers * config.gpus_per_server,
        full_kw=servers * config.power_w / W_PER_KW,
        provisioned_kw=servers * (config.provisioned_w or config.power_w) / W_PER_KW,
        hardware=servers * config.price.amount,
        electricity=a.value("electricity_price_per_kwh"),
        pue=a.value("pue"),
        idle=a.value("idle_power_fraction"),
        colocation=a.value("colocation_per_kw_month"),
        staff_per_fte_month=a.value("staff_cost_per_year") / DECIMAL_MONTHS_PER_YEAR,
        fte=a.value("staff_fte_per_server"),
        managed_fte=a.value("managed_staff_fte_per_server"),
        installation=a.value("installation_cost"),
        support=a.value("support_pct_per_year"),
        spares=a.value("spares_pct_per_year"),
        insurance=a.value("insurance_pct_per_year"),
        network=a.value("network_per_server_month"),
        software=a.value("software_per_gpu_year"),
        managed=managed_offer(config, a, market=inp.market_offers),
        service=ZERO if inp.service_tier is None else inp.service_tier.monthly.amount,
        power_included=a.value("managed_power_included") == ONE,
        cloud_price=a.value("cloud_price_per_gpu_hour")
        if "cloud_price_per_gpu_hour" in a
        else None,
        reserved_discount=a.value("cloud_reserved_discount_pct"),
        discount_rate=a.value("discount_rate"),
        grid_carbon=a.value("grid_carbon_kg_per_kwh"),
        always_on=inp.always_on,
    )


def it_kw(v: Values, utilization: Decimal) -> Decimal:
    return v.full_kw * (v.idle + (ONE - v.idle) * utilization)


def cost_plan(v: Values, utilization: Decimal, months: int, electricity: Decimal) -> CostPlan:
    it_kwh_month = it_kw(v, utilization) * DECIMAL_HOURS_PER_MONTH
    power = it_kwh_month * electricity
    cooling = it_kwh_month * (v.pue - ONE) * electricity
    staff = v.staff_per_fte_month * v.servers
    software = v.software * v.gpus / DECIMAL_MONTHS_PER_YEAR
    per_year_of_hardware = v.hardware / DECIMAL_MONTHS_PER_YEAR
    plan: CostPlan = {
        Way.ON_PREMISES: {
            Category.CAPITAL: (v.hardware, ZERO),
            Category.INSTALLATION: (v.installation * v.servers, ZERO),
            Category.POWER: (ZERO, power),
            Category.COOLING: (ZERO, cooling),
            Category.SPACE: (ZERO, v.colocation * v.provisioned_kw),
            Category.STAFF: (ZERO, staff * v.fte),
            Category.SUPPORT: (ZERO, per_year_of_hardware * v.support),
            Category.SPARES: (ZERO, per_year_of_hardware * v.spares),
            Category.INSURANCE: (ZERO, per_year_of_hardware * v.insurance),
            Category.NETWORK: (ZERO, v.network * v.servers),
            Category.SOFTWARE: (ZERO, software),
        }
    }
    # The host's fee for the contract the horizon signs, as quoted (cents, per server), then
    # its renewal fee for the rest of the horizon: the average month.
    contract = v.managed.term(months)
    managed = {
        Category.SETUP: (contract.setup.amount * v.servers, ZERO),
        Category.HOSTING_FEES: (ZERO, v.managed.monthly_over(months) * v.servers),
        Category.STAFF: (ZERO, staff * v.managed_fte),
        Category.SOFTWARE: (ZERO, software),
    }
    if v.service:
        managed[Category.SUPPORT] = (ZERO, v.service * v.servers)  # the chosen service tier
    if not v.power_included:
        managed[Category.POWER] = (ZERO, power)
        managed[Category.COOLING] = (ZERO, cooling)
    plan[Way.MANAGED] = managed
    if v.cloud_price is not None:
        all_hours = v.gpus * DECIMAL_HOURS_PER_MONTH
        billed = ONE if v.always_on else utilization
        for option, monthly in (
            (Way.CLOUD, all_hours * billed * v.cloud_price),
            (Way.CLOUD_RESERVED, all_hours * v.cloud_price * (ONE - v.reserved_discount)),
        ):
            plan[option] = {
                Category.CLOUD: (ZERO, monthly),
                Category.STAFF: (ZERO, staff * v.managed_fte),
                Category.SOFTWARE: (ZERO, software),
            }
    return plan


def cash_flows(lines: Mapping[Category, tuple[Decimal, Decimal]]) -> tuple[Decimal, Decimal]:
    upfront = ZERO
    monthly = ZERO
    for up, month in lines.values():
        upfront += up
        monthly += month
    return upfront, monthly


def rounded_total(lines: Mapping[Category, tuple[Decimal, Decimal]], months: int) -> Decimal:
    return sum((round_money(up + month * months) for up, month in lines.values()), ZERO)


def net_present_value(upfront: Decimal, monthly: Decimal, months: int, rate: Decimal) -> Decimal:
    monthly_rate = (ONE + rate) ** (ONE / DECIMAL_MONTHS_PER_YEAR) - ONE
    annuity = (ONE - (ONE + rate) ** (Decimal(-months) / DECIMAL_MONTHS_PER_YEAR)) / monthly_rate
    return upfront + monthly * annuity
