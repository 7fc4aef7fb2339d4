"""Deleting many old rows without one huge statement: the retention purges of both apps."""

from __future__ import annotations

from django.db import models

PURGE_CHUNK_ROWS = 1000


def chunks_delete(queryset: models.QuerySet) -> int:
    """Delete ``queryset``'s rows ``PURGE_CHUNK_ROWS`` at a time; the number of its model's rows
    deleted (cascaded rows not counted). Call inside a transaction: each chunk's rows are locked
    before they are deleted."""
    model = queryset.model
    deleted = 0
    while True:
        pks = list(
            queryset.select_for_update()
            .order_by("pk")
            .values_list("pk", flat=True)[:PURGE_CHUNK_ROWS]
        )
        if not pks:
            return deleted
        _total, per_model = model._default_manager.filter(pk__in=pks).delete()
        deleted += per_model.get(model._meta.label, 0)
