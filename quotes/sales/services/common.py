"""What the sales services share (their internal API): the line input, the event record, the
quote lock, the workflow context, new revisions and the catalog prices lines are frozen at.

Every status change goes through ``engine.commerce.workflow.transition``; the role comes from
``gpuquote.core.roles.user_role`` (the user's sales group; a superuser is a manager). Each service
runs in one transaction and locks the quote row (``select_for_update``) before reading what it
changes, so two staff members clicking at once serialise instead of overwriting each other.

Prices are frozen: a line copies the catalog's current price when it is added, and nothing
changes it afterwards; ``quote_reprice`` copies today's prices into a new revision instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext

from catalog.models import Part, PriceKind
from catalog.selectors import current_price_get
from engine.commerce.exchange import DatedRate, rate_between, rate_rounded
from engine.commerce.pricing import LineKind, PricingError, QuoteTotals, Recurrence
from engine.commerce.service_tiers import ServiceTier
from engine.commerce.workflow import (
    Action,
    QuoteContext,
    QuoteStatus,
    Role,
    TransitionError,
    context_for,
    transition,
    validity_end,
)
from engine.money import CURRENCIES, Money, amount_between, round_money
from gpuquote.core.roles import user_role
from quotes.advice.presenters import localized_text
from quotes.models import Quote, QuoteEvent, QuoteEventKind, QuoteLine, QuoteRevision
from quotes.sales.selectors import (
    approval_threshold_pct,
    approved_discount_get,
    quote_rate_deviation_pct,
    rate_tolerance_pct,
    revision_lines_get,
    revision_totals_get,
    validity_max_days,
)
from quotes.signals import quote_status_changed

User = AbstractBaseUser | AnonymousUser
# The Celery tasks these services queue, by name (``quotes.tasks`` registers them and imports
# this package: naming them keeps the import one way).
SEND_QUOTE_EMAIL_TASK = "quotes.send_quote_email"
NOTIFY_QUOTE_ANSWER_TASK = "quotes.notify_quote_answer"
NOTIFY_APPROVAL_WAITING_TASK = "quotes.notify_approval_waiting"
NOTIFY_QUOTE_REQUEST_TASK = "quotes.notify_quote_request"  # queued by the wizard's services


def refused(error: TransitionError | PricingError) -> ValidationError:
    return ValidationError(localized_text(error.message))


@dataclass(frozen=True, slots=True)
class LineInput:
    """A line to add, its price already decided (copied from a snapshot or the catalog)."""

    kind: str
    description: str
    quantity: Decimal
    unit_price: Decimal
    recurrence: str = Recurrence.ONE_OFF
    sku: str = ""
    discount_pct: Decimal = Decimal(0)
    exchange_rate: Decimal | None = None
    source_currency: str = ""
    role: str = ""  # the builder's "boot" / "data" for drives
    floor_unit_price: Decimal | None = None  # the lowest unit price billed without a manager
    cost_unit_price: Decimal | None = None  # what one unit costs us, when known


def conversion_recorded(
    line: LineInput, observed_in: str | None, currency: str, rates: Mapping[str, DatedRate]
) -> LineInput:
    """A catalog line whose price was observed in another currency (and converted at ``rates``,
    as the configurations were) records that currency and the rate, shown beside the line."""
    if not observed_in or observed_in == currency:
        return line
    rate = rate_rounded(rate_between(observed_in, currency, rates))
    return replace(line, exchange_rate=rate, source_currency=observed_in)


def event_record(
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
        # through its webhooks, ``quotes.partners.relay``).
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


def lines_create(revision: QuoteRevision, lines: Sequence[LineInput], start: int = 1) -> None:
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
            floor_unit_price=line.floor_unit_price,
            cost_unit_price=line.cost_unit_price,
        )
        for offset, line in enumerate(lines)
    )


def quote_lock(quote: Quote) -> Quote:
    return (
        Quote.objects.select_for_update(of=("self",))
        .select_related("current_revision")
        .get(pk=quote.pk)
    )


def workflow_context(
    quote: Quote, role: Role, today: dt.date, totals: QuoteTotals | None = None
) -> QuoteContext:
    revision = quote.revision
    if totals is None:
        try:
            totals = revision_totals_get(quote=quote, revision=revision)
        except PricingError as error:
            raise refused(error) from error
    return context_for(
        totals,
        role=role,
        today=today,
        valid_until=revision.valid_until,
        approval_threshold_pct=approval_threshold_pct(),
        approved_discount_pct=approved_discount_get(quote=quote, revision=revision, totals=totals),
        rate_deviation_pct=quote_rate_deviation_pct(quote=quote, revision=revision),
        rate_tolerance_pct=rate_tolerance_pct(),
        validity_max_days=validity_max_days(),
    )


def line_input(line: QuoteLine) -> LineInput:
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
        floor_unit_price=line.floor_unit_price,
        cost_unit_price=line.cost_unit_price,
    )


def catalog_price(quote: Quote, part: Part) -> LineInput:
    """The part's current purchase price in the quote's currency, converted from the other
    currency at the quote's recorded rate when the catalog has no price in it."""
    price = current_price_get(part=part, currency=quote.currency, price_kind=PriceKind.PURCHASE)
    description = str(part)
    if price is not None:
        return LineInput(
            kind=LineKind.PART,
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
                kind=LineKind.PART,
                sku=part.sku,
                description=description,
                quantity=Decimal(1),
                unit_price=_converted(quote, Money(price.amount, other)),
                exchange_rate=quote.exchange_rate,
                source_currency=other,
            )
    raise ValidationError(
        gettext("%(sku)s has no current price in %(currency)s.")
        % {"sku": part.sku, "currency": quote.currency}
    )


