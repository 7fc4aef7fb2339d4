"""Recording prices: history only (a new price is a new row), and announcing what changed.

One rule decides whether a price adds anything (``price_adds_nothing``); the single-row writers
here and the bulk feed path (``catalog.services.feed_rows``) share it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db import transaction

from catalog.models import CloudPrice, Part, Price, PriceSource
from catalog.selectors.prices import current_price_get
from catalog.signals import ADMIN_SOURCE_NAME, PRICE_CHANGES_PER_EVENT, prices_changed


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
        current=(current.amount, current.observed_on) if current else None,
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
        current=(current.price_per_gpu_hour, current.observed_on) if current else None,
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
        current = current_price_get(
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
