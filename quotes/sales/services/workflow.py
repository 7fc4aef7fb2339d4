"""The quote workflow: discount approval, sending, the customer's answer, expiry.

E-mails go out from Celery tasks queued after commit through the outbox
(``gpuquote.core.outbox``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from engine.commerce.pricing import PricingError, QuoteTotals
from engine.commerce.workflow import (
    Action,
    QuoteContext,
    QuoteStatus,
    Role,
    TransitionError,
    transition,
)
from gpuquote.core.outbox import outbox_job_enqueue
from gpuquote.core.roles import user_role
from quotes.advice.presenters import localized_text
from quotes.models import (
    Quote,
    QuoteEventKind,
    QuoteLine,
)
from quotes.sales.selectors import (
    quote_server_review_get,
    revision_digest,
    revision_lines_get,
    revision_totals_get,
)
from quotes.sales.services.common import (
    NOTIFY_APPROVAL_WAITING_TASK,
    NOTIFY_QUOTE_ANSWER_TASK,
    SEND_QUOTE_EMAIL_TASK,
    event_record,
    quote_lock,
    refused,
    workflow_context,
)


@transaction.atomic
def quote_discount_approve(
    *, user: Any, quote: Quote, today: dt.date | None = None, digest: str | None = None
) -> Quote:
    """A sales manager approves the current effective discount, for the revision's current
    content only (``revision_digest``). ``digest``: the content the manager was shown (the
    approve form carries it); refused when the revision changed since."""
    quote = quote_lock(quote)
    today = today or timezone.localdate()
    revision = quote.revision
    try:
        totals = revision_totals_get(quote=quote, revision=revision)
    except PricingError as error:
        raise refused(error) from error
    current = revision_digest(quote=quote, revision=revision, totals=totals)
    if digest is not None and digest != current:
        raise ValidationError(
            gettext(
                "The quote changed since this page was shown: look at it again before approving."
            )
        )
    context = workflow_context(quote, user_role(user), today, totals)
    try:
        result = transition(quote.status, Action.APPROVE_DISCOUNT, context=context)
    except TransitionError as error:
        raise refused(error) from error
    revision.approved_discount_pct = result.approved_discount_pct
    revision.approved_by = user
    revision.approved_at = timezone.now()
    revision.approved_digest = current
    revision.save(
        update_fields=["approved_discount_pct", "approved_by", "approved_at", "approved_digest"]
    )
    event_record(
        quote,
        QuoteEventKind.APPROVED,
        user=user,
        data={"approved_discount_pct": str(result.approved_discount_pct)},
    )
    return quote


def totals_to_dict(totals: QuoteTotals) -> dict[str, Any]:
    """The figures a sent revision carried, as decimal strings."""

    def amounts(group: Any) -> dict[str, str]:
        names = ("gross", "line_discounts", "lines_net", "quote_discount", "net", "vat", "total")
        return {name: str(getattr(group, name).amount) for name in names}

    return {
        "currency": totals.currency,
        "one_off": amounts(totals.one_off),
        "monthly": amounts(totals.monthly),
        "first_invoice": amounts(totals.first_invoice),
        "contract": amounts(totals.contract),
        "contract_months": totals.contract_months,
        "effective_discount_pct": str(totals.effective_discount_pct),
        "vat_regime": str(totals.vat_regime),
        "vat_rate_pct": str(totals.vat_rate_pct),
    }


def _failed_checks(quote: Quote, lines: list[QuoteLine], *, acknowledged: bool) -> list[str]:
    """The server checks the quoted parts fail (in the quote's language, for the record).
    Refuses when there are some and the user did not say they read them."""
    review = quote_server_review_get(quote=quote, lines=lines)
    if review is None or review.passed:
        return []
    failures = [localized_text(message) for message in review.failures]
    if not acknowledged:
        raise ValidationError(
            [
                gettext(
                    "The quoted servers fail %(count)s of the builder's checks (listed under "
                    "Server checks). Read them, then tick “Send anyway” to send the "
                    "quote as it is."
                )
                % {"count": len(failures)},
                *failures,
            ]
        )
    return failures


class ApprovalPendingError(ValidationError):
    """A send refused until a sales manager approves the revision's figures."""


def quote_send(
    *,
    user: Any,
    quote: Quote,
    today: dt.date | None = None,
    failed_checks_acknowledged: bool = False,
) -> Quote:
    """Send the current revision: status ``sent``, then (after commit) the e-mail with the PDF.

    Servers that fail the builder's checks are sent only when the user acknowledged the
    failures; the sent event records them. A send that needs a manager's approval is refused,
    and the managers are told, once per revision content (``quote_approval_request``)."""
    try:
        return _quote_send(
            user=user, quote=quote, today=today, acknowledged=failed_checks_acknowledged
        )
    except ApprovalPendingError:
        quote_approval_request(user=user, quote=quote)
        raise


@transaction.atomic
def quote_approval_request(*, user: Any, quote: Quote) -> bool:
    """Record that the current revision waits for a manager and e-mail the managers (after
    commit), once per revision content: the same content refused twice asks once."""
    quote = quote_lock(quote)
    revision = quote.revision
    try:
        totals = revision_totals_get(quote=quote, revision=revision)
    except PricingError:
        return False
    digest = revision_digest(quote=quote, revision=revision, totals=totals)
    asked = quote.events.filter(
        kind=QuoteEventKind.APPROVAL_REQUESTED, revision=revision, data__digest=digest
    ).exists()
    if asked:
        return False
    event = event_record(
        quote,
        QuoteEventKind.APPROVAL_REQUESTED,
        user=user,
        revision=revision,
        data={"digest": digest, "effective_discount_pct": str(totals.effective_discount_pct)},
    )
    outbox_job_enqueue(task=NOTIFY_APPROVAL_WAITING_TASK, args=[event.pk])
    return True


@transaction.atomic
def _quote_send(*, user: Any, quote: Quote, today: dt.date | None, acknowledged: bool) -> Quote:
    quote = quote_lock(quote)
    today = today or timezone.localdate()
    revision = quote.revision
    lines = revision_lines_get(revision=revision)
    try:
        totals = revision_totals_get(quote=quote, revision=revision, lines=lines)
    except PricingError as error:
        raise refused(error) from error
    context = workflow_context(quote, user_role(user), today, totals)
    try:
        result = transition(quote.status, Action.SEND, context=context)
    except TransitionError as error:
        if context.approval_pending and quote.status == QuoteStatus.DRAFT:
            raise ApprovalPendingError(localized_text(error.message)) from error
        raise refused(error) from error
    failed = _failed_checks(quote, lines, acknowledged=acknowledged)
    previous, quote.status = quote.status, result.status
    quote.save(update_fields=["status", "updated_at"])
    revision.sent_at = timezone.now()
    revision.sent_totals = totals_to_dict(totals)
    revision.save(update_fields=["sent_at", "sent_totals"])
    event_record(
        quote,
        QuoteEventKind.STATUS,
        user=user,
        from_status=previous,
        to_status=quote.status,
        data={"sent_with_failed_checks": failed} if failed else None,
    )
    outbox_job_enqueue(task=SEND_QUOTE_EMAIL_TASK, args=[quote.pk, revision.pk])
    return quote


def _answer(quote: Quote, action: Action, *, role: Role, today: dt.date) -> tuple[str, str]:
    try:
        result = transition(quote.status, action, context=workflow_context(quote, role, today))
    except TransitionError as error:
        raise refused(error) from error
    previous, quote.status = quote.status, result.status
    quote.save(update_fields=["status", "updated_at"])
    return previous, quote.status


@transaction.atomic
def quote_answer_record(
    *, user: Any, quote: Quote, accept: bool, reason: str = "", today: dt.date | None = None
) -> Quote:
    """Staff record the customer's answer given by phone or mail."""
    quote = quote_lock(quote)
    action = Action.ACCEPT if accept else Action.DECLINE
    previous, new = _answer(
        quote, action, role=user_role(user), today=today or timezone.localdate()
    )
    event_record(
        quote, QuoteEventKind.STATUS, user=user, from_status=previous, to_status=new, reason=reason
    )
    return quote


@transaction.atomic
def quote_customer_answer(
    *, token: str, accept: bool, name: str, reason: str = "", today: dt.date | None = None
) -> Quote:
    """The customer accepts or declines from the private link (only while sent and valid).

    The workflow knows staff roles only; the customer's answer is checked with a sales rep's
    rights (accepting and declining), which are exactly the customer's."""

    name = name.strip()
    if not name:
        raise ValidationError({"name": [gettext("Type your name to sign the answer.")]})
    quote = (
        Quote.objects.select_for_update(of=("self",))
        .select_related("current_revision")
        .get(token=token)
    )
    action = Action.ACCEPT if accept else Action.DECLINE
    previous, new = _answer(quote, action, role=Role.SALES_REP, today=today or timezone.localdate())
    event = event_record(
        quote,
        QuoteEventKind.CUSTOMER_ANSWER,
        from_status=previous,
        to_status=new,
        actor_name=name[:120],
        reason=reason.strip()[:2000],
    )
    outbox_job_enqueue(task=NOTIFY_QUOTE_ANSWER_TASK, args=[event.pk])
    return quote


def quote_expire_due(*, today: dt.date | None = None) -> list[int]:
    """Expire every draft or sent quote past its validity; returns their ids. Idempotent: a
    second run finds nothing left to expire."""
    today = today or timezone.localdate()
    due = Quote.objects.filter(
        status__in=[QuoteStatus.DRAFT, QuoteStatus.SENT], current_revision__valid_until__lt=today
    ).values_list("pk", flat=True)
    expired = []
    for pk in list(due):
        with transaction.atomic():
            quote = (
                Quote.objects.select_for_update(of=("self",))
                .select_related("current_revision")
                .get(pk=pk)
            )
            revision = quote.revision
            context = QuoteContext(
                role=Role.SYSTEM,
                today=today,
                valid_until=revision.valid_until,
                line_count=0,
                effective_discount_pct=Decimal(0),
            )
            try:
                result = transition(quote.status, Action.EXPIRE, context=context)
            except TransitionError:
                continue  # changed since the query (answered, revised): nothing to do
            previous, quote.status = quote.status, result.status
            quote.save(update_fields=["status", "updated_at"])
            event_record(
                quote,
                QuoteEventKind.STATUS,
                from_status=previous,
                to_status=quote.status,
                reason=gettext("validity ended"),
            )
            expired.append(pk)
    return expired
