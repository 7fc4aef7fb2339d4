"""Quotes created by partners over the API, idempotently.

The computation is the wizard's (``advice.compute``): the result is stored as a
``WizardResult`` (so the partner's customer also has the decision-checklist PDF) and turned into
a quote by ``quote_create_from_result`` with origin ``partner_api``. An ``Idempotency-Key``
makes a retried POST return the first quote (``quotes.partners.idempotency``).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from quotes.advice.computed_cache import computed_get
from quotes.advice.result import AdviceInputs
from quotes.models import Partner, Quote, QuoteOrigin, WizardResult
from quotes.partners.idempotency import idempotency_record_create, idempotency_replay
from quotes.sales.services import quote_create_from_result


def partner_quote_create(
    *,
    partner: Partner,
    inputs: AdviceInputs,
    customer: dict[str, Any],
    language: str,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[Quote, bool]:
    """(quote, created). Raises ``IdempotencyConflict``; ``ValidationError`` when the workload
    has no configuration to quote."""
    if idempotency_key:
        replay = idempotency_replay(partner=partner, key=idempotency_key, fingerprint=fingerprint)
        if replay is not None:
            return replay, False
    computed = computed_get(inputs)  # outside the transaction: no locks held
    try:
        with transaction.atomic():
            result = WizardResult.objects.create(
                language=language, answers={"source": "partner_api"}, result=computed.stored
            )
            quote = quote_create_from_result(
                user=None,
                result=result,
                advice=computed.result,
                customer=customer,
                origin=QuoteOrigin.PARTNER_API,
                partner=partner,
            )
            if idempotency_key:
                idempotency_record_create(
                    partner=partner, key=idempotency_key, fingerprint=fingerprint, quote=quote
                )
    except IntegrityError:
        # A concurrent request with the same key won the unique constraint: answer with its quote.
        replay = (
            idempotency_replay(partner=partner, key=idempotency_key, fingerprint=fingerprint)
            if idempotency_key
            else None
        )
        if replay is None:
            raise
        return replay, False
    return quote, True
