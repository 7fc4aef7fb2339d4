"""The provider's own price for managed hosting: cost-plus from the host's own cost base, per
contract term, never below the hardware's payback, placed in the market band.

The host is charged its own inputs (the ``host_*`` assumptions: its halls' PUE, its large-consumer
power contract, its space at cost, fleet spares, fleet staff, its network), never the customer's
retail ones. Per server and month, for a committed term:

    amortisation  (price - the resale value at the end of its life, discounted) paid back over
                  the server's life L = ``host_hardware_life_years`` with interest at the
                  host's cost of capital: an annuity, r = (1 + cost of capital)^(1/12) - 1
    power         full-load draw x 730 h x host PUE x host electricity price, when the fee
                  includes power (a flat fee must cover a customer who runs flat out)
    space         host space cost per provisioned kW
    staff         host operations FTE per server x fully loaded salary / 12
    support       host spares and support share per year x price / 12
    network       per server

Month to month is priced as a fleet does: the lines a server costs whether it is let or not
(all but power) are divided by the expected fleet occupancy (``host_fleet_occupancy``), so the
rented servers carry the idle ones. That is the list price:

    list          month-to-month cost / (1 - margin)   (or the fee sales set)
    term fee      list x (1 - the term's discount), never below the term's floor
    floor         the term's amortisation line (month to month: with the occupancy)
    setup         the real installation: ``host_setup_cost_per_server`` + GPUs x
                  ``host_setup_cost_per_gpu``, once, whatever the term
    renewal       once a contract has paid the hardware back with interest (its fee minus its
                  running cost covers the annuity of the price over the term), staying on after
                  it bills the running cost / (1 - margin) only

``customer`` on each term holds the same lines at the customer's own inputs (the server run on
premises: straight-line depreciation, PUE, tariff, colocation rent, staff, retail support), so
staff see where the margin comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ..assumptions import Assumptions
from ..money import Money, round_money
from .inputs import (
    DECIMAL_HOURS_PER_MONTH,
    DECIMAL_MONTHS_PER_YEAR,
    ONE,
    W_PER_KW,
    ZERO,
    TcoConfiguration,
)
from .market import MarketBand, MarketOffers, MarketPosition, market_band

TERMS = (0, 12, 24, 36)  # contract terms in months; 0: month to month


class FeeBasis(StrEnum):
    COST_PLUS = "cost_plus"  # the provider's price model
    OVERRIDE = "override"  # a fee the sales team set


@dataclass(frozen=True, slots=True)
class ProviderCost:
    """What one server costs per month, by line (exact amounts): the host's, or the customer's
    own for the same server."""

    amortisation: Money
    power: Money
    space: Money
    staff: Money
    support: Money
    network: Money

    @property
    def total(self) -> Money:
        return (
            self.amortisation + self.power + self.space + self.staff + self.support + self.network
        )

    @property
    def running(self) -> Money:
        """Everything but the hardware's payback."""
        return self.total - self.amortisation


@dataclass(frozen=True, slots=True)
class TermFee:
    months: int  # 0: month to month
    monthly: Money  # per server, rounded to cents: what the customer pays
    setup: Money  # one-off per server: the host's installation cost, rounded
    per_gpu_month: Money  # rounded
    floor: Money  # the term's amortisation line, per server, rounded
    discount: Decimal  # the term's discount (a fraction), from the regional terms
    cost: ProviderCost  # the host's cost over this term, from the host's own cost base
    market: MarketPosition
    floored: bool  # raised to the floor: the discount or the override went below it
    # Per server and month after the contract ends, rounded: running cost + margin once the
    # contract has paid the hardware back, else the same fee.
    renewal: Money
    # The same server's lines at the customer's own inputs (run on premises), for comparison.
    customer: ProviderCost

    @property
    def paid_back(self) -> bool:
        return self.months > 0 and self.renewal.amount < self.monthly.amount


