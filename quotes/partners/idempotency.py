"""``Idempotency-Key`` of a partner's POST: same key and same body, same quote; same key with
another body is refused (409), as the key was already spent.

The record is written in the transaction that creates the quote (``quotes.partners.quotes``); its
unique constraint (partner, key) settles two concurrent requests with the same key.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.utils.translation import gettext as _

from quotes.models import IdempotencyRecord, Partner, Quote


class IdempotencyConflict(Exception):
    """The key was used before with a different request body."""

    def __init__(self) -> None:
        super().__init__(_("This Idempotency-Key was already used with a different request body."))


def request_fingerprint(data: Any) -> str:
    """SHA-256 of the request body in a canonical JSON form (key order does not matter)."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotency_replay(*, partner: Partner, key: str, fingerprint: str) -> Quote | None:
    """The quote this key already gave (None: the key is new). Raises ``IdempotencyConflict``
    when the key was spent on another body."""
    record = (
        IdempotencyRecord.objects.select_related("quote").filter(partner=partner, key=key).first()
    )
    if record is None:
        return None
    if record.request_hash != fingerprint:
        raise IdempotencyConflict
    return record.quote


def idempotency_record_create(
    *, partner: Partner, key: str, fingerprint: str, quote: Quote
) -> IdempotencyRecord:
    """Spend the key on this quote; call it in the transaction that creates the quote (a
    concurrent request with the same key then fails on the unique constraint)."""
    return IdempotencyRecord.objects.create(
        partner=partner, key=key, request_hash=fingerprint, quote=quote
    )
