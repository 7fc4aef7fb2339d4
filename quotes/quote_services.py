"""Writes for sales quotes: numbering, lines with frozen prices, revisions, the workflow, e-mail.

Every status change goes through ``engine.workflow.transition``; the role comes from
``quotes.roles.user_role`` (the user's sales group; a superuser is a manager). Each service
runs in one transaction and locks the quote row (``select_for_update``) before reading what it
changes, so two staff members clicking at once serialise instead of overwriting each other.

Prices are frozen: a line copies the catalog's current price when it is added, and nothing
changes it afterwards; ``quote_reprice`` copies today's prices into a new revision instead.
E-mails go out from Celery tasks queued after commit through the outbox (``quotes.outbox``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext

from catalog.models import Part, PriceKind
from catalog.selectors import current_price_get
from engine.money import CURRENCIES, round_money
from engine.numbering import quote_number
from engine.pricing import PricingError, QuoteTotals
from engine.workflow import (
    Action,
    QuoteContext,
    QuoteStatus,
    Role,
    TransitionError,
    context_for,
    transition,
    validity_end,
)
from gpuquote.core.countries import country_code_normalize
from gpuquote.core.outbox import outbox_job_enqueue
from gpuquote.core.text import single_line
from quotes.models import (
    LineKindChoices,
    Partner,
    Quote,
    QuoteCounter,
    QuoteEvent,
    QuoteEventKind,
    QuoteLine,
    QuoteOrigin,
    QuoteRequest,
    QuoteRequestStatus,
    QuoteRevision,
    RecurrenceChoices,
    WizardResult,
)
from quotes.quote_selectors import (
    approval_threshold_pct,
    quote_server_review_get,
    revision_lines_get,
    revision_totals_get,
)
from quotes.roles import MANAGER_GROUP as MANAGER_GROUP  # re-exported: older callers
from quotes.roles import REP_GROUP as REP_GROUP
from quotes.roles import user_role
from quotes.signals import quote_status_changed

User = AbstractBaseUser | AnonymousUser
# The Celery tasks these services queue, by name (``quotes.tasks`` registers them and imports
# this module: naming them keeps the import one way).
SEND_QUOTE_EMAIL_TASK = "quotes.send_quote_email"
NOTIFY_QUOTE_ANSWER_TASK = "quotes.notify_quote_answer"


def _refused(error: TransitionError | PricingError) -> ValidationError:
    return ValidationError(error.message.render(gettext))


# --- Numbering ------------------------------------------------------------------------------------


def quote_sequence_next(*, year: int) -> int:
    """The next sequence number of ``year``: the year's counter row is locked until the caller's
    transaction ends, so concurrent creations queue and every number is handed out once."""
    with transaction.atomic():
        counter, _created = QuoteCounter.objects.select_for_update().get_or_create(year=year)
        QuoteCounter.objects.filter(pk=counter.pk).update(last=F("last") + 1)
        counter.refresh_from_db(fields=["last"])
        return counter.last


# --- Creating quotes ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineInput:
    """A line to add, its price already decided (copied from a snapshot or the catalog)."""

    kind: str
    description: str
    quantity: Decimal
    unit_price: Decimal
    recurrence: str = RecurrenceChoices.ONE_OFF
    sku: str = ""
    discount_pct: Decimal = Decimal(0)
    exchange_rate: Decimal | None = None
    source_currency: str = ""
    role: str = ""  # the builder's "boot" / "data" for drives


def _event(
    quote: Quote,
    kind: str,
    *,
    user: Any = None,
    revision: QuoteRevision | None = None,
    from_status: str = "",
    to_status: str = "",
    actor_name: str = "",
    reason: str = "",
    data: dict[str, Any] | None = None,
) -> QuoteEvent:
    if from_status and to_status and from_status != to_status:
        # Every status change is recorded here: announce it (the quote's API partner is told
        # through its webhooks, ``quotes.webhook_relay``).
        quote_status_changed.send(
            sender=Quote, quote=quote, from_status=from_status, to_status=to_status
        )
    return QuoteEvent.objects.create(
        quote=quote,
        revision=revision or quote.current_revision,
        kind=kind,
        from_status=from_status,
        to_status=to_status,
        actor=user if getattr(user, "is_authenticated", False) else None,
        actor_name=actor_name,
        reason=reason,
        data=data or {},
    )


def _lines_create(revision: QuoteRevision, lines: Sequence[LineInput], start: int = 1) -> None:
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=revision,
            position=start + offset,
            kind=line.kind,
            sku=line.sku,
            description=line.description[:300],
            quantity=line.quantity,
            unit_price=line.unit_price,
            currency=revision.quote.currency,
            discount_pct=line.discount_pct,
            recurrence=line.recurrence,
            exchange_rate=line.exchange_rate,
            source_currency=line.source_currency,
            role=line.role,
        )
        for offset, line in enumerate(lines)
    )


@transaction.atomic
def quote_create(
    *,
    user: Any,
    origin: str,
    company: str,
    contact_name: str,
    email: str,
    country: str,
    vat_number: str = "",
    is_business: bool = True,
    language: str = "en",
    currency: str = "EUR",
    exchange_rate: Decimal | None = None,
    snapshot: dict[str, Any] | None = None,
    request: QuoteRequest | None = None,
    partner: Partner | None = None,
    lines: Sequence[LineInput] = (),
    contract_months: int = 12,
    today: dt.date | None = None,
) -> Quote:
    """A new quote numbered ``Q-<year>-<sequence>`` with its first revision (A), in draft.
    ``partner_api`` quotes have a partner and no staff user."""
    if origin != QuoteOrigin.PARTNER_API:
        user_role(user)
    now = timezone.now()
    today = today or timezone.localdate()
    year = now.year
    sequence = quote_sequence_next(year=year)
    quote = Quote(
        number=quote_number(year, sequence),
        year=year,
        sequence=sequence,
        origin=origin,
        company=company.strip(),
        contact_name=contact_name.strip(),
        email=email.strip(),
        country=country_code_normalize(country),
        vat_number=vat_number.replace(" ", "").upper(),
        is_business=is_business,
        language=language,
        currency=currency,
        exchange_rate=exchange_rate,
        snapshot=snapshot or {},
        request=request,
        partner=partner,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    # Fields are validated here; the table constraints are checked by the database on insert
    # (validating them in Python costs one query each, a quarter of a quote's creation time).
    quote.full_clean(exclude=["current_revision"], validate_constraints=False)
    quote.save()
    revision = QuoteRevision.objects.create(
        quote=quote,
        index=0,
        contract_months=contract_months,
        valid_until=validity_end(today, settings.QUOTE_VALIDITY_DAYS),
        created_by=quote.created_by,
    )
    quote.current_revision = revision
    quote.save(update_fields=["current_revision"])
    _lines_create(revision, lines)
    _event(quote, QuoteEventKind.CREATED, user=user, to_status=quote.status)
    return quote


def _wizard_option(data: dict[str, Any], texts: dict[str, Any]) -> dict[str, Any] | None:
    options = texts["build"]["options"]
    return next((o for o in options if o["tier"] == data["chosen_tier"]), None)


def quote_create_from_result(
    *,
    user: Any,
    result: WizardResult,
    customer: dict[str, Any],
    origin: str,
    request: QuoteRequest | None = None,
    partner: Partner | None = None,
    today: dt.date | None = None,
) -> Quote:
    """A quote of a stored wizard result: its chosen configuration's parts at the stored
    prices, plus a managed-hosting monthly line when the customer chose managed hosting.
    ``customer``: company, contact_name, email, country, and optionally vat_number, is_business.
    Call inside a transaction."""
    from quotes.wizard_services import result_texts

    data = result.result
    inputs = data["inputs"]
    texts = result_texts(result)
    option = _wizard_option(data, texts)
    if option is None:
        raise ValidationError(
            gettext("The customer's result has no configuration to quote; create one by hand.")
        )
    servers = option["servers"]
    lines = [
        LineInput(
            kind=LineKindChoices.PART,
            sku=part["sku"],
            description=part["name"],
            quantity=Decimal(part["quantity"] * servers),
            unit_price=Decimal(part["unit_price"]),
            role=part.get("role", ""),
        )
        for part in option["parts"]
    ]
    managed = option["totals"].get("managed_monthly_price")
    if inputs.get("deployment") == "managed" and managed:
        with translation.override(result.language):
            description = gettext("Managed hosting of %(servers)s server(s), per month") % {
                "servers": servers
            }
        lines.append(
            LineInput(
                kind=LineKindChoices.SERVICE,
                description=description,
                quantity=Decimal(1),
                unit_price=Decimal(managed),
                recurrence=RecurrenceChoices.MONTHLY,
            )
        )
    snapshot = {
        "source": "wizard_result",
        "result_token": result.token,
        "language": result.language,
        "inputs": inputs,
        "model": data["model"],
        "chosen_tier": data["chosen_tier"],
        "option": option,
        "sizing": texts["sizing"],
        "tco": texts["tco"],
    }
    return quote_create(
        user=user,
        origin=origin,
        **customer,
        language=result.language,
        currency=inputs["currency"],
        snapshot=snapshot,
        request=request,
        partner=partner,
        lines=lines,
        contract_months=max(1, min(120, int(inputs.get("horizon_years") or 1) * 12)),
        today=today,
    )


@transaction.atomic
def quote_create_from_request(
    *, user: Any, quote_request: QuoteRequest, today: dt.date | None = None
) -> Quote:
    """One click: the request's wizard result as a quote. Clicking twice gives the same quote."""
    user_role(user)
    locked = (
        QuoteRequest.objects.select_for_update(of=("self",))
        .select_related("result")
        .get(pk=quote_request.pk)
    )
    existing = locked.quotes.order_by("id").first()
    if existing is not None:
        return existing
    quote = quote_create_from_result(
        user=user,
        result=locked.result,
        customer={
            "company": locked.company,
            "contact_name": locked.name,
            "email": locked.email,
            "country": locked.country.code,
            "is_business": True,
        },
        origin=QuoteOrigin.WIZARD,
        request=locked,
        today=today,
    )
    locked.status = QuoteRequestStatus.HANDLED
    locked.save(update_fields=["status"])
    return quote


