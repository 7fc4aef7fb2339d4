"""Quote numbers: ``Q-<year>-<sequence>``, one locked counter row per year.

A quote is numbered last in the transaction that creates it (``quote_number_assign``): the
year's counter row stays locked from the numbering until the commit, so concurrent creations
queue only for that, not for the quote's other writes. Until then the quote carries a unique
placeholder (``~`` and random characters), never committed.
"""

from __future__ import annotations

import secrets

from django.db import transaction
from django.db.models import F

from engine.commerce.numbering import quote_number
from quotes.models import Quote, QuoteCounter
from quotes.models.sales import UNNUMBERED_PREFIX


def quote_sequence_next(*, year: int) -> int:
    """The next sequence number of ``year``: the year's counter row is locked until the caller's
    transaction ends, so concurrent creations queue and every number is handed out once."""
    with transaction.atomic():
        counter, _created = QuoteCounter.objects.select_for_update().get_or_create(year=year)
        QuoteCounter.objects.filter(pk=counter.pk).update(last=F("last") + 1)
        counter.refresh_from_db(fields=["last"])
        return counter.last


def unnumbered_placeholder() -> str:
    """A quote's number until ``quote_number_assign``: unique, 20 characters at most."""
    return UNNUMBERED_PREFIX + secrets.token_urlsafe(14)


def quote_number_assign(quote: Quote) -> None:
    """Number a quote saved in this transaction; call it as the transaction's last write."""
    sequence = quote_sequence_next(year=quote.year)
    quote.number, quote.sequence = quote_number(quote.year, sequence), sequence
    Quote.objects.filter(pk=quote.pk).update(number=quote.number, sequence=sequence)
