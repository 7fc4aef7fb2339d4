"""Writing a hosting-offers file (``catalog.feeds.hosting_offers``): the source's offers become
the file's, inside the feed's one transaction (``catalog.services.feed_apply``).

Offers are kept by file line. A line whose offer is stored as it is stays untouched (counted
unchanged); a changed or new one is written (the old one deleted, the new one inserted: counted
changed); the stored offers of lines that no longer hold a counted offer (removed, rejected,
skipped by the band's rule) are deleted. Applying the same file twice writes nothing.
"""

from __future__ import annotations

from typing import Any

from catalog.feeds.hosting_offers import HostingOfferRow
from catalog.models import HostingOffer, PriceRefreshRun, PriceSource
from catalog.services.feed_rows import FeedOutcome

# The fields that make two offers the same (everything but the source, run and line).
COMPARED_FIELDS = (
    "provider",
    "product",
    "gpu_model",
    "gpu_count",
    "price",
    "currency",
    "period",
    "price_per",
    "date_seen",
    "confidence",
    "source_url",
    "location",
)


def hosting_offers_chunk_apply(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    rows: list[HostingOfferRow],
    outcome: FeedOutcome,
) -> None:
    """Make the source's offers from the chunk's first line on the chunk's offers (three
    queries at most): the stored offers of those lines it has no equal offer for are deleted,
    all of them for the first chunk (the lines above it are no longer in the file).

    Chunks come in file order, so the source ends up with the file's offers exactly. A file of
    more than one chunk (FEED_CHUNK_ROWS offers) has the lines after its first chunk written
    again on every run: the first chunk cannot tell them from lines the file lost."""
    lines = HostingOffer.objects.filter(price_source=source)
    if outcome.rows_changed or outcome.rows_unchanged:  # an earlier chunk wrote the lines above
        lines = lines.filter(row__gte=rows[0].row)
    stored = {offer["row"]: offer for offer in lines.values("id", "row", *COMPARED_FIELDS)}

    new = []
    for row in rows:
        offer = stored.pop(row.row, None)
        if offer is not None and _same(offer, row):
            outcome.rows_unchanged += 1
            continue
        if offer is not None:
            stored[row.row] = offer  # replaced: deleted below
        new.append(_offer(source, run, row))
    if stored:
        HostingOffer.objects.filter(id__in=[offer["id"] for offer in stored.values()]).delete()
    if new:
        HostingOffer.objects.bulk_create(new)
        outcome.rows_changed += len(new)


def _same(stored: dict[str, Any], row: HostingOfferRow) -> bool:
    return all(stored[name] == getattr(row, name) for name in COMPARED_FIELDS)


def _offer(source: PriceSource, run: PriceRefreshRun, row: HostingOfferRow) -> HostingOffer:
    return HostingOffer(
        price_source=source,
        run=run,
        row=row.row,
        **{name: getattr(row, name) for name in COMPARED_FIELDS},
    )