# --- Editing: a draft changes in place; a sent quote gets a new revision ---------------------


def _lock(quote: Quote) -> Quote:
    return (
        Quote.objects.select_for_update(of=("self",))
        .select_related("current_revision")
        .get(pk=quote.pk)
    )


def _context(
    quote: Quote, role: Role, today: dt.date, totals: QuoteTotals | None = None
) -> QuoteContext:
    revision = quote.current_revision
    if totals is None:
        try:
            totals = revision_totals_get(quote=quote, revision=revision)
        except PricingError as error:
            raise _refused(error) from error
    return context_for(
        totals,
        role=role,
        today=today,
        valid_until=revision.valid_until,
        approval_threshold_pct=approval_threshold_pct(),
        approved_discount_pct=revision.approved_discount_pct,
    )


def _revision_next(
    quote: Quote, *, user: Any, today: dt.date, reason: str, reprice: bool = False
) -> QuoteRevision:
    """Revision n + 1 as a copy of the current one (lines, discount, terms), new validity."""
    old = quote.current_revision
    new = QuoteRevision.objects.create(
        quote=quote,
        index=old.index + 1,
        discount_pct=old.discount_pct,
        contract_months=old.contract_months,
        valid_until=validity_end(today, settings.QUOTE_VALIDITY_DAYS),
        notes=old.notes,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    copies = [
        _repriced(quote, line) if reprice else _line_input(line)
        for line in revision_lines_get(revision=old)
    ]
    _lines_create(new, copies)
    quote.current_revision = new
    quote.save(update_fields=["current_revision", "status", "updated_at"])
    _event(
        quote,
        QuoteEventKind.REVISED,
        user=user,
        revision=new,
        reason=reason,
        data={"from": old.label, "to": new.label},
    )
    return new


def _line_input(line: QuoteLine) -> LineInput:
    return LineInput(
        kind=line.kind,
        description=line.description,
        quantity=line.quantity,
        unit_price=line.unit_price,
        recurrence=line.recurrence,
        sku=line.sku,
        discount_pct=line.discount_pct,
        exchange_rate=line.exchange_rate,
        source_currency=line.source_currency,
        role=line.role,
    )


def _editable(quote: Quote, *, user: Any, today: dt.date, reason: str) -> QuoteRevision:
    """The revision edits go to: the current draft, or a new revision of a sent, declined or
    expired quote (``revise``). Accepted quotes are final."""
    role = user_role(user)
    if quote.status == QuoteStatus.DRAFT:
        return quote.current_revision
    try:
        result = transition(quote.status, Action.REVISE, context=_context(quote, role, today))
    except TransitionError as error:
        raise _refused(error) from error
    previous = quote.status
    quote.status = result.status
    revision = _revision_next(quote, user=user, today=today, reason=reason)
    _event(
        quote,
        QuoteEventKind.STATUS,
        user=user,
        from_status=previous,
        to_status=quote.status,
        reason=reason,
    )
    return revision


def _catalog_price(quote: Quote, part: Part) -> LineInput:
    """The part's current purchase price in the quote's currency, converted from the other
    currency at the quote's recorded rate when the catalog has no price in it."""
    price = current_price_get(part=part, currency=quote.currency, price_kind=PriceKind.PURCHASE)
    description = str(part)
    if price is not None:
        return LineInput(
            kind=LineKindChoices.PART,
            sku=part.sku,
            description=description,
            quantity=Decimal(1),
            unit_price=price.amount,
        )
    for other in CURRENCIES:
        if other == quote.currency or quote.exchange_rate is None:
            continue
        price = current_price_get(part=part, currency=other, price_kind=PriceKind.PURCHASE)
        if price is not None:
            return LineInput(
                kind=LineKindChoices.PART,
                sku=part.sku,
                description=description,
                quantity=Decimal(1),
                unit_price=round_money(price.amount * quote.exchange_rate),
                exchange_rate=quote.exchange_rate,
                source_currency=other,
            )
    raise ValidationError(
        gettext("%(sku)s has no current price in %(currency)s.")
        % {"sku": part.sku, "currency": quote.currency}
    )


def _repriced(quote: Quote, line: QuoteLine) -> LineInput:
    kept = _line_input(line)
    if line.kind != LineKindChoices.PART or not line.sku:
        return kept
    part = Part.objects.filter(sku=line.sku).first()
    if part is None:
        return kept
    try:
        fresh = _catalog_price(quote, part)
    except ValidationError:
        return kept
    return replace(
        kept,
        unit_price=fresh.unit_price,
        exchange_rate=fresh.exchange_rate,
        source_currency=fresh.source_currency,
    )


@transaction.atomic
def quote_line_add_part(
    *,
    user: Any,
    quote: Quote,
    sku: str,
    quantity: Decimal,
    discount_pct: Decimal = Decimal(0),
    today: dt.date | None = None,
) -> QuoteLine:
    """Add a catalog part at its current price, frozen from now on."""
    quote = _lock(quote)
    part = Part.objects.filter(sku=sku.strip()).first()
    if part is None:
        raise ValidationError({"sku": [gettext("No catalog part has this SKU.")]})
    priced = _catalog_price(quote, part)
    line = LineInput(
        kind=priced.kind,
        sku=priced.sku,
        description=priced.description,
        quantity=quantity,
        unit_price=priced.unit_price,
        discount_pct=discount_pct,
        exchange_rate=priced.exchange_rate,
        source_currency=priced.source_currency,
    )
    return _line_add(quote, line, user=user, today=today)


@transaction.atomic
def quote_line_add(
    *, user: Any, quote: Quote, line: LineInput, today: dt.date | None = None
) -> QuoteLine:
    """Add a line priced by hand (a service, installation, managed hosting...)."""
    return _line_add(_lock(quote), line, user=user, today=today)


def _line_add(quote: Quote, line: LineInput, *, user: Any, today: dt.date | None) -> QuoteLine:
    revision = _editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line added")
    )
    last = revision.lines.order_by("-position").values_list("position", flat=True).first() or 0
    _lines_create(revision, [line], start=last + 1)
    _check_prices(quote, revision)
    _event(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("line added"),
        data={"sku": line.sku, "description": line.description, "quantity": str(line.quantity)},
    )
    return revision.lines.get(position=last + 1)


