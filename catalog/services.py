"""Writes to the catalog: the seed data, prices (history, never overwrite) and price feeds."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from catalog.feeds import (
    FeedError,
    FeedFormatError,
    FeedSpec,
    FeedTemporaryError,
    FetchLimits,
    RowError,
    feed_open,
    iter_rows,
)
from catalog.models import (
    Chassis,
    CloudPrice,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    Part,
    PartKind,
    Price,
    PriceKind,
    PriceRefreshRun,
    PriceSource,
    PriceSourceKind,
    QuarantinedPrice,
    ReviewStatus,
    RunStatus,
    RunTrigger,
)
from catalog.signals import ADMIN_SOURCE_NAME, PRICE_CHANGES_PER_EVENT, prices_changed
from engine.money import CURRENCIES, round_money
from gpuquote.core.outbound import outbound_policy
from gpuquote.core.outbox import outbox_job_enqueue

PART_MODELS: dict[str, type[Part]] = {
    PartKind.GPU: Gpu,
    PartKind.CPU: Cpu,
    PartKind.MEMORY: MemoryModule,
    PartKind.DRIVE: Drive,
    PartKind.NIC: NetworkCard,
    PartKind.CHASSIS: Chassis,
}
COMMON_FIELDS = ("vendor", "model", "source", "notes")


class CatalogDataError(ValueError):
    """The catalog data file is malformed; the message names the part and the field."""


@dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    prices_added: int = 0
    prices_unchanged: int = 0
    skus: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"parts: {self.created} created, {self.updated} updated, {self.unchanged} unchanged; "
            f"prices: {self.prices_added} added, {self.prices_unchanged} unchanged"
        )


def price_adds_nothing(
    *,
    amount: Decimal,
    observed_on: dt.date,
    current: tuple[Decimal, dt.date] | None,
    recorded_same_day: bool,
) -> bool:
    """The one rule for "unchanged", shared by ``price_record`` and the bulk feed path.

    Nothing is added when the same amount on the same date is already recorded, or when the
    amount equals the current price (``current``: amount and date) and is not older than it.
    """
    if recorded_same_day:
        return True
    return current is not None and current[0] == amount and observed_on >= current[1]


def price_record(
    *,
    part: Part,
    price_kind: str,
    amount: Decimal,
    currency: str,
    observed_on: dt.date,
    source: str,
    user: Any = None,
) -> Price | None:
    """Add a price row unless it adds nothing new; returns the new row or None.

    Nothing is overwritten. A price is unchanged (no row) when the same amount on the same date
    is already recorded, or when it equals the current price and is not older than it.
    """
    rows = Price.objects.filter(part=part, price_kind=price_kind, currency=currency)
    recorded = rows.filter(observed_on=observed_on, amount=amount).exists()
    current = None if recorded else rows.order_by("-observed_on", "-id").first()
    if price_adds_nothing(
        amount=amount,
        observed_on=observed_on,
        current=current and (current.amount, current.observed_on),
        recorded_same_day=recorded,
    ):
        return None
    return Price.objects.create(
        part=part,
        price_kind=price_kind,
        amount=amount,
        currency=currency,
        observed_on=observed_on,
        source=source,
        created_by=user,
    )


def _price_current(*, part: Part, price_kind: str, currency: str) -> Price | None:
    return (
        Price.objects.filter(part=part, price_kind=price_kind, currency=currency)
        .order_by("-observed_on", "-id")
        .first()
    )


def price_change_item(*, price: Price, old_amount: Decimal | None) -> dict[str, Any]:
    """One changed part price as ``catalog.signals.prices_changed`` carries it."""
    return {
        "sku": price.part.sku,
        "kind": price.part.kind,
        "price_kind": price.price_kind,
        "currency": price.currency,
        "old_amount": old_amount,
        "new_amount": price.amount,
        "observed_on": price.observed_on,
    }


def prices_changed_announce(
    *, source_name: str, changed: list[dict[str, Any]], changed_total: int | None = None
) -> None:
    """Send ``catalog.signals.prices_changed`` (nothing when nothing changed); call it inside
    the transaction that recorded the prices."""
    if changed:
        prices_changed.send(
            sender=Price, source_name=source_name, changed=changed, changed_total=changed_total
        )


@transaction.atomic
def prices_add(
    *, prices: Iterable[Price], user: Any = None, source_name: str = ADMIN_SOURCE_NAME
) -> list[Price]:
    """Save new price rows made by hand (the admin's price history) and announce them."""
    saved, changed = [], []
    for price in prices:
        current = _price_current(
            part=price.part, price_kind=price.price_kind, currency=price.currency
        )
        price.created_by = user
        price.save()
        saved.append(price)
        changed.append(
            price_change_item(price=price, old_amount=current.amount if current else None)
        )
    prices_changed_announce(
        source_name=source_name,
        changed=changed[:PRICE_CHANGES_PER_EVENT],
        changed_total=len(changed),
    )
    return saved


def _decimal(value: Any, where: str) -> Decimal:
    try:
        result = Decimal(str(value))
    except InvalidOperation as exc:
        raise CatalogDataError(f"{where}: {value!r} is not a number") from exc
    if not result.is_finite() or result < 0:
        raise CatalogDataError(f"{where}: {value!r} must be a non-negative number")
    return result


def _parse_price(entry: Mapping[str, Any], sku: str) -> dict[str, Any]:
    where = f"{sku} price"
    kind = entry.get("price_kind", PriceKind.PURCHASE)
    if kind not in PriceKind.values:
        raise CatalogDataError(f"{where}: price_kind must be one of {PriceKind.values}")
    currency = entry.get("currency")
    if currency not in CURRENCIES:
        raise CatalogDataError(f"{where}: currency must be one of {list(CURRENCIES)}")
    try:
        observed_on = dt.date.fromisoformat(entry["observed_on"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CatalogDataError(f"{where}: observed_on must be an ISO date (YYYY-MM-DD)") from exc
    if not entry.get("source"):
        raise CatalogDataError(f"{where}: every price needs a source")
    return {
        "price_kind": kind,
        "amount": _decimal(entry.get("amount"), f"{where} amount"),
        "currency": currency,
        "observed_on": observed_on,
        "source": entry["source"],
    }


def _upsert_part(entry: Mapping[str, Any], user: Any, report: LoadReport) -> Part:
    sku = entry.get("sku") or ""
    kind = entry.get("kind")
    model = PART_MODELS.get(kind)  # type: ignore[arg-type]
    if not sku or model is None:
        raise CatalogDataError(f"part {sku or '?'}: needs a sku and a kind in {list(PART_MODELS)}")
    if not entry.get("source"):
        raise CatalogDataError(f"{sku}: every part needs a specification source")
    spec = dict(entry.get("spec", {}))
    known = {f.name for f in model._meta.concrete_fields}
    unknown = set(spec) - known
    if unknown:
        raise CatalogDataError(f"{sku}: unknown {kind} fields {sorted(unknown)}")
    values = {name: entry.get(name, "") for name in COMMON_FIELDS} | spec
    part = model.objects.filter(sku=sku).first()
    if part is None:
        part = model(sku=sku, kind=model.KIND, created_by=user, updated_by=user, **values)
        part.full_clean()
        part.save()
        report.created += 1
        return part
    changed = [
        name for name, value in values.items() if _differs(model, name, getattr(part, name), value)
    ]
    if changed:
        for name in changed:
            setattr(part, name, values[name])
        part.updated_by = user
        part.full_clean()
        part.save()
        report.updated += 1
    else:
        report.unchanged += 1
    return part


def _differs(model: type[Part], name: str, current: Any, new: Any) -> bool:
    return model._meta.get_field(name).to_python(new) != current


@transaction.atomic
def catalog_load(*, parts: Iterable[Mapping[str, Any]], user: Any = None) -> LoadReport:
    """Create or update parts by SKU and record their prices; all or nothing."""
    report = LoadReport()
    for entry in parts:
        part = _upsert_part(entry, user, report)
        report.skus.append(part.sku)
        for price in entry.get("prices", []):
            added = price_record(part=part, user=user, **_parse_price(price, part.sku))
            if added:
                report.prices_added += 1
            else:
                report.prices_unchanged += 1
    return report


# ---------------------------------------------------------------------------------------------
# Price feeds: fetch, validate every row, apply all or nothing; quarantine; beat schedules.
# ---------------------------------------------------------------------------------------------

PRICE_REFRESH_TASK = "catalog.refresh_price_source"
FEED_CHUNK_ROWS = 1000
BULK_BATCH_ROWS = 1000
PRICE_KIND_BY_SOURCE_KIND = {
    PriceSourceKind.SUPPLIER: PriceKind.PURCHASE,
    PriceSourceKind.HOSTING: PriceKind.MANAGED_MONTHLY,
}
MANAGED_PART_KINDS = frozenset({PartKind.GPU, PartKind.CHASSIS})


class LockLostError(FeedError):
    """Another run took this source's lock over (ours had expired): nothing is applied."""


class QuarantineReviewError(ValueError):
    """The quarantined price has already been reviewed."""


def cloud_price_record(
    *,
    gpu_model: str,
    commitment: str,
    provider: str,
    price_per_gpu_hour: Decimal,
    currency: str,
    observed_on: dt.date,
    source: str,
    price_source: PriceSource | None = None,
    user: Any = None,
) -> CloudPrice | None:
    """Add a cloud price row unless it adds nothing new (the ``price_record`` rule)."""
    rows = CloudPrice.objects.filter(
        gpu_model=gpu_model, commitment=commitment, provider=provider, currency=currency
    )
    recorded = rows.filter(observed_on=observed_on, price_per_gpu_hour=price_per_gpu_hour).exists()
    current = None if recorded else rows.order_by("-observed_on", "-id").first()
    if price_adds_nothing(
        amount=price_per_gpu_hour,
        observed_on=observed_on,
        current=current and (current.price_per_gpu_hour, current.observed_on),
        recorded_same_day=recorded,
    ):
        return None
    return CloudPrice.objects.create(
        gpu_model=gpu_model,
        commitment=commitment,
        provider=provider,
        price_per_gpu_hour=price_per_gpu_hour,
        currency=currency,
        observed_on=observed_on,
        source=source,
        price_source=price_source,
        created_by=user,
    )


def price_moves_too_much(*, current: Decimal, new: Decimal) -> bool:
    """More than PRICE_QUARANTINE_CHANGE_PCT away from the current price (either way)."""
    if current == new:
        return False
    if current == 0:
        return True
    return abs(new - current) * 100 > current * settings.PRICE_QUARANTINE_CHANGE_PCT


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


class _FeedRejectedError(Exception):
    """Too many bad rows: raised inside the transaction to roll it back."""


def feed_fetch_limits() -> FetchLimits:
    return FetchLimits(
        timeout_s=settings.PRICE_FEED_FETCH_TIMEOUT_SECONDS,
        deadline_s=settings.PRICE_FEED_FETCH_DEADLINE_SECONDS,
        max_bytes=settings.PRICE_FEED_MAX_BYTES,
        file_root=Path(settings.PRICE_FEED_FILE_ROOT),
        outbound=outbound_policy(),
    )


def _feed_spec(source: PriceSource, today: dt.date) -> FeedSpec:
    return FeedSpec(
        kind=source.kind,
        format=source.format,
        default_currency=source.currency,
        currencies=frozenset(CURRENCIES),
        today=today,
        column_map=source.column_map or {},
        default_source=f"{source.name} price feed: {source.location}",
    )


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
    feed) and ``LockLostError`` propagate, with nothing applied.
    """
    spec = _feed_spec(source, today or timezone.localdate())
    outcome = FeedOutcome()
    apply_chunk = _cloud_chunk_apply if source.kind == PriceSourceKind.CLOUD else _part_chunk_apply
    try:
        with transaction.atomic():
            if lock_token is not None:
                _lease_check(source_id=source.pk, token=lock_token)
            rows = iter_rows(stream, spec)
            while chunk := list(itertools.islice(rows, FEED_CHUNK_ROWS)):
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
    outcome.status = RunStatus.APPLIED_WITH_ERRORS if outcome.rows_rejected else RunStatus.APPLIED
    outcome.message = (
        f"{outcome.rows_changed} prices recorded, {outcome.rows_unchanged} unchanged, "
        f"{outcome.rows_quarantined} held for review, {outcome.rows_rejected} rows rejected."
    )
    return outcome


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


# A price series: (part id, currency) for part prices, (GPU model, commitment, provider,
# currency) for cloud prices. An observation adds its date and amount to the series key.
_Pending = tuple[tuple, Any, Decimal, "tuple[Decimal, dt.date] | None"]


def _chunk_sort(
    *,
    keyed: list[tuple[tuple, Any, Decimal]],
    current: dict[tuple, tuple[Decimal, dt.date]],
    recorded_of: Callable[[list[_Pending]], set[tuple]],
    reviewed_of: Callable[[list[_Pending]], dict[tuple, str]],
    outcome: FeedOutcome,
) -> tuple[list[_Pending], list[_Pending]]:
    """Sort a chunk's rows into unchanged (counted), to record and to hold for review.

    Rows equal to their current price are settled from the current prices alone; only the others
    cost the two further look-ups (same-day rows already recorded, observations already reviewed).
    """
    pending: list[_Pending] = []
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
    to_record: list[_Pending] = []
    to_hold: list[_Pending] = []
    for item in pending:
        key, row, amount, now = item
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
        elif verdict == "hold":
            outcome.rows_quarantined += 1
            to_hold.append(item)
        else:
            outcome.rows_changed += 1
            to_record.append(item)
    return to_record, to_hold


def _verdict(
    *,
    amount: Decimal,
    observed_on: dt.date,
    current: tuple[Decimal, dt.date] | None,
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


def _part_chunk_apply(
    *, source: PriceSource, run: PriceRefreshRun, rows: list[Any], outcome: FeedOutcome
) -> None:
    price_kind = PRICE_KIND_BY_SOURCE_KIND[PriceSourceKind(source.kind)]
    found = {
        sku: (part_id, kind)
        for sku, part_id, kind in Part.objects.filter(sku__in={r.sku for r in rows}).values_list(
            "sku", "id", "kind"
        )
    }
    keyed: list[tuple[tuple, Any, Decimal]] = []
    for row in rows:
        part = found.get(row.sku)
        if part is None:
            outcome.reject(RowError(row.row, "sku", "is not in the catalog", row.sku))
        elif price_kind == PriceKind.MANAGED_MONTHLY and part[1] not in MANAGED_PART_KINDS:
            message = f"is a {part[1]}: managed-hosting prices apply to GPUs and chassis"
            outcome.reject(RowError(row.row, "sku", message, row.sku))
        else:
            keyed.append(((part[0], row.currency), row, row.amount))
    if not keyed:
        return
    prices = Price.objects.filter(price_kind=price_kind)
    latest = prices.filter(part=OuterRef("part"), currency=OuterRef("currency")).order_by(
        "-observed_on", "-id"
    )
    current = {
        (part_id, currency): (amount, observed_on)
        for part_id, currency, amount, observed_on in prices.filter(
            part_id__in={key[0] for key, _, _ in keyed}, id=Subquery(latest.values("id")[:1])
        ).values_list("part_id", "currency", "amount", "observed_on")
    }

    def recorded_of(pending: list[_Pending]) -> set[tuple]:
        return set(
            prices.filter(
                part_id__in={key[0] for key, *_ in pending},
                observed_on__in={row.observed_on for _, row, *_ in pending},
            ).values_list("part_id", "currency", "observed_on", "amount")
        )

    def reviewed_of(pending: list[_Pending]) -> dict[tuple, str]:
        rows_ = QuarantinedPrice.objects.filter(
            part_id__in={key[0] for key, *_ in pending},
            price_kind=price_kind,
            observed_on__in={row.observed_on for _, row, *_ in pending},
        ).values_list("part_id", "currency", "observed_on", "amount", "status")
        return {tuple(values[:4]): values[4] for values in rows_}

    to_record, to_hold = _chunk_sort(
        keyed=keyed,
        current=current,
        recorded_of=recorded_of,
        reviewed_of=reviewed_of,
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


def _cloud_chunk_apply(
    *, source: PriceSource, run: PriceRefreshRun, rows: list[Any], outcome: FeedOutcome
) -> None:
    fields = ("gpu_model", "commitment", "provider", "currency")
    keyed = [
        ((row.gpu_model, row.commitment, row.provider, row.currency), row, row.price_per_gpu_hour)
        for row in rows
    ]
    prices = CloudPrice.objects.filter(gpu_model__in={row.gpu_model for row in rows})
    latest = CloudPrice.objects.filter(**{name: OuterRef(name) for name in fields}).order_by(
        "-observed_on", "-id"
    )
    current = {
        tuple(values[:4]): (values[4], values[5])
        for values in prices.filter(id=Subquery(latest.values("id")[:1])).values_list(
            *fields, "price_per_gpu_hour", "observed_on"
        )
    }

    def recorded_of(pending: list[_Pending]) -> set[tuple]:
        dates = {row.observed_on for _, row, *_ in pending}
        return set(
            prices.filter(observed_on__in=dates).values_list(
                *fields, "observed_on", "price_per_gpu_hour"
            )
        )

    def reviewed_of(pending: list[_Pending]) -> dict[tuple, str]:
        rows_ = QuarantinedPrice.objects.filter(
            part__isnull=True,
            gpu_model__in={key[0] for key, *_ in pending},
            observed_on__in={row.observed_on for _, row, *_ in pending},
        ).values_list(*fields, "observed_on", "amount", "status")
        return {tuple(values[:6]): values[6] for values in rows_}

    to_record, to_hold = _chunk_sort(
        keyed=keyed,
        current=current,
        recorded_of=recorded_of,
        reviewed_of=reviewed_of,
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


# --- One refresh run: the lease (lock), the fetch, the apply, the record --------------------


def _lease_take(*, source_id: int, token: str, now: dt.datetime) -> bool:
    """Take the source's run lease unless a live run holds it. Works across hosts.

    The lease is a token and an expiry on the source row, set by one conditional UPDATE (atomic
    on PostgreSQL and SQLite alike). On PostgreSQL the row is first locked with SKIP LOCKED: a run
    that is applying its feed holds that row lock, so a second run gives up at once instead of
    waiting. A worker killed mid-run leaves its lease behind; it expires after
    PRICE_FEED_LOCK_SECONDS (longer than the task time limit), then the next run takes over.
    """
    with transaction.atomic():
        free = (
            PriceSource.objects.select_for_update(skip_locked=True)
            .filter(pk=source_id)
            .values_list("pk", flat=True)
            .first()
        )
        if free is None:
            return False
        taken = (
            PriceSource.objects.filter(pk=source_id)
            .filter(Q(locked_until__isnull=True) | Q(locked_until__lte=now))
            .update(
                lock_token=token,
                locked_until=now + dt.timedelta(seconds=settings.PRICE_FEED_LOCK_SECONDS),
            )
        )
        return taken == 1


def _lease_check(*, source_id: int, token: str) -> None:
    """Inside the apply transaction: lock the source row and make sure the lease is still ours."""
    holder = (
        PriceSource.objects.select_for_update()
        .filter(pk=source_id)
        .values_list("lock_token", flat=True)
        .first()
    )
    if holder != token:
        raise LockLostError(
            "this run's lock expired and another run took the source over; nothing was applied"
        )


def _lease_release(*, source_id: int, token: str) -> None:
    PriceSource.objects.filter(pk=source_id, lock_token=token).update(
        lock_token="", locked_until=None
    )


def _runs_abandon(*, source_id: int, now: dt.datetime) -> None:
    """Runs still marked running once the lease is free died with their worker."""
    PriceRefreshRun.objects.filter(source_id=source_id, status=RunStatus.RUNNING).update(
        status=RunStatus.ABANDONED,
        finished_at=now,
        message="The worker stopped before this run finished; nothing from it was applied "
        "(one transaction). A later run applied the feed again.",
    )


def price_source_refresh(
    *,
    source_id: int,
    trigger: str = RunTrigger.SCHEDULE,
    attempt: int = 1,
    task_id: str = "",
    user: Any = None,
) -> PriceRefreshRun:
    """Fetch one source's feed and apply it; every call is recorded as a ``PriceRefreshRun``.

    A second call while a run holds the source's lease records a SKIPPED run and does nothing.
    Network errors, timeouts and 5xx answers are recorded as FAILED and re-raised as
    ``FeedTemporaryError`` so the Celery task retries them with backoff; every other failure is
    recorded (FAILED or REJECTED) and returned. Nothing is ever half-applied.
    """
    source = PriceSource.objects.get(pk=source_id)
    token = uuid.uuid4().hex
    started = timezone.now()
    common = {
        "source": source,
        "trigger": trigger,
        "attempt": attempt,
        "task_id": task_id or "",
        "requested_by": user,
        "started_at": started,
    }
    if not _lease_take(source_id=source.pk, token=token, now=started):
        until = PriceSource.objects.values_list("locked_until", flat=True).get(pk=source.pk)
        when = f" until {until:%Y-%m-%d %H:%M:%S} UTC" if until else ""
        return PriceRefreshRun.objects.create(
            status=RunStatus.SKIPPED,
            finished_at=started,
            message=f"Another run of this source holds its lock{when}; this one did nothing.",
            **common,
        )
    try:
        _runs_abandon(source_id=source.pk, now=started)
        run = PriceRefreshRun.objects.create(status=RunStatus.RUNNING, **common)
        _run_execute(source=source, run=run, token=token)
        return run
    finally:
        _lease_release(source_id=source.pk, token=token)


def _run_execute(*, source: PriceSource, run: PriceRefreshRun, token: str) -> None:
    try:
        with feed_open(source.location, limits=feed_fetch_limits()) as fetched:
            run.bytes_read = fetched.size_bytes
            outcome = price_feed_apply(
                source=source, run=run, stream=fetched.stream, lock_token=token
            )
    except FeedTemporaryError as exc:
        _run_close(
            run,
            status=RunStatus.FAILED,
            message=f"{exc}. Nothing was applied; the task retries with backoff while "
            f"attempts remain (this was attempt {run.attempt}).",
        )
        raise
    except FeedFormatError as exc:
        _run_close(run, status=RunStatus.REJECTED, message=f"Unreadable feed: {exc}.")
    except FeedError as exc:
        _run_close(run, status=RunStatus.FAILED, message=f"{exc}. Nothing was applied.")
    except Exception as exc:
        _run_close(run, status=RunStatus.FAILED, message=f"Unexpected error: {exc!r}.")
        raise
    else:
        _run_close(run, outcome=outcome)


def _run_close(
    run: PriceRefreshRun,
    *,
    outcome: FeedOutcome | None = None,
    status: str = "",
    message: str = "",
) -> None:
    run.finished_at = timezone.now()
    if outcome is not None:
        for name in (
            "status",
            "rows_read",
            "rows_changed",
            "rows_unchanged",
            "rows_rejected",
            "rows_quarantined",
            "errors",
            "message",
        ):
            setattr(run, name, getattr(outcome, name))
    else:
        run.status, run.message = status, message
    run.save()


def price_source_refresh_enqueue(*, source_ids: Iterable[int], user: Any = None) -> int:
    """Queue a refresh of each source after the current transaction commits ("refresh now")."""
    count = 0
    for source_id in source_ids:
        # One outbox job each: a broker outage keeps it for later, an eager run that fails is
        # recorded on its run; neither is raised here nor stops the other sources.
        outbox_job_enqueue(
            task=PRICE_REFRESH_TASK,  # by name: the tasks module imports this one
            kwargs={
                "source_id": source_id,
                "trigger": RunTrigger.MANUAL,
                "user_id": getattr(user, "pk", None),
            },
        )
        count += 1
    return count


# --- Beat schedules ---------------------------------------------------------------------------


def price_source_schedule_sync(*, source: PriceSource) -> PeriodicTask:
    """Create or update the source's django-celery-beat entry (the schedule lives in the DB)."""
    minute, hour, day_of_month, month_of_year, day_of_week = source.schedule.split()
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
        timezone=settings.CELERY_TIMEZONE,
    )
    task = source.periodic_task or PeriodicTask()
    task.name = f"Refresh prices: {source.name} (source {source.pk})"[:200]
    task.task = PRICE_REFRESH_TASK
    task.crontab = crontab
    task.interval = task.solar = task.clocked = None
    task.args = "[]"
    task.kwargs = json.dumps({"source_id": source.pk})
    task.enabled = source.enabled
    task.description = f"Managed by the price source '{source.name}': edit the schedule there."
    task.save()
    if source.periodic_task_id != task.pk:
        source.periodic_task = task
        PriceSource.objects.filter(pk=source.pk).update(periodic_task=task)
    return task


@transaction.atomic
def price_source_delete(*, source: PriceSource) -> None:
    """Delete a source that never ran, and its beat entry (sources with runs: disable them)."""
    task = source.periodic_task
    source.delete()
    if task is not None:
        task.delete()


# --- Review of quarantined prices -------------------------------------------------------------


def _quarantined_for_review(quarantined_id: int) -> QuarantinedPrice:
    held = (
        QuarantinedPrice.objects.select_for_update(of=("self",))
        .select_related("part", "source")
        .get(pk=quarantined_id)
    )
    if held.status != ReviewStatus.PENDING:
        raise QuarantineReviewError(
            f"{held.subject}: already {held.get_status_display().lower()} "
            f"by {held.reviewed_by} on {held.reviewed_at:%Y-%m-%d %H:%M}"
        )
    return held


@transaction.atomic
def quarantined_price_approve(*, quarantined_id: int, user: Any) -> QuarantinedPrice:
    """Record the held price through ``price_record``/``cloud_price_record``; keep who/when."""
    held = _quarantined_for_review(quarantined_id)
    current = None
    if held.part_id:
        current = _price_current(part=held.part, price_kind=held.price_kind, currency=held.currency)
        held.price = price_record(
            part=held.part,
            price_kind=held.price_kind,
            amount=round_money(held.amount),
            currency=held.currency,
            observed_on=held.observed_on,
            source=held.source_detail,
            user=user,
        )
    else:
        held.cloud_price = cloud_price_record(
            gpu_model=held.gpu_model,
            commitment=held.commitment,
            provider=held.provider,
            price_per_gpu_hour=held.amount,
            currency=held.currency,
            observed_on=held.observed_on,
            source=held.source_detail,
            price_source=held.source,
            user=user,
        )
    held.status = ReviewStatus.APPROVED
    held.reviewed_by, held.reviewed_at = user, timezone.now()
    held.save(update_fields=["status", "reviewed_by", "reviewed_at", "price", "cloud_price"])
    if held.price is not None:  # a part price (cloud prices are not announced, as in feeds)
        prices_changed_announce(
            source_name=held.source.name,
            changed=[
                price_change_item(price=held.price, old_amount=current.amount if current else None)
            ],
        )
    return held


@transaction.atomic
def quarantined_price_reject(*, quarantined_id: int, user: Any) -> QuarantinedPrice:
    held = _quarantined_for_review(quarantined_id)
    held.status = ReviewStatus.REJECTED
    held.reviewed_by, held.reviewed_at = user, timezone.now()
    held.save(update_fields=["status", "reviewed_by", "reviewed_at"])
    return held
