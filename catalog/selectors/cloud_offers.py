"""Reads of the providers' GPU offers (``CloudOffer``, filled by ``cloud_offers`` sources).

Offers are priced as published, in US dollars: nothing is converted, a caller asking in another
currency gets no offer and says so rather than inventing a rate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

from catalog.feeds import Commitment
from catalog.models import CloudOffer
from catalog.selectors.cloud import CloudPriceQuote, cloud_price_current_queryset
from catalog.selectors.versions import cloud_prices_version_get, per_version_cache
from engine.money import Money

MARKET_OFFERS = 5
OFFERS_CURRENCY = "USD"  # gpuhunt's catalogs are priced in US dollars
RESERVED_COMMITMENTS = (Commitment.RESERVED_1Y, Commitment.RESERVED_3Y)


@dataclass(frozen=True, slots=True)
class CloudOfferQuote:
    """One provider's offer for a GPU model, per GPU-hour, with where and when it was listed."""

    provider: str
    instance: str
    region: str
    gpu_count: int
    price_per_gpu_hour: Money
    spot: bool
    observed_on: dt.date
    source_name: str


def cheapest_cloud_offers(
    *, gpu_model: str, currency: str, limit: int = MARKET_OFFERS, spot: bool | None = None
) -> list[CloudOfferQuote]:
    """The ``limit`` cheapest offers per GPU-hour for a GPU model key (``H100_SXM``) in
    ``currency``, cheapest first (ties: provider, region, instance); ``spot`` None means both
    on-demand and spot offers. One query."""
    offers = CloudOffer.objects.filter(gpu_model=gpu_model, currency=currency)
    if spot is not None:
        offers = offers.filter(spot=spot)
    rows = offers.order_by("price_per_gpu_hour", "provider", "region", "instance", "id").values(
        "provider",
        "instance",
        "region",
        "gpu_count",
        "price_per_gpu_hour",
        "currency",
        "spot",
        "observed_on",
        "price_source__name",
    )[: max(limit, 0)]
    return [
        CloudOfferQuote(
            provider=row["provider"],
            instance=row["instance"],
            region=row["region"],
            gpu_count=row["gpu_count"],
            price_per_gpu_hour=Money(row["price_per_gpu_hour"], row["currency"]),
            spot=row["spot"],
            observed_on=row["observed_on"],
            source_name=row["price_source__name"],
        )
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class CloudMarket:
    """What the market says about renting a GPU model: the cheapest on-demand offers from the
    providers' catalogs (in ``OFFERS_CURRENCY`` as published, cheapest first) and the cheapest
    reserved price among the recorded cloud prices (in the asked currency), if any."""

    gpu_model: str
    on_demand: tuple[CloudOfferQuote, ...]
    reserved: CloudPriceQuote | None


def cheapest_reserved_cloud_price(*, gpu_model: str, currency: str) -> CloudPriceQuote | None:
    """The cheapest current reserved price (1 or 3 years) per GPU-hour for a model key, fresh
    prices before stale ones; ``None`` when no provider publishes one."""
    quotes = [
        CloudPriceQuote(
            gpu_model=row.gpu_model,
            commitment=row.commitment,
            provider=row.provider,
            price_per_gpu_hour=Money(row.price_per_gpu_hour, row.currency),
            observed_on=row.observed_on,
            source=row.source,
            stale=row.stale,
        )
        for commitment in RESERVED_COMMITMENTS
        for row in cloud_price_current_queryset(currency=currency, commitment=commitment).filter(
            gpu_model=gpu_model
        )
    ]
    return min(quotes, key=lambda q: (q.stale, q.price_per_gpu_hour.amount), default=None)


def cloud_market_get(*, gpu_model: str, currency: str) -> CloudMarket:
    """The market around the TCO's cloud option for a model key: three queries, then kept
    per version of the cloud prices and offers (a run's new offers are seen at once)."""
    return _cloud_market(gpu_model, currency, cloud_prices_version_get())


@lru_cache(maxsize=64)
def _cloud_market(gpu_model: str, currency: str, _version: tuple) -> CloudMarket:
    return CloudMarket(
        gpu_model=gpu_model,
        on_demand=tuple(
            cheapest_cloud_offers(gpu_model=gpu_model, currency=OFFERS_CURRENCY, spot=False)
        ),
        reserved=cheapest_reserved_cloud_price(gpu_model=gpu_model, currency=currency),
    )


per_version_cache(_cloud_market.cache_clear)