def _check_prices(quote: Quote, revision: QuoteRevision) -> None:
    """The edited revision must still price; otherwise the transaction rolls back."""
    try:
        revision_totals_get(quote=quote, revision=revision)
    except PricingError as error:
        raise _refused(error) from error


@transaction.atomic
def quote_line_update(
    *,
    user: Any,
    quote: Quote,
    position: int,
    quantity: Decimal,
    discount_pct: Decimal,
    today: dt.date | None = None,
) -> QuoteRevision:
    """Change a line's quantity or discount (its unit price stays frozen)."""
    quote = _lock(quote)
    revision = _editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line changed")
    )
    updated = revision.lines.filter(position=position).update(
        quantity=quantity, discount_pct=discount_pct
    )
    if not updated:
        raise ValidationError(gettext("The quote has no such line."))
    _check_prices(quote, revision)
    _event(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("line changed"),
        data={"position": position, "quantity": str(quantity), "discount_pct": str(discount_pct)},
    )
    return revision


@transaction.atomic
def quote_line_remove(
    *, user: Any, quote: Quote, position: int, today: dt.date | None = None
) -> QuoteRevision:
    quote = _lock(quote)
    revision = _editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line removed")
    )
    deleted, _detail = revision.lines.filter(position=position).delete()
    if not deleted:
        raise ValidationError(gettext("The quote has no such line."))
    _event(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("line removed"),
        data={"position": position},
    )
    return revision


