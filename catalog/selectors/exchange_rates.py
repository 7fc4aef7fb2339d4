"""Reads of the ECB's reference rates: the rate of a day, as the engine's ``DatedRate``.

Answers are cached per version of the rates (``exchange_rates_version_get``, read at most once per
``DATA_VERSION_MS``): a run that adds or corrects a rate is seen by every process within that
time, and at once by the process that ran it (``versions_forget``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from functools import lru_cache

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from catalog.models import ExchangeRate
from catalog.selectors.versions import exchange_rates_version_get, per_version_cache
from engine.assumptions import RATE_CURRENCIES, Fact
from engine.commerce.exchange import EUR, DatedRate, built_in_rates

# The source every converted figure cites (English, like every stored source).
RATE_SOURCE = "ECB euro reference rate of {date}"


def exchange_rate_get(*, currency: str, on: dt.date | None = None) -> DatedRate | None:
    """The latest reference rate of ``currency`` on or before ``on`` (default: today), or None
    when none is recorded (and for the euro, which has no rate)."""
    if currency == EUR:
        return None
    return _latest_rates(on or timezone.localdate(), exchange_rates_version_get()).get(currency)


def exchange_rates_get(
    *, currencies: tuple[str, ...], on: dt.date | None = None
) -> dict[str, DatedRate]:
    """The rates of ``currencies`` known on ``on``, by currency (the unknown ones left out)."""
    found = {code: exchange_rate_get(currency=code, on=on) for code in currencies}
    return {code: rate for code, rate in found.items() if rate is not None}


def conversion_rates_get(*, on: dt.date | None = None) -> dict[str, DatedRate]:
    """The rate every conversion of ``on`` (default: today) uses, by currency: the latest ECB
    reference rate recorded by then, else the engine's built-in annual average (cited as such).
    The TCO's exchange-rate assumptions (``exchange_rate_facts_get``) are the same rates."""
    rates = built_in_rates()
    rates.update(exchange_rates_get(currencies=tuple(rates), on=on))
    return rates


def exchange_rate_facts_get() -> dict[str, Fact]:
    """The TCO's exchange-rate assumptions (``usd_per_eur``, ...) with the latest reference rate
    each, cited with its date; the ones without a recorded rate are left out (the engine's
    built-in annual averages then apply)."""
    facts = {}
    for name, currency in RATE_CURRENCIES.items():
        rate = exchange_rate_get(currency=currency)
        if rate is not None:
            facts[name] = Fact(rate.per_eur, None, rate.source)
    return facts


@lru_cache(maxsize=64)
def _latest_rates(on: dt.date, _version: tuple) -> dict[str, DatedRate]:
    """Every currency's latest rate on or before ``on`` (one query)."""
    latest = (
        ExchangeRate.objects.filter(currency=OuterRef("currency"), rate_date__lte=on)
        .order_by("-rate_date", "-id")
        .values("id")[:1]
    )
    rows = ExchangeRate.objects.filter(rate_date__lte=on, id=Subquery(latest)).values_list(
        "currency", "per_eur", "rate_date"
    )
    return {
        currency: DatedRate(
            currency, _plain(per_eur), rate_date, RATE_SOURCE.format(date=rate_date.isoformat())
        )
        for currency, per_eur, rate_date in rows
    }


def _plain(rate: Decimal) -> Decimal:
    """1.085300 -> 1.0853, as the ECB publishes it (never 1E+2)."""
    trimmed = rate.normalize()
    exponent = trimmed.as_tuple().exponent
    return trimmed.quantize(Decimal(1)) if isinstance(exponent, int) and exponent > 0 else trimmed


per_version_cache(_latest_rates.cache_clear)
