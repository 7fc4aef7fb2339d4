"""Currency conversion with dated euro reference rates (the ECB's: units of a currency per euro).

Pure: the rates come in as ``DatedRate`` values (``catalog.selectors.exchange_rates`` reads them),
every conversion goes through the euro, as the ECB publishes only euro rates, and the result is
exact; money is rounded where it is shown or stored (``engine.money.round_money``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from ..assumptions.facts import RATE_CURRENCIES, RATES, RATES_AS_OF
from ..money import Money, amount_between, round_money

EUR = "EUR"
ONE = Decimal(1)
# Quote.exchange_rate and ExchangeRate.per_eur keep 6 decimal places.
RATE_QUANTUM = Decimal("0.000001")


class MissingRateError(LookupError):
    """No dated rate for a currency a conversion needs."""


@dataclass(frozen=True, slots=True)
class DatedRate:
    """``per_eur`` units of ``currency`` for one euro, the reference rate of ``rate_date``."""

    currency: str
    per_eur: Decimal
    rate_date: dt.date
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.per_eur, Decimal) or not self.per_eur > 0:
            raise ValueError("DatedRate.per_eur must be a Decimal above zero")


def built_in_rates() -> dict[str, DatedRate]:
    """The ECB annual averages the engine ships (``engine.assumptions`` RATES), by currency, with
    their citation: what a conversion uses until a dated reference rate is recorded."""
    return {
        currency: DatedRate(currency, RATES[name].value, dt.date(*RATES_AS_OF), RATES[name].source)
        for name, currency in RATE_CURRENCIES.items()
    }


def per_eur(currency: str, rates: Mapping[str, DatedRate]) -> Decimal:
    """Units of ``currency`` per euro (1 for the euro itself)."""
    if currency == EUR:
        return ONE
    rate = rates.get(currency)
    if rate is None:
        raise MissingRateError(currency)
    return rate.per_eur


def rate_between(source: str, target: str, rates: Mapping[str, DatedRate]) -> Decimal:
    """Units of ``target`` per unit of ``source``, through the euro (exact, not rounded)."""
    if source == target:
        return ONE
    return per_eur(target, rates) / per_eur(source, rates)


def rate_rounded(rate: Decimal) -> Decimal:
    """A rate to the 6 decimal places it is stored with, half up."""
    return rate.quantize(RATE_QUANTUM, rounding=ROUND_HALF_UP)


def eur_to(amount: Money, rate: DatedRate) -> Money:
    """A euro amount in ``rate.currency``."""
    if amount.currency != EUR:
        raise ValueError(f"expected an amount in EUR, got {amount.currency}")
    return Money(amount.amount * rate.per_eur, rate.currency)


def to_eur(amount: Money, rate: DatedRate) -> Money:
    """An amount in ``rate.currency`` in euros."""
    if amount.currency != rate.currency:
        raise ValueError(f"expected an amount in {rate.currency}, got {amount.currency}")
    return Money(amount.amount / rate.per_eur, EUR)


def convert(amount: Money, target: str, rates: Mapping[str, DatedRate]) -> Money:
    """``amount`` in ``target``: EUR -> X, X -> EUR or X -> Y through the euro."""
    if amount.currency == target:
        return amount
    codes = (amount.currency, target)
    per_eur_of = {code: per_eur(code, rates) for code in codes}
    return Money(amount_between(amount.amount, *codes, per_eur_of), target)


def convert_price(amount: Money, target: str, rates: Mapping[str, DatedRate]) -> Money:
    """A price in ``target``, to the cent (a catalog price converted where it is used)."""
    converted = convert(amount, target, rates)
    return converted if converted is amount else Money(round_money(converted.amount), target)


def rates_involved(
    rates: Iterable[DatedRate], observed: Iterable[str | None], currency: str
) -> tuple[DatedRate, ...]:
    """The ``rates`` that converting prices observed in ``observed`` (None: not converted) into
    ``currency`` used: the non-euro side of each conversion; none when nothing was converted."""
    converted = {code for code in observed if code and code != currency}
    if not converted:
        return ()
    involved = converted | {currency}
    return tuple(rate for rate in rates if rate.currency in involved)


def rates_oldest_date(rates: Mapping[str, DatedRate], *currencies: str) -> dt.date | None:
    """The date a conversion between ``currencies`` is as of: its oldest rate (None: all EUR)."""
    dates = [rates[c].rate_date for c in currencies if c != EUR and c in rates]
    return min(dates) if dates else None


def inverse_published(rate: Decimal) -> Decimal:
    """``1 / rate`` to the 5 significant digits the ECB publishes its rates with (1.0853,
    0.84215, 163.42): a quote in euros stores EUR per dollar rounded to 6 places, and this gives
    back the dollar rate it was computed from, as published (for rates below about 10: the
    quote currencies' are)."""
    inverse = ONE / rate
    return inverse.quantize(ONE.scaleb(inverse.adjusted() - 4), rounding=ROUND_HALF_UP)