@transaction.atomic
def quote_terms_update(
    *,
    user: Any,
    quote: Quote,
    discount_pct: Decimal,
    valid_until: dt.date,
    contract_months: int,
    notes: str = "",
    today: dt.date | None = None,
) -> QuoteRevision:
    """The quote discount, validity, contract length and notes."""
    quote = _lock(quote)
    revision = _editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("terms changed")
    )
    changes = {
        "discount_pct": (str(revision.discount_pct), str(discount_pct)),
        "valid_until": (revision.valid_until.isoformat(), valid_until.isoformat()),
        "contract_months": (revision.contract_months, contract_months),
    }
    revision.discount_pct = discount_pct
    revision.valid_until = valid_until
    revision.contract_months = contract_months
    revision.notes = notes.strip()
    revision.full_clean(exclude=["quote", "approved_by", "created_by"])
    revision.save()
    _check_prices(quote, revision)
    _event(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("terms changed"),
        data={name: list(pair) for name, pair in changes.items() if pair[0] != pair[1]},
    )
    return revision


@transaction.atomic
def quote_reprice(*, user: Any, quote: Quote, today: dt.date | None = None) -> QuoteRevision:
    """Today's catalog prices in a new revision; the current one keeps the prices it had."""
    quote = _lock(quote)
    today = today or timezone.localdate()
    role = user_role(user)
    previous = quote.status
    if previous != QuoteStatus.DRAFT:
        try:
            result = transition(previous, Action.REVISE, context=_context(quote, role, today))
        except TransitionError as error:
            raise _refused(error) from error
        quote.status = result.status
    revision = _revision_next(
        quote,
        user=user,
        today=today,
        reason=gettext("repriced to the current catalog"),
        reprice=True,
    )
    if previous != quote.status:
        _event(
            quote,
            QuoteEventKind.STATUS,
            user=user,
            from_status=previous,
            to_status=quote.status,
            reason=gettext("repriced to the current catalog"),
        )
    _check_prices(quote, revision)
    return revision


