"""Editing a quote: a draft changes in place; a sent quote gets a new revision."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext

from catalog.models import Part
from engine.commerce.workflow import Action, QuoteStatus, TransitionError, transition
from gpuquote.core.countries import country_code_normalize
from gpuquote.core.roles import user_role
from quotes.models import (
    Quote,
    QuoteEventKind,
    QuoteLine,
    QuoteRevision,
)
from quotes.sales.services.common import (
    LineInput,
    catalog_price,
    event_record,
    lines_create,
    prices_check,
    quote_lock,
    refused,
    revision_editable,
    revision_next,
    workflow_context,
)
from quotes.sales.services.exchange import quote_rate_apply


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
    quote = quote_lock(quote)
    part = Part.objects.filter(sku=sku.strip()).first()
    if part is None:
        raise ValidationError({"sku": [gettext("No catalog part has this SKU.")]})
    priced = catalog_price(quote, part)
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
    return _line_add(quote_lock(quote), line, user=user, today=today)


def _line_add(quote: Quote, line: LineInput, *, user: Any, today: dt.date | None) -> QuoteLine:
    revision = revision_editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line added")
    )
    last = revision.lines.order_by("-position").values_list("position", flat=True).first() or 0
    lines_create(revision, [line], start=last + 1)
    prices_check(quote, revision)
    event_record(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("line added"),
        data={"sku": line.sku, "description": line.description, "quantity": str(line.quantity)},
    )
    return revision.lines.get(position=last + 1)


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
    quote = quote_lock(quote)
    revision = revision_editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line changed")
    )
    updated = revision.lines.filter(position=position).update(
        quantity=quantity, discount_pct=discount_pct
    )
    if not updated:
        raise ValidationError(gettext("The quote has no such line."))
    prices_check(quote, revision)
    event_record(
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
    quote = quote_lock(quote)
    revision = revision_editable(
        quote, user=user, today=today or timezone.localdate(), reason=gettext("line removed")
    )
    deleted, _detail = revision.lines.filter(position=position).delete()
    if not deleted:
        raise ValidationError(gettext("The quote has no such line."))
    event_record(
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
    """The quote discount, validity, contract length and notes. A validity date in the past is
    refused; one beyond ``QUOTE_VALIDITY_MAX_DAYS`` needs a sales manager's approval
    (``engine.commerce.workflow.validity_needs_approval``)."""
    today = today or timezone.localdate()
    if valid_until < today:
        message = gettext("Valid until: %(date)s is in the past; choose today or a later day.")
        raise ValidationError({"valid_until": message % {"date": date_format(valid_until)}})
    quote = quote_lock(quote)
    revision = revision_editable(quote, user=user, today=today, reason=gettext("terms changed"))
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
    prices_check(quote, revision)
    event_record(
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
    quote = quote_lock(quote)
    today = today or timezone.localdate()
    role = user_role(user)
    previous = quote.status
    if previous != QuoteStatus.DRAFT:
        try:
            result = transition(
                previous, Action.REVISE, context=workflow_context(quote, role, today)
            )
        except TransitionError as error:
            raise refused(error) from error
        quote.status = result.status
    revision = revision_next(
        quote,
        user=user,
        today=today,
        reason=gettext("repriced to the current catalog"),
        reprice=True,
    )
    if previous != quote.status:
        event_record(
            quote,
            QuoteEventKind.STATUS,
            user=user,
            from_status=previous,
            to_status=quote.status,
            reason=gettext("repriced to the current catalog"),
        )
    prices_check(quote, revision)
    return revision


@transaction.atomic
def quote_customer_update(
    *, user: Any, quote: Quote, today: dt.date | None = None, **fields: Any
) -> Quote:
    """Customer details (they decide the VAT). A sent, declined or expired quote gets its next
    revision first, as for any edit: the document the customer received keeps its figures
    (``sent_totals``); an accepted quote is final."""
    quote = quote_lock(quote)
    user_role(user)
    if quote.status != QuoteStatus.DRAFT:
        reason = gettext("customer changed")
        revision_editable(quote, user=user, today=today or timezone.localdate(), reason=reason)
    allowed = {"company", "contact_name", "email", "country", "vat_number", "is_business"}
    allowed |= {"language", "exchange_rate"}
    rate_before = quote.exchange_rate
    for name, value in fields.items():
        if name not in allowed:
            raise TypeError(name)
        setattr(quote, name, value)
    if quote.exchange_rate != rate_before:  # typed by staff, or emptied: the ECB's again
        quote_rate_apply(quote, on=today or timezone.localdate())
    quote.country = country_code_normalize(quote.country.code)
    quote.vat_number = quote.vat_number.replace(" ", "").upper()
    quote.full_clean(exclude=["current_revision", "request", "created_by"])
    quote.save()
    prices_check(quote, quote.revision)
    event_record(quote, QuoteEventKind.EDITED, user=user, reason=gettext("customer changed"))
    return quote
