"""The customer wizard's writes: compute a result once and store it; record quote requests.

A result is computed at the end of the wizard from the validated answers by ``advice.compute``,
once per question and data version in each process (``advice.computed_cache``; the partner API
calls the same) and stored language-neutral in ``WizardResult``
(``advice.store``). The result page and the checklist PDF read that stored object back and
render it in the visitor's language, so a later catalog price or assumption change never alters
a stored result (STYLE.md rule 5: snapshots).

A new quote request is e-mailed to the sales team by a task queued through the outbox after the
commit (``quotes.sales.services.notify.quote_request_notify``); a repeat queues nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from gpuquote.core.countries import country_code_normalize
from gpuquote.core.outbox import outbox_job_enqueue
from quotes.advice.computed_cache import computed_get
from quotes.advice.result import AdviceInputs
from quotes.models import QuoteRequest, WizardResult
from quotes.sales.services.common import NOTIFY_QUOTE_REQUEST_TASK


def wizard_result_create(
    *, answers: Mapping[str, Any], inputs: AdviceInputs, language: str
) -> WizardResult:
    """Compute the result once and store it with the answers, under a new private token."""
    computed = computed_get(inputs)
    return WizardResult.objects.create(
        language=language, answers=dict(answers), result=computed.stored
    )


@transaction.atomic
def quote_request_create(
    *,
    result: WizardResult,
    name: str,
    company: str,
    email: str,
    country: str,
    consent: bool,
    message: str = "",
    vat_number: str = "",
) -> tuple[QuoteRequest, bool]:
    """A quote request on a stored result, for the sales team (their dashboard and an e-mail),
    and whether it is new: a repeat from the same e-mail address (in any case) returns the
    recorded one unchanged and e-mails nobody (the constraint
    ``quotes_quoterequest_one_per_result_email`` guards races). A VAT number of an EU member
    state is checked against ``country`` (``ValidationError`` on ``vat_number``)."""
    if not consent:
        raise ValidationError({"consent": ["Consent is required to send a quote request."]})
    email = email.strip().lower()
    locked = WizardResult.objects.select_for_update().get(pk=result.pk)
    existing = QuoteRequest.objects.filter(result=locked, email=email).first()
    if existing is not None:
        return existing, False
    request = QuoteRequest(
        result=locked,
        name=name.strip(),
        company=company.strip(),
        email=email,
        country=country_code_normalize(country),
        consent=consent,
        message=message.strip(),
        vat_number=vat_number.strip(),
    )
    request.full_clean(exclude=["result"])  # the (result, e-mail) rule: the database's, below
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves the outer transaction usable
            request.save()
    except IntegrityError:
        existing = QuoteRequest.objects.filter(result=locked, email=email).first()
        if existing is None:
            raise
        return existing, False
    outbox_job_enqueue(task=NOTIFY_QUOTE_REQUEST_TASK, args=[request.pk])
    return request, True
