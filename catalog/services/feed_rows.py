"""How each valid feed row is judged: unchanged, recorded, or held for review; and the tally.

The judgement is plain code over values already fetched (the current price of the row's series,
whether the same observation is recorded or was reviewed); ``catalog.services.feed_chunks`` does
the reading and writing around it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

from django.conf import settings

from catalog.feeds import CloudPriceRow, PartPriceRow, RowError
from catalog.models import ReviewStatus, RunStatus
from catalog.services.prices import price_adds_nothing

# A price series: (part id, currency) for part prices, (GPU model, commitment, provider,
# currency) for cloud prices. An observation adds its date and amount to the series key.
SeriesKey = tuple[Any, ...]
CurrentPrice = tuple[Decimal, dt.date]
FeedRowT = TypeVar("FeedRowT", bound=PartPriceRow | CloudPriceRow)
# A row still to decide: its series, the row, its amount, the series' current price (if any).
Pending = tuple[SeriesKey, FeedRowT, Decimal, CurrentPrice | None]
# A row to hold for review: a price is only held against a current one.
Held = tuple[SeriesKey, FeedRowT, Decimal, CurrentPrice]


@dataclass
class FeedOutcome:
    """What applying one feed did; copied onto its ``PriceRefreshRun``."""

    status: str = RunStatus.APPLIED
    rows_read: int = 0
    rows_changed: int = 0
    rows_unchanged: int = 0
    rows_rejected: int = 0
    rows_quarantined: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    # The first recorded part prices, for the price.changed webhook event (not stored).
    price_changes: list[dict[str, Any]] = field(default_factory=list)

    def reject(self, error: RowError) -> None:
        self.rows_rejected += 1
        self.errors.append(error.as_dict())

    def errors_settle(self, *, since: int) -> None:
        """Put a chunk's errors (parse, then catalog) in row order; keep the first ones only."""
        self.errors[since:] = sorted(self.errors[since:], key=lambda error: error["row"])
        del self.errors[settings.PRICE_FEED_MAX_REPORTED_ERRORS :]


def price_moves_too_much(*, current: Decimal, new: Decimal) -> bool:
    """More than PRICE_QUARANTINE_CHANGE_PCT away from the current price (either way)."""
    if current == new:
        return False
    if current == 0:
        return True
    return abs(new - current) * 100 > current * settings.PRICE_QUARANTINE_CHANGE_PCT


def feed_chunk_sort(
    *,
    keyed: list[tuple[SeriesKey, FeedRowT, Decimal]],
    current: dict[SeriesKey, CurrentPrice],
    recorded_of: Callable[[list[Pending[FeedRowT]]], set[tuple[Any, ...]]],
    reviewed_of: Callable[[list[Pending[FeedRowT]]], dict[tuple[Any, ...], str]],
    outcome: FeedOutcome,
) -> tuple[list[Pending[FeedRowT]], list[Held[FeedRowT]]]:
    """Sort a chunk's rows into unchanged (counted), to record and to hold for review.

    Rows equal to their current price are settled from the current prices alone; only the others
    cost the two further look-ups (same-day rows already recorded, observations already reviewed).
    """
    pending: list[Pending[FeedRowT]] = []
    for key, row, amount in keyed:
        now = current.get(key)
        if price_adds_nothing(
            amount=amount, observed_on=row.observed_on, current=now, recorded_same_day=False
        ):
            outcome.rows_unchanged += 1
        else:
            pending.append((key, row, amount, now))
    if not pending:
        return [], []
    recorded, reviewed = recorded_of(pending), reviewed_of(pending)
    to_record: list[Pending[FeedRowT]] = []
    to_hold: list[Held[FeedRowT]] = []
    for key, row, amount, now in pending:
        observation = (*key, row.observed_on, amount)
        verdict = _verdict(
            amount=amount,
            observed_on=row.observed_on,
            current=now,
            recorded_same_day=observation in recorded,
            review=reviewed.get(observation),
        )
        if verdict == "unchanged":
            outcome.rows_unchanged += 1
        elif verdict == "held":
            outcome.rows_quarantined += 1
        elif verdict == "hold" and now is not None:  # always: "hold" needs a current price
            outcome.rows_quarantined += 1
            to_hold.append((key, row, amount, now))
        else:
            outcome.rows_changed += 1
            to_record.append((key, row, amount, now))
    return to_record, to_hold


def _verdict(
    *,
    amount: Decimal,
    observed_on: dt.date,
    current: CurrentPrice | None,
    recorded_same_day: bool,
    review: str | None,
) -> str:
    """unchanged | held (already awaiting review) | hold (new quarantine) | record."""
    if price_adds_nothing(
        amount=amount, observed_on=observed_on, current=current, recorded_same_day=recorded_same_day
    ):
        return "unchanged"
    if review == ReviewStatus.PENDING:
        return "held"
    if review == ReviewStatus.REJECTED:
        return "unchanged"  # staff already turned this very observation down
    if current is not None and price_moves_too_much(current=current[0], new=amount):
        return "hold"
    return "record"
