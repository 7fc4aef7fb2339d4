"""Applying a fetched feed: validate every row, then record it all in one transaction, or nothing.

The feed rules (columns, validation, thresholds) are described in docs/price-feeds.md.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, BinaryIO

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from catalog.feeds import FeedLimitError, FeedLimits, FeedSpec, RowError
from catalog.feeds.kinds import kind_rows
from catalog.models import PriceRefreshRun, PriceSource, RunStatus
from catalog.selectors.versions import versions_forget
from catalog.services.feed_kinds import chunk_applier
from catalog.services.feed_rows import FeedOutcome
from catalog.services.lease import source_lease_check
from catalog.services.prices import prices_changed_announce
from engine.money import CURRENCIES

FEED_CHUNK_ROWS = 1000


class _FeedRejectedError(Exception):
    """Too many bad rows: raised inside the transaction to roll it back."""


def price_feed_apply(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    stream: BinaryIO,
    lock_token: str | None = None,
    today: dt.date | None = None,
) -> FeedOutcome:
    """Validate every row of ``stream`` and apply the feed in one transaction, or nothing.

    Rows are read in chunks of FEED_CHUNK_ROWS (a few queries and bulk inserts per chunk). A
    changed price adds a row (history); an unchanged one adds nothing, so applying the same feed
    twice is a no-op; a price moving more than PRICE_QUARANTINE_CHANGE_PCT is held for review.
    When more than PRICE_FEED_MAX_ERROR_PCT of the rows are bad, or the feed has no row, the
    transaction is rolled back and the outcome says REJECTED. ``FeedFormatError`` (an unreadable
    feed), ``FeedLimitError`` (a safety cap passed: more than PRICE_FEED_MAX_ROWS rows, or one of
    the reader's ``FeedLimits``) and ``LockLostError`` propagate, with nothing applied.
    """
    spec = _feed_spec(source, today or timezone.localdate())
    outcome = FeedOutcome()
    try:
        with transaction.atomic():
            if lock_token is not None:
                source_lease_check(source_id=source.pk, token=lock_token)
            _feed_chunks_apply(
                source=source, run=run, rows=kind_rows(stream, spec), outcome=outcome
            )
            _feed_accept_or_raise(outcome)
            prices_changed_announce(
                source_name=source.name,
                changed=outcome.price_changes,
                changed_total=outcome.rows_changed,
            )
    except _FeedRejectedError as exc:
        outcome.status = RunStatus.REJECTED
        outcome.message = str(exc)
        outcome.rows_changed = outcome.rows_unchanged = outcome.rows_quarantined = 0
        outcome.price_changes = []
        return outcome
    # Prices were bulk-inserted (no save signal): this process reads its versions again at once.
    versions_forget()
    outcome.status = RunStatus.APPLIED_WITH_ERRORS if outcome.rows_rejected else RunStatus.APPLIED
    outcome.message = (
        f"{outcome.rows_changed} prices recorded, {outcome.rows_unchanged} unchanged, "
        f"{outcome.rows_quarantined} held for review, {outcome.rows_rejected} rows rejected."
    )
    return outcome


def _feed_spec(source: PriceSource, today: dt.date) -> FeedSpec:
    return FeedSpec(
        kind=source.kind,
        format=source.format,
        default_currency=source.currency,
        currencies=frozenset(CURRENCIES),
        today=today,
        column_map=source.column_map or {},
        default_source=f"{source.name} price feed: {source.location}",
        limits=feed_limits(),
    )


def feed_limits() -> FeedLimits:
    """The readers' safety caps, from the PRICE_FEED_* settings."""
    return FeedLimits(
        max_inflated_bytes=settings.PRICE_FEED_MAX_INFLATED_BYTES,
        max_compression_ratio=settings.PRICE_FEED_MAX_COMPRESSION_RATIO,
        xml_max_depth=settings.PRICE_FEED_XML_MAX_DEPTH,
        xml_max_nodes=settings.PRICE_FEED_XML_MAX_NODES,
        jsonstat_max_cells=settings.PRICE_FEED_JSONSTAT_MAX_CELLS,
        json_max_number_chars=settings.PRICE_FEED_JSON_MAX_NUMBER_CHARS,
    )


def _feed_chunks_apply(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    rows: Iterator[Any],
    outcome: FeedOutcome,
) -> None:
    """Apply the rows chunk by chunk; the bad ones are counted and reported, in row order.

    No more than PRICE_FEED_MAX_ROWS rows are read: the row after them raises ``FeedLimitError``
    before its chunk is applied (the caller's transaction then rolls back the chunks before)."""
    # The rows of the source's kind only (its reader chose them): its applier writes them.
    apply_chunk = chunk_applier(source.kind)
    max_rows = settings.PRICE_FEED_MAX_ROWS
    while chunk := list(
        itertools.islice(rows, min(FEED_CHUNK_ROWS, max_rows - outcome.rows_read + 1))
    ):
        if outcome.rows_read + len(chunk) > max_rows:
            raise FeedLimitError(f"the feed has more than {max_rows:,} rows (PRICE_FEED_MAX_ROWS)")
        outcome.rows_read += len(chunk)
        reported = len(outcome.errors)
        valid = []
        for row in chunk:
            if isinstance(row, RowError):
                outcome.reject(row)
            else:
                valid.append(row)
        if valid:
            apply_chunk(source=source, run=run, rows=valid, outcome=outcome)
        outcome.errors_settle(since=reported)


def _feed_accept_or_raise(outcome: FeedOutcome) -> None:
    if outcome.rows_read == 0:
        raise _FeedRejectedError("The feed has no rows: nothing was applied.")
    limit = settings.PRICE_FEED_MAX_ERROR_PCT
    if outcome.rows_rejected * 100 > outcome.rows_read * limit:
        share = Decimal(outcome.rows_rejected * 100) / outcome.rows_read
        raise _FeedRejectedError(
            f"{outcome.rows_rejected} of {outcome.rows_read} rows ({share:.1f} %) have errors, "
            f"more than the {limit} % allowed: the whole feed was rejected, nothing was applied."
        )
