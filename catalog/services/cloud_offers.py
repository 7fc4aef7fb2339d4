"""Writing a ``cloud_offers`` feed: the run replaces its source's offers.

Offers are a snapshot of what the providers list, not a price history: inside the feed's one
transaction (``catalog.services.feed_apply``) the first chunk deletes the source's offers of
earlier runs and every chunk inserts its own, so a rejected or failed run leaves the previous
offers in place and an applied one leaves exactly the feed's offers.
"""

from __future__ import annotations

from catalog.feeds.cloud_offers import CloudOfferRow
from catalog.models import CloudOffer, PriceRefreshRun, PriceSource
from catalog.services.feed_rows import FeedOutcome

BULK_BATCH_ROWS = 1000


def cloud_offers_chunk_apply(
    *, source: PriceSource, run: PriceRefreshRun, rows: list[CloudOfferRow], outcome: FeedOutcome
) -> None:
    """Insert a chunk of offers for ``run``, after removing the source's offers of other runs
    (only the first chunk finds any). ``rows_changed`` counts the offers inserted."""
    CloudOffer.objects.filter(price_source=source).exclude(run=run).delete()
    CloudOffer.objects.bulk_create(
        (
            CloudOffer(
                price_source=source,
                run=run,
                provider=row.provider or source.name[:64],
                instance=row.instance,
                region=row.region,
                gpu_model=row.gpu_model,
                gpu_count=row.gpu_count,
                price_per_gpu_hour=row.price_per_gpu_hour,
                currency=row.currency,
                spot=row.spot,
                observed_on=row.observed_on,
            )
            for row in rows
        ),
        batch_size=BULK_BATCH_ROWS,
    )
    outcome.rows_changed += len(rows)