def _converted(quote: Quote, price: Money) -> Decimal:
    """``price`` in the quote's currency. At a reference rate, through its rate per euro as
    published, as the configurations convert (so the quote's line and the customer's result
    page agree to the cent); a rate staff typed multiplies."""
    per_eur = quote.exchange_rate_per_eur
    if per_eur is None:
        return round_money(price.amount * (quote.exchange_rate or Decimal(1)))
    per_eur_of = {"EUR": Decimal(1), quote.exchange_rate_currency: per_eur}
    return round_money(amount_between(price.amount, price.currency, quote.currency, per_eur_of))


def line_repriced(quote: Quote, line: QuoteLine) -> LineInput:
    kept = line_input(line)
    if line.kind != LineKind.PART or not line.sku:
        return kept
    part = Part.objects.filter(sku=line.sku).first()
    if part is None:
        return kept
    try:
        fresh = catalog_price(quote, part)
    except ValidationError:
        return kept
    return replace(
        kept,
        unit_price=fresh.unit_price,
        exchange_rate=fresh.exchange_rate,
        source_currency=fresh.source_currency,
    )


def revision_next(
    quote: Quote, *, user: Any, today: dt.date, reason: str, reprice: bool = False
) -> QuoteRevision:
    """Revision n + 1 as a copy of the current one (lines, discount, terms), new validity."""
    old = quote.revision
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
        line_repriced(quote, line) if reprice else line_input(line)
        for line in revision_lines_get(revision=old)
    ]
    lines_create(new, copies)
    quote.current_revision = new
    quote.save(update_fields=["current_revision", "status", "updated_at"])
    event_record(
        quote,
        QuoteEventKind.REVISED,
        user=user,
        revision=new,
        reason=reason,
        data={"from": old.label, "to": new.label},
    )
    return new


def revision_editable(quote: Quote, *, user: Any, today: dt.date, reason: str) -> QuoteRevision:
    """The revision edits go to: the current draft, or a new revision of a sent, declined or
    expired quote (``revise``). Accepted quotes are final."""
    role = user_role(user)
    if quote.status == QuoteStatus.DRAFT:
        return quote.revision
    try:
        result = transition(
            quote.status, Action.REVISE, context=workflow_context(quote, role, today)
        )
    except TransitionError as error:
        raise refused(error) from error
    previous = quote.status
    quote.status = result.status
    revision = revision_next(quote, user=user, today=today, reason=reason)
    event_record(
        quote,
        QuoteEventKind.STATUS,
        user=user,
        from_status=previous,
        to_status=quote.status,
        reason=reason,
    )
    return revision


def prices_check(quote: Quote, revision: QuoteRevision) -> None:
    """The edited revision must still price; otherwise the transaction rolls back."""
    try:
        revision_totals_get(quote=quote, revision=revision)
    except PricingError as error:
        raise refused(error) from error


SERVICE_TIER_ROLE = "service_tier"


def service_tier_line(tier: ServiceTier, *, servers: Decimal, language: str) -> LineInput:
    """The quote line of a managed-hosting support level: per server and month, its code as
    the SKU (the quote's PDF finds what the host does under it by that code)."""
    with translation.override(language):
        description = gettext("Support: %(tier)s, per server") % {"tier": tier.name(language)}
    return LineInput(
        kind=LineKind.SERVICE,
        sku=tier.code,
        description=description,
        quantity=servers,
        unit_price=tier.monthly.amount,
        recurrence=Recurrence.MONTHLY,
        role=SERVICE_TIER_ROLE,
    )
