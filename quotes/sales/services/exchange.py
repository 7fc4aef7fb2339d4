"""The exchange rate a quote converts catalog prices with, by default the one every conversion of
the quote's date uses (``conversion_rates_get``: the ECB's reference rate, else the engine's
built-in annual average), recorded with its date and source."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from catalog.selectors.exchange_rates import conversion_rates_get
from engine.commerce.exchange import EUR, rate_between, rate_rounded, rates_oldest_date
from engine.money import CURRENCIES
from quotes.models import Quote


@dataclass(frozen=True, slots=True)
class QuoteRate:
    """Units of the quote's currency per unit of the other one, as of ``rate_date``."""

    rate: Decimal
    rate_date: dt.date
    source: str


def quote_rate_default(*, currency: str, on: dt.date) -> QuoteRate:
    """The rate of ``on`` between ``currency`` and the other quote currency: the one the
    configurations and the TCO of that day convert with, so a quote prices a part as the
    customer's result page did."""
    other = next(code for code in CURRENCIES if code != currency)
    needed = tuple(code for code in (currency, other) if code != EUR)
    rates = conversion_rates_get(on=on)
    # Of two quote currencies one is not the euro: the date is always found.
    rate_date = rates_oldest_date(rates, *needed) or on
    return QuoteRate(
        rate=rate_rounded(rate_between(other, currency, rates)),
        rate_date=rate_date,
        source="; ".join(dict.fromkeys(rates[code].source for code in needed)),
    )


def quote_rate_apply(quote: Quote, *, on: dt.date) -> None:
    """Fill an empty exchange rate with the reference rate of ``on`` (its date and source
    recorded); a rate typed by staff is theirs: no date, no source. Does not save."""
    if quote.exchange_rate is not None:
        quote.exchange_rate_date, quote.exchange_rate_source = None, ""
        return
    default = quote_rate_default(currency=quote.currency, on=on)
    quote.exchange_rate = default.rate
    quote.exchange_rate_date, quote.exchange_rate_source = default.rate_date, default.source