@transaction.atomic
def quote_customer_update(*, user: Any, quote: Quote, **fields: Any) -> Quote:
    """Customer details (they decide the VAT): only while the quote is a draft."""
    quote = _lock(quote)
    user_role(user)
    if quote.status != QuoteStatus.DRAFT:
        raise ValidationError(gettext("Revise the quote before changing the customer."))
    allowed = {"company", "contact_name", "email", "country", "vat_number", "is_business"}
    allowed |= {"language", "exchange_rate"}
    for name, value in fields.items():
        if name not in allowed:
            raise TypeError(name)
        setattr(quote, name, value)
    quote.country = country_code_normalize(quote.country.code)
    quote.vat_number = quote.vat_number.replace(" ", "").upper()
    quote.full_clean(exclude=["current_revision", "request", "created_by"])
    quote.save()
    _check_prices(quote, quote.current_revision)
    _event(quote, QuoteEventKind.EDITED, user=user, reason=gettext("customer changed"))
    return quote


# --- The workflow -----------------------------------------------------------------------------


@transaction.atomic
def quote_discount_approve(*, user: Any, quote: Quote, today: dt.date | None = None) -> Quote:
    """A sales manager approves the current effective discount."""
    quote = _lock(quote)
    today = today or timezone.localdate()
    context = _context(quote, user_role(user), today)
    try:
        result = transition(quote.status, Action.APPROVE_DISCOUNT, context=context)
    except TransitionError as error:
        raise _refused(error) from error
    revision = quote.current_revision
    revision.approved_discount_pct = result.approved_discount_pct
    revision.approved_by = user
    revision.approved_at = timezone.now()
    revision.save(update_fields=["approved_discount_pct", "approved_by", "approved_at"])
    _event(
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
    failures = [message.render(gettext) for message in review.failures]
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


@transaction.atomic
def quote_send(
    *,
    user: Any,
    quote: Quote,
    today: dt.date | None = None,
    failed_checks_acknowledged: bool = False,
) -> Quote:
    """Send the current revision: status ``sent``, then (after commit) the e-mail with the PDF.

    Servers that fail the builder's checks are sent only when the user acknowledged the
    failures; the sent event records them."""

    quote = _lock(quote)
    today = today or timezone.localdate()
    revision = quote.current_revision
    lines = revision_lines_get(revision=revision)
    try:
        totals = revision_totals_get(quote=quote, revision=revision, lines=lines)
    except PricingError as error:
        raise _refused(error) from error
    context = _context(quote, user_role(user), today, totals)
    try:
        result = transition(quote.status, Action.SEND, context=context)
    except TransitionError as error:
        raise _refused(error) from error
    failed = _failed_checks(quote, lines, acknowledged=failed_checks_acknowledged)
    previous, quote.status = quote.status, result.status
    quote.save(update_fields=["status", "updated_at"])
    revision.sent_at = timezone.now()
    revision.sent_totals = totals_to_dict(totals)
    revision.save(update_fields=["sent_at", "sent_totals"])
    _event(
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
        result = transition(quote.status, action, context=_context(quote, role, today))
    except TransitionError as error:
        raise _refused(error) from error
    previous, quote.status = quote.status, result.status
    quote.save(update_fields=["status", "updated_at"])
    return previous, quote.status


@transaction.atomic
def quote_answer_record(
    *, user: Any, quote: Quote, accept: bool, reason: str = "", today: dt.date | None = None
) -> Quote:
    """Staff record the customer's answer given by phone or mail."""
    quote = _lock(quote)
    action = Action.ACCEPT if accept else Action.DECLINE
    previous, new = _answer(
        quote, action, role=user_role(user), today=today or timezone.localdate()
    )
    _event(
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
    event = _event(
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
            revision = quote.current_revision
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
            _event(
                quote,
                QuoteEventKind.STATUS,
                from_status=previous,
                to_status=quote.status,
                reason=gettext("validity ended"),
            )
            expired.append(pk)
    return expired


# --- E-mail -------------------------------------------------------------------------------------


def quote_email_send(*, quote_id: int, revision_id: int) -> bool:
    """E-mail a sent revision's PDF to the customer, once: a second run (a retried task) finds
    the ``email_sent`` event and sends nothing. Returns whether a message went out."""
    from quotes.quote_pdf import quote_pdf_filename, quote_pdf_render

    with transaction.atomic():
        revision = (
            QuoteRevision.objects.select_for_update().select_related("quote").get(pk=revision_id)
        )
        quote = revision.quote
        if quote.pk != quote_id:
            raise ValueError("the revision belongs to another quote")
        already = QuoteEvent.objects.filter(
            quote=quote, revision=revision, kind=QuoteEventKind.EMAIL_SENT
        ).exists()
        if already:
            return False
        with translation.override(quote.language):
            document = quote_pdf_render(quote=quote, revision=revision)
            link = settings.SITE_URL.rstrip("/") + quote_public_url(quote)
            context = {"quote": quote, "revision": revision, "link": link}
            # One line whatever a stored name holds: a line break would be a BadHeaderError.
            subject = single_line(render_to_string("email/quote_subject.txt", context))
            body = render_to_string("email/quote_sent.txt", context)
            filename = quote_pdf_filename(quote=quote, revision=revision)
        message = EmailMessage(subject=subject, body=body, to=[quote.email])
        message.attach(filename, document, "application/pdf")
        message.send()
        _event(
            quote,
            QuoteEventKind.EMAIL_SENT,
            revision=revision,
            data={"to": quote.email, "attachment": filename},
        )
    return True


def quote_answer_notify(*, event_id: int) -> bool:
    """Tell the sales team (``SALES_NOTIFICATION_EMAIL``) what a customer answered, once: the
    answer's row is locked and a ``staff_notified`` event records the message, so a retried or
    duplicated task finds it and sends nothing. Returns whether a message went out."""
    with transaction.atomic():
        event = (
            QuoteEvent.objects.select_for_update(of=("self",))
            .select_related("quote")
            .filter(pk=event_id)
            .first()
        )
        if event is None:
            return False
        quote = event.quote
        already = QuoteEvent.objects.filter(
            quote=quote, kind=QuoteEventKind.STAFF_NOTIFIED, data__answer_event=event.pk
        ).exists()
        if already:
            return False
        context = {"quote": quote, "event": event, "accepted": event.to_status == "accepted"}
        subject = single_line(render_to_string("email/answer_subject.txt", context))
        body = render_to_string("email/answer_notification.txt", context)
        EmailMessage(subject=subject, body=body, to=[settings.SALES_NOTIFICATION_EMAIL]).send()
        _event(
            quote,
            QuoteEventKind.STAFF_NOTIFIED,
            revision=event.revision,
            data={"answer_event": event.pk, "to": settings.SALES_NOTIFICATION_EMAIL},
        )
    return True


def quote_public_url(quote: Quote) -> str:
    """The path of the customer's private link (the e-mail prefixes ``settings.SITE_URL``)."""
    from django.urls import reverse

    return reverse("wizard:staff:public", kwargs={"token": quote.token})
