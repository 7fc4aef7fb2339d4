"""The market band of managed GPU hosting: what dated public offers charge per GPU and month.

The band is a pure function of a set of offers (``MarketOffers``). By default the set is
``engine/data/hosting_offers.csv``, each offer with its provider, product, price, date seen and
price page: the rows of GPUQuote's reference file of 71 public offers (``gpu_hosting_offers.csv``:
dedicated servers per month and cloud GPUs per hour) that ``offer_counts`` keeps, plus the dated
on-demand prices the TCO already cites for B200, H200 and MI300X
(``engine/assumptions/gpu_prices.py``). Once a price source of the "hosting offers" kind has
applied a file in that reference format, the catalog passes its offers in instead
(``catalog.selectors.hosting_offers``). An hourly price counts as 730 hours a month, the way hosts
cap hourly billing at a monthly price.

Offers are grouped by GPU class, the GPUs a customer compares with one another: an MI300X is
offered against the H100 (192 GB of HBM3 for H100-class work), the RTX 6000 Ada and RTX PRO 6000
against the L40S. A class's band runs from its cheapest to its dearest offer per GPU-month.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path

from ..assumptions.gpu_models import MARKET_CLASS_NAMES, gpu_model
from ..i18n import gettext_noop
from ..money import Money, amount_between, round_money

OFFERS_FILE = Path(__file__).resolve().parent.parent / "data" / "hosting_offers.csv"
# Translated where it is shown; a source's own name (the other origin) stays as staff wrote it.
REFERENCE_ORIGIN = gettext_noop("GPUQuote reference file of public hosting offers")
HOURS_PER_MONTH = Decimal(730)

# How the reference file words an offer's billing period and what its price covers.
PERIODS = ("month", "hour")
PRICE_PER = ("offer", "gpu")  # the whole offer (all its GPUs) or one GPU
# The reference file's confidence levels, surest first; "low" offers stay out of the band
# (a price read second-hand, or an auction), see ``offer_counts``.
CONFIDENCE_LEVELS = ("high", "medium-high", "medium", "low-medium", "low")
_LEFT_OUT_CONFIDENCE = "low"
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")

# Market classes and their names live in the GPU model records (``engine.assumptions.gpu_models``).
CLASS_NAMES = MARKET_CLASS_NAMES


class MarketPosition(StrEnum):
    BELOW = "below"
    WITHIN = "within"
    ABOVE = "above"
    UNKNOWN = "unknown"  # no dated offer for the GPU's class


@dataclass(frozen=True, slots=True)
class HostingOffer:
    provider: str
    product: str
    market_class: str
    per_gpu_month: Money  # in the offer's own currency
    seen_on: dt.date
    source_url: str


@dataclass(frozen=True, eq=False)
class MarketOffers:
    """The offers bands are drawn from and where they come from. Compared and hashed by
    identity: the catalog builds one set per data version, and bands are kept per set."""

    offers: tuple[HostingOffer, ...]
    origin: str  # shown with the band: the reference file, or the price sources' names


@dataclass(frozen=True, slots=True)
class MarketBand:
    """The cheapest and dearest offer of a GPU class per GPU and month, in one currency."""

    market_class: str
    low: Money
    high: Money
    offers: int
    oldest: dt.date
    newest: dt.date
    sources: tuple[str, ...]  # price pages, cheapest offer first
    origin: str = REFERENCE_ORIGIN  # where the offers were read: ``MarketOffers.origin``

    @property
    def name(self) -> str:
        return CLASS_NAMES.get(self.market_class, self.market_class)

    def position(self, per_gpu_month: Money) -> MarketPosition:
        if per_gpu_month.amount < self.low.amount:
            return MarketPosition.BELOW
        if per_gpu_month.amount > self.high.amount:
            return MarketPosition.ABOVE
        return MarketPosition.WITHIN


def market_class(name: str | None) -> str | None:
    """The market class of a GPU name or SKU ("NVIDIA H100 SXM5 80GB" -> "H100"): its record's."""
    found = gpu_model(name)
    return None if found is None else found.market_class


