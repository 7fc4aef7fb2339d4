"""Writes to the catalog, by concern: the seed data (loader), prices (history, never overwrite),
price feeds (feed_apply, feed_chunks, feed_rows), refresh runs and their lease, beat schedules,
and the review of quarantined prices. The public names are re-exported here."""

from catalog.services.feed_apply import FEED_CHUNK_ROWS, price_feed_apply
from catalog.services.feed_chunks import (
    BULK_BATCH_ROWS,
    MANAGED_PART_KINDS,
    PRICE_KIND_BY_SOURCE_KIND,
)
from catalog.services.feed_rows import FeedOutcome, price_moves_too_much
from catalog.services.lease import LockLostError
from catalog.services.loader import (
    COMMON_FIELDS,
    PART_MODELS,
    CatalogDataError,
    LoadReport,
    catalog_load,
)
from catalog.services.prices import (
    cloud_price_record,
    price_adds_nothing,
    price_change_item,
    price_record,
    prices_add,
    prices_changed_announce,
)
from catalog.services.quarantine import (
    QuarantineReviewError,
    quarantined_price_approve,
    quarantined_price_reject,
)
from catalog.services.refresh import (
    PRICE_REFRESH_TASK,
    feed_fetch_limits,
    price_source_refresh,
    price_source_refresh_enqueue,
)
from catalog.services.schedules import price_source_delete, price_source_schedule_sync

__all__ = [
    "BULK_BATCH_ROWS",
    "COMMON_FIELDS",
    "FEED_CHUNK_ROWS",
    "MANAGED_PART_KINDS",
    "PART_MODELS",
    "PRICE_KIND_BY_SOURCE_KIND",
    "PRICE_REFRESH_TASK",
    "CatalogDataError",
    "FeedOutcome",
    "LoadReport",
    "LockLostError",
    "QuarantineReviewError",
    "catalog_load",
    "cloud_price_record",
    "feed_fetch_limits",
    "price_adds_nothing",
    "price_change_item",
    "price_feed_apply",
    "price_moves_too_much",
    "price_record",
    "price_source_delete",
    "price_source_refresh",
    "price_source_refresh_enqueue",
    "price_source_schedule_sync",
    "prices_add",
    "prices_changed_announce",
    "quarantined_price_approve",
    "quarantined_price_reject",
]
