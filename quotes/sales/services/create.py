"""Creating sales quotes: by hand, from a stored wizard result, from a customer's request."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from engine.advice.codec import encode
from engine.build.builder import BuiltOption
from engine.commerce.pricing import LineKind, Recurrence
from engine.commerce.workflow import validity_end
from engine.money import round_money
from gpuquote.core.countries import country_code_normalize
from gpuquote.core.formatting import number_localized
from gpuquote.core.roles import user_role
from quotes.advice.presenters import (
    job_dict,
    localized_text,
    option_to_dict,
    recommendation_to_dict,
    sizing_to_dict,
    tco_to_dict,
)
from quotes.advice.result import AdviceResult
from quotes.advice.store import result_from_json
from quotes.models import (
    Partner,
    Quote,
    QuoteEventKind,
    QuoteOrigin,
    QuoteRequest,
    QuoteRequestStatus,
    QuoteRevision,
    WizardResult,
)
from quotes.sales.request_summary import managed_contract
from quotes.sales.services.common import (
    LineInput,
    conversion_recorded,
    event_record,
    lines_create,
    service_tier_line,
)
from quotes.sales.services.exchange import quote_rate_apply
from quotes.sales.services.numbering import quote_number_assign, unnumbered_placeholder


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
    quote = Quote(
        number=unnumbered_placeholder(),  # numbered last: see quote_number_assign
        year=now.year,
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
    quote_rate_apply(quote, on=today)  # no rate given: the ECB's of the day, dated
    # Fields are validated here; the table's constraints, unique fields and foreign keys are
    # checked by the database on insert (validating them in Python cost a query each: the
    # number is a random placeholder until numbered, the token is random, the partner was just
    # read).
    quote.full_clean(
        exclude=["current_revision", "partner", "request", "created_by"],
        validate_unique=False,
        validate_constraints=False,
    )
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
    lines_create(revision, lines)
    event_record(quote, QuoteEventKind.CREATED, user=user, to_status=quote.status)
    quote_number_assign(quote)  # last: the counter stays locked until the commit
    return quote


def _result_lines(advice: AdviceResult, option: BuiltOption, language: str) -> list[LineInput]:
    """On premises: the parts to buy. Managed hosting: the host's monthly fee and its setup
    for the contract the customer's horizon signs, the very figures of the result page; the
    host owns the hardware, so no part is sold."""
    servers = option.servers
    if advice.inputs.deployment == "managed":
        return _managed_lines(advice, option, language)
    rates = {rate.currency: rate for rate in advice.exchange_rates}
    ages = advice.price_ages
    return [
        conversion_recorded(
            LineInput(
                kind=LineKind.PART,
                sku=part.sku,
                description=part.name,
                quantity=Decimal(part.total_quantity(servers)),
                unit_price=part.unit_price.rounded().amount,
                role=part.role,
            ),
            None if part.sku not in ages else ages[part.sku].observed_in,
            option.totals.currency,
            rates,
        )
        for part in option.parts
    ]


def _managed_lines(advice: AdviceResult, option: BuiltOption, language: str) -> list[LineInput]:
    contract = managed_contract(advice, option)
    gpus = option.totals.gpus // option.servers
    gpu = option.gpu_line.name
    with translation.override(language):
        if contract.months:
            description = gettext(
                "Managed hosting of a server with %(gpus)s x %(gpu)s: %(months)s-month "
                "contract, %(discount)s %% term discount included"
            ) % {
                "gpus": gpus,
                "gpu": gpu,
                "months": contract.months,
                "discount": number_localized(
                    Decimal(format((contract.discount * 100).normalize(), "f"))
                ),
            }
        else:
            description = gettext(
                "Managed hosting of a server with %(gpus)s x %(gpu)s: no commitment"
            ) % {"gpus": gpus, "gpu": gpu}
        setup = gettext("Managed hosting setup, per server")
    lines = [
        LineInput(
            kind=LineKind.SERVICE,
            description=description,
            quantity=Decimal(option.servers),
            unit_price=contract.monthly.amount,
            recurrence=Recurrence.MONTHLY,
            role="managed_hosting",
            floor_unit_price=contract.floor.amount,
            cost_unit_price=round_money(contract.cost.total.amount),
        )
    ]
    tier = None if advice.tco is None else advice.tco.service_tier
    if tier is not None:  # listed even when the hosting fee includes it: the quote says so
        lines.append(service_tier_line(tier, servers=Decimal(option.servers), language=language))
    if contract.setup.amount:
        lines.append(
            LineInput(
                kind=LineKind.SERVICE,
                description=setup,
                quantity=Decimal(option.servers),
                unit_price=contract.setup.amount,
                role="managed_setup",
            )
        )
    return lines


def _contract_months(advice: AdviceResult, option: BuiltOption) -> int:
    """How long the quote's monthly lines run: the managed contract's term, else the horizon."""
    horizon = max(1, min(120, advice.inputs.horizon_years * 12))
    if advice.inputs.deployment == "managed":
        return managed_contract(advice, option).months or horizon
    return horizon


def _result_snapshot(
    result: WizardResult, advice: AdviceResult, option: BuiltOption
) -> dict[str, Any]:
    """What the quote keeps of the result, in the quote's language (its document's words)."""
    with translation.override(result.language):
        return {
            "source": "wizard_result",
            "result_token": result.token,
            "language": result.language,
            "inputs": encode(advice.inputs),
            "model": encode(advice.model),
            "chosen_tier": str(option.tier),
            "option": option_to_dict(option, advice.price_ages),
            "sizing": sizing_to_dict(advice.sizing),
            "tco": None if advice.tco is None else tco_to_dict(advice.tco) | job_dict(advice),
            "tco_result": encode(advice.tco),  # the engine's own, for the quote's document
            "recommendation": recommendation_to_dict(advice.recommendation, render=localized_text),
        }


def quote_create_from_result(
    *,
    user: Any,
    result: WizardResult,
    customer: dict[str, Any],
    origin: str,
    advice: AdviceResult | None = None,
    request: QuoteRequest | None = None,
    partner: Partner | None = None,
    today: dt.date | None = None,
) -> Quote:
    """A quote of a stored wizard result: its chosen configuration's parts at the stored
    prices, plus a managed-hosting monthly line when the customer chose managed hosting.
    ``customer``: company, contact_name, email, country, and optionally vat_number, is_business.
    ``advice``: the result the stored one was just made from (saves decoding it).
    Call inside a transaction."""
    if advice is None:
        advice = result_from_json(result.result)
    option = None if advice is None else advice.chosen
    if advice is None or option is None:
        raise ValidationError(
            gettext("The customer's result has no configuration to quote; create one by hand.")
        )
    inputs = advice.inputs
    return quote_create(
        user=user,
        origin=origin,
        **customer,
        language=result.language,
        currency=inputs.currency,
        snapshot=_result_snapshot(result, advice, option),
        request=request,
        partner=partner,
        lines=_result_lines(advice, option, result.language),
        contract_months=_contract_months(advice, option),
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
            "vat_number": locked.vat_number,  # decides the reverse charge
            "is_business": True,
        },
        origin=QuoteOrigin.WIZARD,
        request=locked,
        today=today,
    )
    locked.status = QuoteRequestStatus.HANDLED
    locked.save(update_fields=["status"])
    return quote