def offer_seen_on(text: str) -> dt.date | None:
    """The day an offer was seen when the reference format gives one (``2026-09-26``); None for
    a month alone (``2026-05 (month only)``), ``unknown (...)`` or anything else."""
    text = text.strip()
    if not _ISO_DAY.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def offer_counts(*, seen_on: dt.date | None, confidence: str) -> bool:
    """Whether an offer enters the market band: its day is known and its confidence is not
    "low". The one rule, for the reference file and for the price sources' files alike."""
    return seen_on is not None and confidence.strip().lower() != _LEFT_OUT_CONFIDENCE


def per_gpu_month_price(price: Decimal, *, period: str, price_per: str, gpu_count: int) -> Decimal:
    """An offer's price per GPU and month (exact): per offer prices are shared by its GPUs, an
    hourly price counts ``HOURS_PER_MONTH`` hours."""
    if price_per != "gpu":
        price /= Decimal(gpu_count)
    if period == "hour":
        price *= HOURS_PER_MONTH
    return price


@cache
def default_market_offers() -> MarketOffers:
    """The committed reference offers (``OFFERS_FILE``) that belong to a class, read once per
    process: the band's offers until a price source has applied some."""
    offers = []
    with OFFERS_FILE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            klass = market_class(row["gpu_model"])
            seen_on = offer_seen_on(row["date_seen"])
            # The committed file keeps only counted offers; the rule is applied all the same.
            if klass is None or seen_on is None:
                continue
            if not offer_counts(seen_on=seen_on, confidence=row.get("confidence") or ""):
                continue
            price = per_gpu_month_price(
                Decimal(row["price"]),
                period=row["unit"],
                price_per=row["price_per"],
                gpu_count=int(row["gpu_count"]),
            )
            offers.append(
                HostingOffer(
                    provider=row["provider"],
                    product=row["product"],
                    market_class=klass,
                    per_gpu_month=Money(price, row["currency"]),
                    seen_on=seen_on,
                    source_url=row["source_url"],
                )
            )
    return MarketOffers(offers=tuple(offers), origin=REFERENCE_ORIGIN)


def hosting_offers() -> tuple[HostingOffer, ...]:
    """The committed reference offers that belong to a class."""
    return default_market_offers().offers


@lru_cache(maxsize=512)
def market_band(
    gpu_name: str | None,
    currency: str,
    *,
    usd_per_eur: Decimal,
    gbp_per_eur: Decimal,
    offers: MarketOffers | None = None,
) -> MarketBand | None:
    """The band of ``gpu_name``'s class among ``offers`` (the reference offers when None) in
    ``currency``, converted at the rates given (per euro); None when no dated offer exists for
    the class. Kept per arguments: a set of offers is immutable and so is the band, and every
    managed offer of every TCO asks for it."""
    market = default_market_offers() if offers is None else offers
    klass = market_class(gpu_name)
    if klass is None:
        return None
    per_eur = {"EUR": Decimal(1), "USD": usd_per_eur, "GBP": gbp_per_eur}
    priced = sorted(
        (
            (
                round_money(
                    amount_between(
                        o.per_gpu_month.amount, o.per_gpu_month.currency, currency, per_eur
                    )
                ),
                o,
            )
            for o in market.offers
            if o.market_class == klass and o.per_gpu_month.currency in per_eur
        ),
        key=lambda pair: pair[0],
    )
    if not priced:
        return None
    dates = [offer.seen_on for _, offer in priced]
    return MarketBand(
        market_class=klass,
        low=Money(priced[0][0], currency),
        high=Money(priced[-1][0], currency),
        offers=len(priced),
        oldest=min(dates),
        newest=max(dates),
        sources=tuple(dict.fromkeys(offer.source_url for _, offer in priced)),
        origin=market.origin,
    )
