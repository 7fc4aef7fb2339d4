"""Writing the ECB's reference rates, one chunk of rows at a time, inside the feed's transaction
(``catalog.services.feed_apply``).

A day has one rate per currency: a rate already recorded with the same value is unchanged (the
same file applied twice changes nothing), a different value for a recorded day is the ECB's
correction and replaces it, a new day adds a row. Three queries per chunk at most.
"""

from __future__ import annotations

import datetime as dt

from catalog.feeds.exchange_rates import ExchangeRateRow
from catalog.models import ExchangeRate, PriceRefreshRun, PriceSource
from catalog.services.feed_rows import FeedOutcome

BULK_BATCH_ROWS = 1000


def exchange_rates_chunk_apply(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    rows: list[ExchangeRateRow],
    outcome: FeedOutcome,
) -> None:
    """Record a chunk of reference rates: new days added, corrected days updated."""
    recorded = _rates_recorded(rows)
    to_add: list[ExchangeRate] = []
    to_correct: list[ExchangeRate] = []
    for row in rows:
        existing = recorded.get((row.currency, row.rate_date))
        if existing is None:
            to_add.append(
                ExchangeRate(
                    currency=row.currency,
                    per_eur=row.per_eur,
                    rate_date=row.rate_date,
                    price_source=source,
                    run=run,
                )
            )
        elif existing.per_eur != row.per_eur:
            existing.per_eur, existing.price_source, existing.run = row.per_eur, source, run
            to_correct.append(existing)
        else:
            outcome.rows_unchanged += 1
    ExchangeRate.objects.bulk_create(to_add, batch_size=BULK_BATCH_ROWS)
    ExchangeRate.objects.bulk_update(
        to_correct, ["per_eur", "price_source", "run"], batch_size=BULK_BATCH_ROWS
    )
    outcome.rows_changed += len(to_add) + len(to_correct)


def _rates_recorded(rows: list[ExchangeRateRow]) -> dict[tuple[str, dt.date], ExchangeRate]:
    """The rates already recorded for the chunk's currencies and days (a superset: filtered on
    each separately, matched exactly by the caller)."""
    found = ExchangeRate.objects.filter(
        currency__in={row.currency for row in rows},
        rate_date__in={row.rate_date for row in rows},
    )
    return {(rate.currency, rate.rate_date): rate for rate in found}
