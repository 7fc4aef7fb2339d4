"""What a quote request asks for, in one line for the sales team: the configuration the
customer's stored wizard result chose and its price as the result page showed it.

Read from the request's stored result, so the dashboard and the staff e-mail show the figures
the customer saw, whatever the catalog says today. ``managed_contract`` is also the fee the quote
made from the request bills (``quotes.sales.services.create``): one figure everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from engine.advice.pipeline import tco_configuration
from engine.build.builder import BuiltOption
from engine.commerce.service_tiers import monthly_with_service
from engine.tco import TermFee
from quotes.advice.result import AdviceResult
from quotes.advice.selectors import managed_offer_get
from quotes.advice.store import result_from_json
from quotes.models import QuoteRequest, QuoteRequestStatus


@dataclass(frozen=True, slots=True)
class RequestSummary:
    """The chosen option of a request's result. ``managed_monthly`` (all servers, per month) is
    set when the customer chose managed hosting: that fee, not the purchase, is what they asked
    about; ``months`` is its contract length (0: no commitment)."""

    gpu: str
    gpus_per_server: int
    servers: int
    currency: str
    purchase: Decimal
    managed_monthly: Decimal | None = None
    months: int = 0

    @property
    def is_managed(self) -> bool:
        return self.managed_monthly is not None


def managed_contract(advice: AdviceResult, option: BuiltOption) -> TermFee:
    """The host's fee for ``option`` over the contract the customer's horizon signs, as the
    result computed it (computed again only for a result stored before the host's price model,
    with the same assumptions)."""
    inputs = advice.inputs
    offer = advice.managed_offers.get(option.tier)
    if offer is None:
        offer = managed_offer_get(
            configuration=tco_configuration(option),
            region=inputs.region,
            currency=inputs.currency,
            overrides={name: Decimal(value) for name, value in inputs.overrides.items()},
        )
    return offer.term(inputs.horizon_years * 12)


def quote_request_summary_get(*, quote_request: QuoteRequest) -> RequestSummary | None:
    """The request's configuration and amount (the managed-hosting fee when the customer chose
    managed hosting and the result stored it, else the purchase price); None when its result has
    no configuration (or was stored by an earlier schema)."""
    advice = result_from_json(quote_request.result.result)
    option = None if advice is None else advice.chosen
    if advice is None or option is None:
        return None
    # Only the fee the result stored (every result since the host's price model): computing it
    # again would read the regional assumptions once per request listed.
    offer = advice.managed_offers.get(option.tier)
    managed = None
    tier = None if advice.tco is None else advice.tco.service_tier
    if advice.inputs.deployment == "managed" and offer is not None:
        managed = offer.term(advice.inputs.horizon_years * 12)
    return RequestSummary(
        gpu=option.gpu_line.name,
        gpus_per_server=option.totals.gpus // max(option.servers, 1),
        servers=option.servers,
        currency=advice.inputs.currency,
        purchase=option.totals.price.amount,
        managed_monthly=None
        if managed is None
        else monthly_with_service(managed.monthly, tier).amount * option.servers,
        months=0 if managed is None else managed.months,
    )


def quote_requests_new_summaries(
    *, limit: int = 20
) -> list[tuple[QuoteRequest, RequestSummary | None]]:
    """The dashboard's new requests, newest first, each with its summary: one query."""
    requests = (
        QuoteRequest.objects.filter(status=QuoteRequestStatus.NEW)
        .select_related("result")
        .order_by("-created_at")[:limit]
    )
    return [(item, quote_request_summary_get(quote_request=item)) for item in requests]