@dataclass(frozen=True, slots=True)
class ManagedOffer:
    """The managed-hosting price of one server, for every contract term."""

    basis: FeeBasis
    currency: str
    gpus_per_server: int
    terms: tuple[TermFee, ...]  # in ``TERMS`` order
    margin: Decimal
    cost_of_capital: Decimal
    power_included: bool
    band: MarketBand | None
    override: Money | None  # per server, month to month, as set
    occupancy: Decimal = ONE  # the host's expected fleet occupancy, month to month

    def term(self, horizon_months: int) -> TermFee:
        """The contract a customer staying ``horizon_months`` signs: the longest term that
        fits in it (a 5-year stay signs 36 months and renews for the rest)."""
        return max(
            (fee for fee in self.terms if fee.months <= horizon_months),
            key=lambda fee: fee.months,
        )

    def monthly_over(self, horizon_months: int) -> Decimal:
        """The average fee per server and month over a stay of ``horizon_months``: the
        contract's fee for its months, then its renewal fee (exact)."""
        fee = self.term(horizon_months)
        if fee.months == 0 or horizon_months <= fee.months:
            return fee.monthly.amount
        renewed = horizon_months - fee.months
        return (fee.monthly.amount * fee.months + fee.renewal.amount * renewed) / Decimal(
            horizon_months
        )

    @property
    def override_below_floor(self) -> bool:
        return self.basis is FeeBasis.OVERRIDE and any(fee.floored for fee in self.terms)


def managed_offer(
    config: TcoConfiguration, assumptions: Assumptions, *, market: MarketOffers | None = None
) -> ManagedOffer:
    """Price one server of ``config`` as the host: pure, from the host's own cost base of its
    region (resolved for its GPU model), placed in the band of the ``market`` offers (the
    reference offers when None)."""
    a = assumptions
    currency = a.currency
    price = config.price.amount
    gpus = config.gpus_per_server
    override = _override(config, a)
    margin = a.value("provider_margin_pct")
    capital = a.value("provider_cost_of_capital")
    occupancy = a.value("host_fleet_occupancy")
    power_included = a.value("managed_power_included") == ONE
    full_kw = Decimal(config.power_w) / W_PER_KW
    provisioned_kw = Decimal(config.provisioned_w or config.power_w) / W_PER_KW
    life_months = int(a.value("host_hardware_life_years") * DECIMAL_MONTHS_PER_YEAR)
    resale = price * a.value("host_residual_value_pct") * _discount(capital, life_months)
    committed = ProviderCost(
        amortisation=Money(_annuity(price - resale, capital, life_months), currency),
        power=Money(
            full_kw
            * DECIMAL_HOURS_PER_MONTH
            * a.value("host_pue")
            * a.value("host_electricity_price_per_kwh")
            if power_included
            else ZERO,
            currency,
        ),
        space=Money(a.value("host_space_per_kw_month") * provisioned_kw, currency),
        staff=Money(
            a.value("host_staff_fte_per_server")
            * a.value("staff_cost_per_year")
            / DECIMAL_MONTHS_PER_YEAR,
            currency,
        ),
        support=Money(
            price * a.value("host_support_pct_per_year") / DECIMAL_MONTHS_PER_YEAR, currency
        ),
        network=Money(a.value("host_network_per_server_month"), currency),
    )
    # Month to month: what a server costs whether it is let or not is carried by the let ones.
    fleet = ProviderCost(
        amortisation=_share(committed.amortisation, occupancy),
        power=committed.power,
        space=_share(committed.space, occupancy),
        staff=_share(committed.staff, occupancy),
        support=_share(committed.support, occupancy),
        network=_share(committed.network, occupancy),
    )
    customer = _customer_cost(config, a, full_kw, provisioned_kw)
    band = market_band(
        config.gpu_model,
        currency,
        usd_per_eur=a.value("usd_per_eur"),
        gbp_per_eur=a.value("gbp_per_eur"),
        offers=market,
    )
    discounts = {
        0: ZERO,
        12: a.value("managed_discount_12m_pct"),
        24: a.value("managed_discount_24m_pct"),
        36: a.value("managed_discount_36m_pct"),
    }
    list_price = fleet.total.amount / (ONE - margin) if override is None else override
    setup = round_money(
        a.value("host_setup_cost_per_server") + a.value("host_setup_cost_per_gpu") * gpus
    )
    terms = []
    for months in TERMS:
        cost = fleet if months == 0 else committed
        floor = cost.amortisation.amount
        discounted = list_price * (ONE - discounts[months])
        monthly = round_money(max(discounted, floor))
        renewal = monthly
        if months and monthly - cost.running.amount >= _annuity(price, capital, months):
            renewal = min(monthly, round_money(cost.running.amount / (ONE - margin)))
        terms.append(
            TermFee(
                months=months,
                monthly=Money(monthly, currency),
                setup=Money(setup, currency),
                per_gpu_month=Money(round_money(monthly / gpus), currency),
                floor=Money(round_money(floor), currency),
                discount=discounts[months],
                cost=cost,
                market=MarketPosition.UNKNOWN
                if band is None
                else band.position(Money(monthly / gpus, currency)),
                floored=discounted < floor,
                renewal=Money(renewal, currency),
                customer=customer,
            )
        )
    return ManagedOffer(
        basis=FeeBasis.COST_PLUS if override is None else FeeBasis.OVERRIDE,
        currency=currency,
        gpus_per_server=gpus,
        terms=tuple(terms),
        margin=margin,
        cost_of_capital=capital,
        power_included=power_included,
        band=band,
        override=None if override is None else Money(override, currency),
        occupancy=occupancy,
    )


