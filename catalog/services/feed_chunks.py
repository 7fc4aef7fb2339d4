"""Applying one chunk of valid feed rows, part prices or cloud prices, in a few queries.

Per chunk: the current price of every series the chunk names (one query), then for the rows that
differ from it the same-day rows already recorded and the observations already reviewed (two
queries), then bulk inserts of the new prices and of the prices held for review. Each row is
judged by ``catalog.services.feed_rows``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from catalog.feeds import CloudPriceRow, FeedKind, PartPriceRow, RowError
from catalog.models import (
    CloudPrice,
    Part,
    Price,
    PriceKind,
    PriceRefreshRun,
    PriceSource,
    QuarantinedPrice,
)
from catalog.selectors.exchange_rates import conversion_rates_get
from catalog.services.feed_rows import (
    CurrentPrice,
    FeedOutcome,
    Held,
    Pending,
    SeriesKey,
    feed_chunk_sort,
)
from catalog.signals import PRICE_CHANGES_PER_EVENT
from engine.build.parts import PartKind
from engine.commerce.exchange import convert_price
from engine.money import CURRENCIES, Money

BULK_BATCH_ROWS = 1000
PRICE_KIND_BY_SOURCE_KIND = {
    FeedKind.SUPPLIER: PriceKind.PURCHASE,
    FeedKind.HOSTING: PriceKind.MANAGED_MONTHLY,
}
MANAGED_PART_KINDS = frozenset({PartKind.GPU, PartKind.CHASSIS})
CLOUD_SERIES_FIELDS = ("gpu_model", "commitment", "provider", "currency")

PartPending = Pending[PartPriceRow]
CloudPending = Pending[CloudPriceRow]


# --- Part prices (supplier and hosting feeds) --------------------------------------------------


def part_chunk_apply(
    *, source: PriceSource, run: PriceRefreshRun, rows: list[PartPriceRow], outcome: FeedOutcome
) -> None:
    """Record a chunk of part prices (purchase or managed-hosting, from the source's kind).

    A row naming an unknown SKU, or a managed-hosting price for a part other than a GPU or a
    chassis, is rejected; the others are recorded, counted unchanged or held for review.
    """
    price_kind = PRICE_KIND_BY_SOURCE_KIND[FeedKind(source.kind)]
    found = {
        sku: (part_id, kind)
        for sku, part_id, kind in Part.objects.filter(sku__in={r.sku for r in rows}).values_list(
            "sku", "id", "kind"
        )
    }
    keyed = _part_rows_keyed(rows=rows, found=found, price_kind=price_kind, outcome=outcome)
    if not keyed:
        return
    prices = Price.objects.filter(price_kind=price_kind)
    to_record, to_hold = feed_chunk_sort(
        keyed=keyed,
        current=_part_prices_current(prices, keys={key for key, _, _ in keyed}),
        recorded_of=lambda pending: _part_prices_recorded(prices, pending),
        reviewed_of=lambda pending: _part_prices_reviewed(price_kind, pending),
        outcome=outcome,
    )
    Price.objects.bulk_create(
        (
            Price(
                part_id=key[0],
                price_kind=price_kind,
                amount=amount,
                currency=row.currency,
                observed_on=row.observed_on,
                source=row.source,
            )
            for key, row, amount, _ in to_record
        ),
        batch_size=BULK_BATCH_ROWS,
    )
    _part_changes_note(outcome=outcome, to_record=to_record, found=found, price_kind=price_kind)
    _part_prices_hold(source=source, run=run, to_hold=to_hold, price_kind=price_kind)


def _part_rows_keyed(
    *,
    rows: list[PartPriceRow],
    found: dict[str, tuple[int, str]],
    price_kind: str,
    outcome: FeedOutcome,
) -> list[tuple[SeriesKey, PartPriceRow, Decimal]]:
    """Each row with its series (part id, currency) and amount; rows that cannot apply rejected."""
    keyed: list[tuple[SeriesKey, PartPriceRow, Decimal]] = []
    for row in rows:
        part = found.get(row.sku)
        if part is None:
            outcome.reject(RowError(row.row, "sku", "is not in the catalog", row.sku))
        elif price_kind == PriceKind.MANAGED_MONTHLY and part[1] not in MANAGED_PART_KINDS:
            message = f"is a {part[1]}: managed-hosting prices apply to GPUs and chassis"
            outcome.reject(RowError(row.row, "sku", message, row.sku))
        else:
            keyed.append(((part[0], row.currency), row, row.amount))
    return keyed


def _part_prices_current(
    prices: QuerySet[Price], *, keys: set[SeriesKey]
) -> dict[SeriesKey, CurrentPrice]:
    """The current price of each series (part, currency). A part with no price yet in that
    currency is compared with its price in another one, converted at the day's rate, as the
    configurations show it: a first euro price far from the dollar one is held for review too."""
    latest = prices.filter(part=OuterRef("part"), currency=OuterRef("currency")).order_by(
        "-observed_on", "-id"
    )
    current: dict[SeriesKey, CurrentPrice] = {
        (part_id, currency): (amount, observed_on)
        for part_id, currency, amount, observed_on in prices.filter(
            part_id__in={part_id for part_id, _ in keys}, id=Subquery(latest.values("id")[:1])
        ).values_list("part_id", "currency", "amount", "observed_on")
    }
    observed = dict(current)
    missing = keys - observed.keys()
    rates = conversion_rates_get() if missing else {}
    for part_id, currency in missing:
        other = next((code for code in CURRENCIES if (part_id, code) in observed), None)
        if other is not None:
            amount, observed_on = observed[(part_id, other)]
            converted = convert_price(Money(amount, other), currency, rates).amount
            current[(part_id, currency)] = (converted, observed_on)
    return current


def _part_prices_recorded(
    prices: QuerySet[Price], pending: list[PartPending]
) -> set[tuple[Any, ...]]:
    return set(
        prices.filter(
            part_id__in={key[0] for key, *_ in pending},
            observed_on__in={row.observed_on for _, row, *_ in pending},
        ).values_list("part_id", "currency", "observed_on", "amount")
    )


def _part_prices_reviewed(
    price_kind: str, pending: list[PartPending]
) -> dict[tuple[Any, ...], str]:
    rows = QuarantinedPrice.objects.filter(
        part_id__in={key[0] for key, *_ in pending},
        price_kind=price_kind,
        observed_on__in={row.observed_on for _, row, *_ in pending},
    ).values_list("part_id", "currency", "observed_on", "amount", "status")
    return {tuple(values[:4]): values[4] for values in rows}


def _part_changes_note(
    *,
    outcome: FeedOutcome,
    to_record: list[PartPending],
    found: dict[str, tuple[int, str]],
    price_kind: str,
) -> None:
    """Keep the first recorded prices for the prices_changed announcement."""
    room = PRICE_CHANGES_PER_EVENT - len(outcome.price_changes)
    outcome.price_changes.extend(
        {
            "sku": row.sku,
            "kind": found[row.sku][1],
            "price_kind": price_kind,
            "currency": row.currency,
            "old_amount": now[0] if now else None,
            "new_amount": amount,
            "observed_on": row.observed_on,
        }
        for _, row, amount, now in to_record[: max(room, 0)]
    )


def _part_prices_hold(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    to_hold: list[Held[PartPriceRow]],
    price_kind: str,
) -> None:
    QuarantinedPrice.objects.bulk_create(
        (
            QuarantinedPrice(
                source=source,
                run=run,
                row=row.row,
                part_id=key[0],
                price_kind=price_kind,
                amount=amount,
                currency=row.currency,
                observed_on=row.observed_on,
                previous_amount=now[0],
                previous_observed_on=now[1],
                source_detail=row.source,
            )
            for key, row, amount, now in to_hold
        ),
        batch_size=BULK_BATCH_ROWS,
    )


# --- Cloud prices per GPU-hour (cloud feeds) ---------------------------------------------------


def cloud_chunk_apply(
    *, source: PriceSource, run: PriceRefreshRun, rows: list[CloudPriceRow], outcome: FeedOutcome
) -> None:
    """Record a chunk of cloud prices, each series being a GPU model, commitment, provider and
    currency; a price is recorded, counted unchanged or held for review."""
    keyed: list[tuple[SeriesKey, CloudPriceRow, Decimal]] = [
        ((row.gpu_model, row.commitment, row.provider, row.currency), row, row.price_per_gpu_hour)
        for row in rows
    ]
    prices = CloudPrice.objects.filter(gpu_model__in={row.gpu_model for row in rows})
    to_record, to_hold = feed_chunk_sort(
        keyed=keyed,
        current=_cloud_prices_current(prices),
        recorded_of=lambda pending: _cloud_prices_recorded(prices, pending),
        reviewed_of=_cloud_prices_reviewed,
        outcome=outcome,
    )
    CloudPrice.objects.bulk_create(
        (
            CloudPrice(
                gpu_model=row.gpu_model,
                commitment=row.commitment,
                provider=row.provider,
                price_per_gpu_hour=amount,
                currency=row.currency,
                observed_on=row.observed_on,
                source=row.source,
                price_source=source,
            )
            for _, row, amount, _ in to_record
        ),
        batch_size=BULK_BATCH_ROWS,
    )
    _cloud_prices_hold(source=source, run=run, to_hold=to_hold)


def _cloud_prices_current(prices: QuerySet[CloudPrice]) -> dict[SeriesKey, CurrentPrice]:
    latest = CloudPrice.objects.filter(
        **{name: OuterRef(name) for name in CLOUD_SERIES_FIELDS}
    ).order_by("-observed_on", "-id")
    return {
        tuple(values[:4]): (values[4], values[5])
        for values in prices.filter(id=Subquery(latest.values("id")[:1])).values_list(
            *CLOUD_SERIES_FIELDS, "price_per_gpu_hour", "observed_on"
        )
    }


def _cloud_prices_recorded(
    prices: QuerySet[CloudPrice], pending: list[CloudPending]
) -> set[tuple[Any, ...]]:
    dates = {row.observed_on for _, row, *_ in pending}
    return set(
        prices.filter(observed_on__in=dates).values_list(
            *CLOUD_SERIES_FIELDS, "observed_on", "price_per_gpu_hour"
        )
    )


def _cloud_prices_reviewed(pending: list[CloudPending]) -> dict[tuple[Any, ...], str]:
    rows = QuarantinedPrice.objects.filter(
        part__isnull=True,
        gpu_model__in={key[0] for key, *_ in pending},
        observed_on__in={row.observed_on for _, row, *_ in pending},
    ).values_list(*CLOUD_SERIES_FIELDS, "observed_on", "amount", "status")
    return {tuple(values[:6]): values[6] for values in rows}


def _cloud_prices_hold(
    *, source: PriceSource, run: PriceRefreshRun, to_hold: list[Held[CloudPriceRow]]
) -> None:
    QuarantinedPrice.objects.bulk_create(
        (
            QuarantinedPrice(
                source=source,
                run=run,
                row=row.row,
                gpu_model=row.gpu_model,
                commitment=row.commitment,
                provider=row.provider,
                amount=amount,
                currency=row.currency,
                observed_on=row.observed_on,
                previous_amount=now[0],
                previous_observed_on=now[1],
                source_detail=row.source,
            )
            for _, row, amount, now in to_hold
        ),
        batch_size=BULK_BATCH_ROWS,
    )
