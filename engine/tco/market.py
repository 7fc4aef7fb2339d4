"""The market band of managed GPU hosting: what dated public offers charge per GPU and month.

``engine/data/hosting_offers.csv`` holds the offers, each with its provider, product, price, date
seen and price page. They are the rows of GPUQuote's reference file of 71 public offers
(``gpu_hosting_offers.csv``: dedicated servers per month and cloud GPUs per hour) whose date is
known and whose confidence is not "low", plus the dated on-demand prices the TCO already cites
for B200, H200 and MI300X (``engine/assumptions/gpu_prices.py``). An hourly price counts as 730
hours a month, the way hosts cap hourly billing at a monthly price.

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

from ..money import Money, round_money

OFFERS_FILE = Path(__file__).resolve().parent.parent / "data" / "hosting_offers.csv"
HOURS_PER_MONTH = Decimal(730)

# (needle in the squashed GPU name, class): first match wins, so the longer names come first.
_CLASSES: tuple[tuple[str, str | None], ...] = (
    ("gb200", None),  # Grace Blackwell superchips are sold as racks, not as hosted servers
    ("gb300", None),
    ("b200", "B200"),
    ("h200", "H200"),
    ("h100", "H100"),
    ("mi300x", "H100"),
    ("a100", "A100"),
    ("l40", "L40S"),
    ("rtxpro6000", "L40S"),
    ("rtx6000", "L40S"),
    ("a6000", "L40S"),
    ("l4", "L4"),
    ("rtxpro4000", "L4"),
    ("rtx4000", "L4"),
)

CLASS_NAMES = {
    "B200": "B200",
    "H200": "H200",
    "H100": "H100 / MI300X",
    "A100": "A100",
    "L40S": "L40S / RTX 6000",
    "L4": "L4 / RTX 4000",
}


class MarketPosition(StrEnum):
    BELOW = "below"
    WITHIN = "within"
    ABOVE = "above"
    UNKNOWN = "unknown"  # no dated offer for the GPU's class


@dataclass(frozen=True, slots=True)
class HostingOffer:
    provider: str
    product: str
    gpu_class: str
    per_gpu_month: Money  # in the offer's own currency
    seen_on: dt.date
    source_url: str


@dataclass(frozen=True, slots=True)
class MarketBand:
    """The cheapest and dearest offer of a GPU class per GPU and month, in one currency."""

    gpu_class: str
    low: Money
    high: Money
    offers: int
    oldest: dt.date
    newest: dt.date
    sources: tuple[str, ...]  # price pages, cheapest offer first

    @property
    def name(self) -> str:
        return CLASS_NAMES.get(self.gpu_class, self.gpu_class)

    def position(self, per_gpu_month: Money) -> MarketPosition:
        if per_gpu_month.amount < self.low.amount:
            return MarketPosition.BELOW
        if per_gpu_month.amount > self.high.amount:
            return MarketPosition.ABOVE
        return MarketPosition.WITHIN


def gpu_class(name: str | None) -> str | None:
    """The market class of a GPU name or SKU ("NVIDIA H100 SXM5 80GB" -> "H100")."""
    squashed = re.sub(r"[^a-z0-9]", "", (name or "").lower())
    if not squashed:
        return None
    for needle, klass in _CLASSES:
        if needle in squashed:
            return klass
    return None


@cache
def hosting_offers() -> tuple[HostingOffer, ...]:
    """Every offer of the data file that belongs to a class, read once per process."""
    offers = []
    with OFFERS_FILE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            klass = gpu_class(row["gpu_model"])
            if klass is None:
                continue
            price = Decimal(row["price"])
            if row["price_per"] != "gpu":
                price /= Decimal(int(row["gpu_count"]))
            if row["unit"] == "hour":
                price *= HOURS_PER_MONTH
            offers.append(
                HostingOffer(
                    provider=row["provider"],
                    product=row["product"],
                    gpu_class=klass,
                    per_gpu_month=Money(price, row["currency"]),
                    seen_on=dt.date.fromisoformat(row["date_seen"]),
                    source_url=row["source_url"],
                )
            )
    return tuple(offers)


@lru_cache(maxsize=512)
def market_band(
    gpu_name: str | None, currency: str, *, usd_per_eur: Decimal, gbp_per_eur: Decimal
) -> MarketBand | None:
    """The band of ``gpu_name``'s class in ``currency`` (converted at the rates given, per euro);
    None when no dated offer exists for the class. Kept per arguments: the offers are fixed
    data and the band an immutable value, and every managed offer of every TCO asks for it."""
    klass = gpu_class(gpu_name)
    per_eur = {"EUR": Decimal(1), "USD": usd_per_eur, "GBP": gbp_per_eur}
    priced = sorted(
        (
            (
                round_money(
                    o.per_gpu_month.amount / per_eur[o.per_gpu_month.currency] * per_eur[currency]
                ),
                o,
            )
            for o in hosting_offers()
            if o.gpu_class == klass
        ),
        key=lambda pair: pair[0],
    )
    if klass is None or not priced:
        return None
    dates = [offer.seen_on for _, offer in priced]
    return MarketBand(
        gpu_class=klass,
        low=Money(priced[0][0], currency),
        high=Money(priced[-1][0], currency),
        offers=len(priced),
        oldest=min(dates),
        newest=max(dates),
        sources=tuple(dict.fromkeys(offer.source_url for _, offer in priced)),
    )
