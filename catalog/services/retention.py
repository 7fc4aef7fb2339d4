"""Retention of price refresh runs: finished runs older than PRICE_REFRESH_RUN_RETENTION_DAYS are
deleted daily (``catalog.tasks.purge_price_refresh_runs``), in one transaction and in chunks.

Kept whatever their age: a running run (its worker still writes to it), the latest finished run
of each source (the source admin's "last run" columns read the latest run, and what a source did
last must stay visible however long ago that was) and a run a quarantined price was held by (the
price names the run it came from, and protects it).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery

from catalog.models import PriceRefreshRun, QuarantinedPrice, RunStatus
from gpuquote.core.purge import chunks_delete


@transaction.atomic
def price_refresh_runs_purge(*, now: dt.datetime) -> int:
    """Delete the purgeable runs (see the module); the number deleted. Safe to run twice."""
    cutoff = now - dt.timedelta(days=settings.PRICE_REFRESH_RUN_RETENTION_DAYS)
    # The latest finished run: the latest of all when that one is finished, else it is running.
    latest_finished_of_source = (
        PriceRefreshRun.objects.filter(source=OuterRef("source"))
        .exclude(status=RunStatus.RUNNING)
        .order_by("-started_at", "-id")
    )
    purgeable = (
        PriceRefreshRun.objects.filter(started_at__lt=cutoff)
        .exclude(status=RunStatus.RUNNING)
        .exclude(pk=Subquery(latest_finished_of_source.values("pk")[:1]))
        .exclude(Exists(QuarantinedPrice.objects.filter(run=OuterRef("pk"))))
    )
    return chunks_delete(purgeable)
