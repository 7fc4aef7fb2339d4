"""How the valid rows of each kind of source are written, chunk by chunk, inside the feed's one
transaction (``catalog.services.feed_apply``): ``apply(source=, run=, rows=, outcome=)`` records
what changed, counts changed, unchanged and held-for-review rows on ``outcome`` and reports the
rows it cannot use with ``outcome.reject``. Reading the rows is ``catalog.feeds.kinds``' job."""

from __future__ import annotations

from collections.abc import Callable

from catalog.feeds import FeedFormatError, FeedKind
from catalog.services.cloud_offers import cloud_offers_chunk_apply
from catalog.services.electricity import electricity_chunk_apply
from catalog.services.exchange_rates import exchange_rates_chunk_apply
from catalog.services.feed_chunks import cloud_chunk_apply, part_chunk_apply
from catalog.services.hosting_offers import hosting_offers_chunk_apply

ChunkApplier = Callable[..., None]

APPLIERS: dict[str, ChunkApplier] = {
    FeedKind.SUPPLIER: part_chunk_apply,
    FeedKind.HOSTING: part_chunk_apply,
    FeedKind.CLOUD: cloud_chunk_apply,
    FeedKind.CLOUD_OFFERS: cloud_offers_chunk_apply,
    FeedKind.EXCHANGE_RATES: exchange_rates_chunk_apply,
    FeedKind.ELECTRICITY: electricity_chunk_apply,
    FeedKind.HOSTING_OFFERS: hosting_offers_chunk_apply,
}


def chunk_applier(kind: str) -> ChunkApplier:
    try:
        return APPLIERS[kind]
    except KeyError:
        raise FeedFormatError(f"no applier for sources of kind {kind!r}") from None
