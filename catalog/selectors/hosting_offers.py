"""The offers the market band of managed hosting is drawn from (``engine.tco.market``): the
hosting offers the enabled price sources of that kind applied, or, until one has, the engine's
committed reference offers."""

from __future__ import annotations

from functools import lru_cache

from catalog.models import HostingOffer
from catalog.selectors.versions import hosting_offers_version_get, per_version_cache
from engine.money import Money
from engine.tco.market import HostingOffer as MarketOffer
from engine.tco.market import MarketOffers, market_class, offer_counts, per_gpu_month_price


def hosting_offers_current_get() -> MarketOffers | None:
    """Every enabled source's current offers that belong to a GPU class, as the engine's offers
    (the band names the sources as its origin); None when no source has applied any: the engine
    then uses its reference offers. One set per data version, so the bands cached per set are
    worked out again after a run changed the offers."""
    return _market_offers(hosting_offers_version_get())


@lru_cache(maxsize=4)
def _market_offers(_version: tuple) -> MarketOffers | None:
    stored = list(
        HostingOffer.objects.filter(price_source__enabled=True)
        .select_related("price_source")
        .order_by("price_source__name", "row")
    )
    if not stored:
        return None
    offers = []
    for offer in stored:
        klass = market_class(offer.gpu_model)
        if klass is None or not offer_counts(seen_on=offer.date_seen, confidence=offer.confidence):
            continue
        price = per_gpu_month_price(
            offer.price, period=offer.period, price_per=offer.price_per, gpu_count=offer.gpu_count
        )
        offers.append(
            MarketOffer(
                provider=offer.provider,
                product=offer.product,
                market_class=klass,
                per_gpu_month=Money(price, offer.currency),
                seen_on=offer.date_seen,
                source_url=offer.source_url,
            )
        )
    names = dict.fromkeys(offer.price_source.name for offer in stored)
    return MarketOffers(offers=tuple(offers), origin=", ".join(names))


per_version_cache(_market_offers.cache_clear)
