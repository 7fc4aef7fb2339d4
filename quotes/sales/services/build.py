"""A staff quote made from a workload: staff choose the job, the builder proposes servers.

``quote_workload_set`` stores the workload on the quote (its snapshot, in the shape the wizard
stores, so the server checks and the builder read both alike); ``quote_proposals_get`` runs the
builder on it against today's catalog; ``quote_option_apply`` puts one proposal's parts on the
quote, in place of the catalog parts it had, at the catalog prices of now (frozen from then on).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from catalog.selectors import catalog_snapshot_get, price_ages_get
from catalog.selectors.service_tiers import service_tier_get
from engine.advice.pipeline import Advice
from engine.build.builder import Environment, Tier
from engine.commerce.pricing import LineKind
from engine.workload import WorkloadError, workload_from_dict
from gpuquote.core.roles import user_role
from quotes.advice.presenters import service_tier_to_dict, text
from quotes.advice.selectors import advice_get
from quotes.models import Quote, QuoteEventKind
from quotes.sales.selectors import quote_workload_get
from quotes.sales.services.common import (
    SERVICE_TIER_ROLE,
    LineInput,
    conversion_recorded,
    event_record,
    line_input,
    lines_create,
    prices_check,
    quote_lock,
    revision_editable,
    service_tier_line,
)

WIZARD_SOURCE = "wizard_result"
STAFF_SOURCE = "staff_workload"


def _workload_errors(error: WorkloadError) -> ValidationError:
    return ValidationError(
        [
            f"{path}: {text(message)}"
            for path, messages in error.errors.items()
            for message in messages
        ]
    )


@transaction.atomic
def quote_workload_set(
    *,
    user: Any,
    quote: Quote,
    workload: dict[str, Any],
    environment: str,
    growth_gpus: int = 0,
) -> Quote:
    """The job the quote answers. A quote made from the customer's wizard result keeps the
    customer's workload (its TCO belongs to it)."""
    user_role(user)
    quote = quote_lock(quote)
    if quote.status == "accepted":
        raise ValidationError(gettext("An accepted quote is final."))
    if (quote.snapshot or {}).get("source") == WIZARD_SOURCE:
        raise ValidationError(
            gettext("This quote answers the customer's wizard result; its workload stays theirs.")
        )
    try:
        workload_from_dict(workload)
    except WorkloadError as error:
        raise _workload_errors(error) from error
    Environment(environment)  # the form offers only valid values
    quote.snapshot = {
        "source": STAFF_SOURCE,
        "inputs": {
            "workload": workload,
            "environment": environment,
            "growth_gpus": growth_gpus,
            "currency": quote.currency,
        },
    }
    quote.save(update_fields=["snapshot", "updated_at"])
    event_record(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        reason=gettext("workload chosen"),
        data={"workload": workload, "environment": environment},
    )
    return quote


def quote_proposals_get(*, quote: Quote) -> Advice | None:
    """The builder's options for the quote's workload against today's catalog (None: none)."""
    workload, environment = quote_workload_get(quote=quote)
    if workload is None:
        return None
    try:
        parsed = workload_from_dict(workload)
    except WorkloadError:
        return None
    inputs = quote.snapshot.get("inputs") or {}
    return advice_get(
        workload=parsed,
        environment=environment,
        currency=quote.currency,
        growth_gpus=int(inputs.get("growth_gpus") or 0),
    )


@transaction.atomic
def quote_option_apply(
    *, user: Any, quote: Quote, tier: str, today: dt.date | None = None
) -> Quote:
    """Replace the quote's catalog parts with the builder's ``tier`` option (services stay)."""
    quote = quote_lock(quote)
    advice = quote_proposals_get(quote=quote)
    option = None
    if advice is not None:
        option = next((o for o in advice.build.options if o.tier == Tier(tier)), None)
    if option is None:
        raise ValidationError(
            gettext("The builder has no %(tier)s option for this workload any more.")
            % {"tier": tier}
        )
    revision = revision_editable(
        quote,
        user=user,
        today=today or timezone.localdate(),
        reason=gettext("builder's configuration applied"),
    )
    kept = [line for line in revision.lines.order_by("position") if line.kind != "part"]
    revision.lines.all().delete()
    ages = price_ages_get(currency=quote.currency)
    rates = {r.currency: r for r in catalog_snapshot_get(currency=quote.currency).exchange_rates}
    parts = [
        conversion_recorded(
            LineInput(
                kind=LineKind.PART,
                sku=part.sku,
                description=part.name,
                quantity=Decimal(part.total_quantity(option.servers)),
                unit_price=part.unit_price.amount,
                role=part.role,
            ),
            None if part.sku not in ages else ages[part.sku].observed_in,
            quote.currency,
            rates,
        )
        for part in option.parts
    ]
    services = [line_input(line) for line in kept]
    lines_create(revision, [*parts, *services])
    prices_check(quote, revision)
    event_record(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        revision=revision,
        reason=gettext("builder's configuration applied"),
        data={"tier": str(option.tier), "servers": option.servers},
    )
    return quote


@transaction.atomic
def quote_service_tier_set(
    *, user: Any, quote: Quote, code: str, today: dt.date | None = None
) -> Quote:
    """The managed offer's support level the quote bills: its monthly line per server (the
    servers the hosting line bills), and what the host does under it, in the quote's language,
    kept with the quote for its PDF."""
    quote = quote_lock(quote)
    tier = service_tier_get(code=code, currency=quote.currency)
    if tier is None:
        raise ValidationError(gettext("This support level is not offered any more."))
    revision = revision_editable(
        quote,
        user=user,
        today=today or timezone.localdate(),
        reason=gettext("support level: %(tier)s") % {"tier": tier.name(quote.language)},
    )
    lines = list(revision.lines.order_by("position"))
    billed = [line for line in lines if line.role == SERVICE_TIER_ROLE]
    hosting = next((line for line in lines if line.role == "managed_hosting"), None)
    if not billed and hosting is None:
        raise ValidationError(
            gettext("Only a managed-hosting quote has a support level: add the hosting first.")
        )
    servers = (billed[0] if billed else hosting).quantity  # type: ignore[union-attr]
    kept = [line_input(line) for line in lines if line.role != SERVICE_TIER_ROLE]
    at = lines.index(billed[0]) if billed else len(kept)
    kept.insert(at, service_tier_line(tier, servers=servers, language=quote.language))
    revision.lines.all().delete()
    lines_create(revision, kept)
    with translation.override(quote.language):
        quote.snapshot = {**(quote.snapshot or {}), "service_tier": service_tier_to_dict(tier)}
    quote.save(update_fields=["snapshot", "updated_at"])
    event_record(
        quote,
        QuoteEventKind.EDITED,
        user=user,
        reason=gettext("support level: %(tier)s") % {"tier": tier.name(quote.language)},
        data={"service_tier": tier.code},
    )
    return quote