def _customer_cost(
    config: TcoConfiguration, a: Assumptions, full_kw: Decimal, provisioned_kw: Decimal
) -> ProviderCost:
    """The same server run by the customer, per month, at the customer's inputs: the on-premises
    TCO's lines, with the hardware depreciated straight line and the server at full load."""
    currency = a.currency
    price = config.price.amount
    months = a.value("depreciation_years") * DECIMAL_MONTHS_PER_YEAR
    shares = (
        a.value("support_pct_per_year")
        + a.value("spares_pct_per_year")
        + a.value("insurance_pct_per_year")
    )
    return ProviderCost(
        amortisation=Money(price * (ONE - a.value("residual_value_pct")) / months, currency),
        power=Money(
            full_kw
            * DECIMAL_HOURS_PER_MONTH
            * a.value("pue")
            * a.value("electricity_price_per_kwh"),
            currency,
        ),
        space=Money(a.value("colocation_per_kw_month") * provisioned_kw, currency),
        staff=Money(
            a.value("staff_fte_per_server")
            * a.value("staff_cost_per_year")
            / DECIMAL_MONTHS_PER_YEAR,
            currency,
        ),
        support=Money(price * shares / DECIMAL_MONTHS_PER_YEAR, currency),
        network=Money(a.value("network_per_server_month"), currency),
    )


def _share(amount: Money, occupancy: Decimal) -> Money:
    return Money(amount.amount / occupancy, amount.currency)


def _override(config: TcoConfiguration, a: Assumptions) -> Decimal | None:
    """The fee the sales team set for one server, if any: the configuration's own, else the
    per-GPU assumption when it was set."""
    if config.managed_monthly_price is not None:
        return config.managed_monthly_price.amount
    if "managed_monthly_price" in a:
        return a.value("managed_monthly_price") * config.gpus_per_server
    return None


def _monthly_rate(yearly_rate: Decimal) -> Decimal:
    return (ONE + yearly_rate) ** (ONE / DECIMAL_MONTHS_PER_YEAR) - ONE


def _discount(yearly_rate: Decimal, months: int) -> Decimal:
    """What one unit ``months`` from now is worth today."""
    return (ONE + _monthly_rate(yearly_rate)) ** -months


def _annuity(principal: Decimal, yearly_rate: Decimal, months: int) -> Decimal:
    """The constant monthly payment that repays ``principal`` with interest in ``months``."""
    if yearly_rate == ZERO:
        return principal / Decimal(months)
    rate = _monthly_rate(yearly_rate)
    return principal * rate / (ONE - (ONE + rate) ** -months)
