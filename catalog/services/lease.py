"""The run lease of a price source: one refresh per source at a time, across hosts.

The lease is a token and an expiry on the source row (``lock_token``, ``locked_until``). A run
takes it before fetching, checks it is still its own inside the apply transaction, and frees it
at the end; a worker killed mid-run leaves it behind until it expires.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from catalog.feeds import FeedError
from catalog.models import PriceSource


class LockLostError(FeedError):
    """Another run took this source's lock over (ours had expired): nothing is applied."""


def source_lease_take(*, source_id: int, token: str, now: dt.datetime) -> bool:
    """Take the source's run lease unless a live run holds it. Works across hosts.

    The lease is set by one conditional UPDATE (atomic on PostgreSQL and SQLite alike). On
    PostgreSQL the row is first locked with SKIP LOCKED: a run that is applying its feed holds that
    row lock, so a second run gives up at once instead of waiting. A worker killed mid-run leaves
    its lease behind; it expires after PRICE_FEED_LOCK_SECONDS (longer than the task time limit),
    then the next run takes over.
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


def source_lease_check(*, source_id: int, token: str) -> None:
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


def source_lease_release(*, source_id: int, token: str) -> None:
    """Free the lease if it is still ours (a run that lost it leaves the new holder's alone)."""
    PriceSource.objects.filter(pk=source_id, lock_token=token).update(
        lock_token="", locked_until=None
    )
