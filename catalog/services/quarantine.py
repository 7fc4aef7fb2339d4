"""Staff review of quarantined prices: approve one (recorded as a feed would) or reject it."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.models import QuarantinedPrice, ReviewStatus
from catalog.selectors.prices import current_price_get
from catalog.services.prices import (
    cloud_price_record,
    price_change_item,
    price_record,
    prices_changed_announce,
)
from engine.money import round_money


class QuarantineReviewError(ValueError):
    """The quarantined price has already been reviewed."""


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
    if held.part is not None:  # a part price (select_related: no query)
        current = current_price_get(
            part=held.part, price_kind=held.price_kind, currency=held.currency
        )
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
