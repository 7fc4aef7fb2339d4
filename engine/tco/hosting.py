"""The provider's own price for managed hosting: cost-plus, per contract term, never below the
hardware's amortisation, placed in the market band.

Per server and month, for a contract of ``n`` months (month to month: the
``managed_no_commitment_months`` the provider must recover the hardware in):

    amortisation  price x r / (1 - (1 + r)^-n), r = (1 + cost of capital)^(1/12) - 1
                  (price / n when the cost of capital is 0): the annuity that pays the
                  hardware back with interest over the term
    power         full-load draw x 730 h x PUE x electricity price, when the fee includes power
                  (a flat fee must cover a customer who runs flat out)
    space         colocation rent x provisioned kW
    staff         the operations work the host takes over: (on-premises FTE - the FTE that
                  stays with the customer) x fully loaded salary / 12
    support       (support + spares + insurance share per year) x price / 12
    network       uplink and transit per server
    fee           cost / (1 - margin) x (1 - the term's discount)

The same regional assumptions as the TCO (staff edit them per region in the admin), so the
provider's price and the customer's own-it comparison never disagree on a kWh or a salary.

A fee is never below the amortisation of its term (``floor``): a discount or an override that
would go under it is raised to it and flagged (``floored``). An override is a fee the sales team
set for the server (a catalog fee, or ``managed_monthly_price`` in the API), month to month;
the term discounts apply to it as to the computed fee.
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
    """What one server costs the host per month over a term, by line (exact amounts)."""

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


@dataclass(frozen=True, slots=True)
class TermFee:
    months: int  # 0: month to month
    monthly: Money  # per server, rounded to cents: what the customer pays
    setup: Money  # one-off per server: the setup months of this fee, rounded
    per_gpu_month: Money  # rounded
    floor: Money  # the amortisation over the term, per server, rounded
    discount: Decimal  # the term's discount (a fraction), from the regional terms
    cost: ProviderCost  # the host's cost over this term
    market: MarketPosition
    floored: bool  # raised to the floor: the discount or the override went below it


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

    def term(self, horizon_months: int) -> TermFee:
        """The contract a customer staying ``horizon_months`` signs: the longest term that
        fits in it (a 5-year stay signs 36 months and renews at the same fee)."""
        return max(
            (fee for fee in self.terms if fee.months <= horizon_months),
            key=lambda fee: fee.months,
        )

    @property
    def override_below_floor(self) -> bool:
        return self.basis is FeeBasis.OVERRIDE and any(fee.floored for fee in self.terms)


def managed_offer(
    config: TcoConfiguration, assumptions: Assumptions, *, market: MarketOffers | None = None
) -> ManagedOffer:
    """Price one server of ``config`` as the host: pure, from the assumptions of its region
    (resolved for its GPU model), placed in the band of the ``market`` offers (the reference
    offers when None)."""
    a = assumptions
    currency = a.currency
    price = config.price.amount
    gpus = config.gpus_per_server
    override = _override(config, a)
    margin = a.value("provider_margin_pct")
    capital = a.value("provider_cost_of_capital")
    power_included = a.value("managed_power_included") == ONE
    electricity = a.value("electricity_price_per_kwh")
    running = {
        "power": (
            Decimal(config.power_w)
            / W_PER_KW
            * DECIMAL_HOURS_PER_MONTH
            * a.value("pue")
            * electricity
            if power_included
            else ZERO
        ),
        "space": a.value("colocation_per_kw_month")
        * Decimal(config.provisioned_w or config.power_w)
        / W_PER_KW,
        "staff": max(
            ZERO, a.value("staff_fte_per_server") - a.value("managed_staff_fte_per_server")
        )
        * a.value("staff_cost_per_year")
        / DECIMAL_MONTHS_PER_YEAR,
        "support": price
        * (
            a.value("support_pct_per_year")
            + a.value("spares_pct_per_year")
            + a.value("insurance_pct_per_year")
        )
        / DECIMAL_MONTHS_PER_YEAR,
        "network": a.value("network_per_server_month"),
    }
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
    no_commitment = int(a.value("managed_no_commitment_months"))
    terms = []
    for months in TERMS:
        amortisation = _annuity(price, capital, months or no_commitment)
        cost = ProviderCost(
            amortisation=Money(amortisation, currency),
            **{name: Money(value, currency) for name, value in running.items()},
        )
        list_price = cost.total.amount / (ONE - margin) if override is None else override
        discounted = list_price * (ONE - discounts[months])
        monthly = round_money(max(discounted, amortisation))
        setup = round_money(monthly * a.value("managed_setup_fee_months"))
        terms.append(
            TermFee(
                months=months,
                monthly=Money(monthly, currency),
                setup=Money(setup, currency),
                per_gpu_month=Money(round_money(monthly / gpus), currency),
                floor=Money(round_money(amortisation), currency),
                discount=discounts[months],
                cost=cost,
                market=MarketPosition.UNKNOWN
                if band is None
                else band.position(Money(monthly / gpus, currency)),
                floored=discounted < amortisation,
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
    )


def _override(config: TcoConfiguration, a: Assumptions) -> Decimal | None:
    """The fee the sales team set for one server, if any: the configuration's own, else the
    per-GPU assumption when it was set."""
    if config.managed_monthly_price is not None:
        return config.managed_monthly_price.amount
    if "managed_monthly_price" in a:
        return a.value("managed_monthly_price") * config.gpus_per_server
    return None


def _annuity(principal: Decimal, yearly_rate: Decimal, months: int) -> Decimal:
    """The constant monthly payment that repays ``principal`` with interest in ``months``."""
    if yearly_rate == ZERO:
        return principal / Decimal(months)
    rate = (ONE + yearly_rate) ** (ONE / DECIMAL_MONTHS_PER_YEAR) - ONE
    return principal * rate / (ONE - (ONE + rate) ** -months)
