"""Quote numbers: ``Q-<year>-<sequence>``, one locked counter row per year."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from quotes.models import (
    QuoteCounter,
)


def quote_sequence_next(*, year: int) -> int:
    """The next sequence number of ``year``: the year's counter row is locked until the caller's
    transaction ends, so concurrent creations queue and every number is handed out once."""
    with transaction.atomic():
        counter, _created = QuoteCounter.objects.select_for_update().get_or_create(year=year)
        QuoteCounter.objects.filter(pk=counter.pk).update(last=F("last") + 1)
        counter.refresh_from_db(fields=["last"])
        return counter.last
