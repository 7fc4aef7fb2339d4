"""Public cloud offers for a GPU: as JSON for the API, and the result page's market panel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalog.selectors.cloud_offers import CloudMarket, CloudOfferQuote
from engine.commerce.exchange import DatedRate, convert, rates_involved
from gpuquote.core.formatting import number_localized
from gpuquote.core.translated import gettext


def cloud_offer_to_dict(offer: CloudOfferQuote) -> dict[str, Any]:
    """One provider's offer as published (per GPU-hour, its currency; 4 places, not rounded)."""
    return {
        "provider": offer.provider,
        "instance": offer.instance,
        "region": offer.region,
        "gpu_count": offer.gpu_count,
        "price_per_gpu_hour": str(offer.price_per_gpu_hour.amount),
        "currency": offer.price_per_gpu_hour.currency,
        "spot": offer.spot,
        "observed_on": offer.observed_on.isoformat(),
        "source": offer.source_name,
    }


def market_offers_to_list(market: CloudMarket | None) -> list[dict[str, Any]]:
    """The cheapest on-demand offers for the GPU, cheapest first (empty without offers)."""
    return [] if market is None else [cloud_offer_to_dict(offer) for offer in market.on_demand]


def reserved_cloud_price_to_dict(market: CloudMarket | None) -> dict[str, Any] | None:
    """The cheapest reserved cloud price recorded for the GPU, or ``None``."""
    quote = None if market is None else market.reserved
    if quote is None:
        return None
    return {
        "provider": quote.provider,
        "commitment": quote.commitment,
        "price_per_gpu_hour": str(quote.price_per_gpu_hour.amount),
        "currency": quote.price_per_gpu_hour.currency,
        "observed_on": quote.observed_on.isoformat(),
        "source": quote.source,
        "stale": quote.stale,
    }


def cloud_market_panel(
    market: CloudMarket | None,
    *,
    gpu_name: str,
    currency: str,
    rates: Mapping[str, DatedRate],
) -> dict[str, Any] | None:
    """The result page's market panel (templates/wizard/_market_offers.html): the cheapest
    on-demand offers as published (Money, a date and the source of each), each with its price in
    the page's ``currency`` when it differs (converted at ``rates``, the day's), and the cheapest
    reserved price; ``None`` when there is nothing to show."""
    if market is None or not (market.on_demand or market.reserved):
        return None
    rows = [
        {
            "offer": offer,
            "converted": None
            if offer.price_per_gpu_hour.currency == currency
            else convert(offer.price_per_gpu_hour, currency, rates),
        }
        for offer in market.on_demand
    ]
    used = rates_involved(
        rates.values(), (offer.price_per_gpu_hour.currency for offer in market.on_demand), currency
    )
    return {
        "gpu_name": gpu_name,
        "offers": rows,
        "cheapest": rows[0] if rows else None,
        "reserved": market.reserved,
        "reserved_years": None
        if market.reserved is None
        else {"reserved_1y": 1, "reserved_3y": 3}.get(market.reserved.commitment),
        "currency": currency,
        "exchange_rates": [
            {
                "currency": rate.currency,
                "per_eur": number_localized(rate.per_eur),
                "source": gettext(rate.source),
            }
            for rate in used
        ],
    }
