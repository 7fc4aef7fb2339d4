"""The customer wizard's writes: compute a result once and store it; record quote requests.

A result is computed at the end of the wizard from the validated answers by ``advice.compute``,
once per question and data version in each process (``advice.computed_cache``; the partner API
calls the same) and stored language-neutral and compressed in ``WizardResult``
(``advice.store``), once per question and data version: asking again gives the same row. The
result page and the checklist PDF read that stored object back and render it in the visitor's
language, so a later catalog price or assumption change never alters a stored result
(STYLE.md rule 5: snapshots).

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
from quotes.advice.selectors import data_version_key
from quotes.advice.store import stored_question_digest
from quotes.models import QuoteRequest, WizardResult
from quotes.sales.services.common import NOTIFY_QUOTE_REQUEST_TASK


def wizard_result_create(
    *, answers: Mapping[str, Any], inputs: AdviceInputs, language: str
) -> WizardResult:
    """The stored result of these answers and inputs in ``language``, computed with today's data.

    Stored once, under a new private token; the same question asked again (a repeated re-price,
    the wizard submitted twice) while the data is the same gets that row back, computing and
    writing nothing. Two identical requests at once store one row: the loser of the unique
    constraint ``quotes_wizardresult_one_per_inputs_data_version`` reads the winner's row
    (its insert in a savepoint, so a caller's transaction stays usable)."""
    digest = stored_question_digest(answers=answers, inputs=inputs, language=language)
    version = data_version_key()
    stored = WizardResult.objects.filter(inputs_digest=digest, data_version=version).first()
    if stored is not None:
        return stored
    computed = computed_get(inputs)
    try:
        with transaction.atomic():
            return WizardResult.objects.create(
                inputs_digest=digest,
                data_version=version,
                language=language,
                answers=dict(answers),
                result=computed.stored,
            )
    except IntegrityError:
        return WizardResult.objects.get(inputs_digest=digest, data_version=version)


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
