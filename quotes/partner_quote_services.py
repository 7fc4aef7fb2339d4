"""Quotes created by partners over the API, idempotently.

The computation is the wizard's (``wizard_result_compute``): the result is stored as a
``WizardResult`` (so the partner's customer also has the decision-checklist PDF) and turned into
a quote by ``quote_create_from_result`` with origin ``partner_api``. An ``Idempotency-Key``
makes a retried POST return the first quote: same key and same body, same quote; same key with
another body is refused (409), as the key was already spent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from quotes.models import IdempotencyRecord, Partner, Quote, QuoteOrigin, WizardResult
from quotes.quote_services import quote_create_from_result
from quotes.wizard_services import WizardInputs, wizard_result_compute


class IdempotencyConflict(Exception):
    """The key was used before with a different request body."""

    def __init__(self) -> None:
        super().__init__(_("This Idempotency-Key was already used with a different request body."))


def request_fingerprint(data: Any) -> str:
    """SHA-256 of the request body in a canonical JSON form (key order does not matter)."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replayed(partner: Partner, key: str, fingerprint: str) -> Quote | None:
    record = (
        IdempotencyRecord.objects.select_related("quote").filter(partner=partner, key=key).first()
    )
    if record is None:
        return None
    if record.request_hash != fingerprint:
        raise IdempotencyConflict
    return record.quote


def partner_quote_create(
    *,
    partner: Partner,
    inputs: WizardInputs,
    customer: dict[str, Any],
    language: str,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[Quote, bool]:
    """(quote, created). Raises ``IdempotencyConflict``; ``ValidationError`` when the workload
    has no configuration to quote."""
    if idempotency_key:
        replay = _replayed(partner, idempotency_key, fingerprint)
        if replay is not None:
            return replay, False
    computed = wizard_result_compute(inputs=inputs)  # outside the transaction: no locks held
    try:
        with transaction.atomic():
            result = WizardResult.objects.create(
                language=language, answers={"source": "partner_api"}, result=computed
            )
            quote = quote_create_from_result(
                user=None,
                result=result,
                customer=customer,
                origin=QuoteOrigin.PARTNER_API,
                partner=partner,
            )
            if idempotency_key:
                IdempotencyRecord.objects.create(
                    partner=partner, key=idempotency_key, request_hash=fingerprint, quote=quote
                )
    except IntegrityError:
        # A concurrent request with the same key won the unique constraint: answer with its quote.
        replay = _replayed(partner, idempotency_key, fingerprint) if idempotency_key else None
        if replay is None:
            raise
        return replay, False
    return quote, True
