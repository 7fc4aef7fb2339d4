"""Quotes over the API: the request a partner sends and the quote it gets back.

The request carries what the wizard asks (a workload, production or experiment, hosting, region,
currency, horizon) and the end customer; ``quotes.partners.quotes`` runs the same computation
as the wizard and stores the quote with origin ``partner_api``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from engine.build.builder import Environment
from engine.commerce.numbering import display_number
from engine.commerce.pricing import LineKind, QuoteTotals, Recurrence
from engine.commerce.workflow import QuoteStatus
from gpuquote.api.fields import (
    BoundedDecimalField,
    BoundedIntegerField,
    CountryCodeField,
    SingleLineCharField,
)
from gpuquote.core.choices import values_of
from gpuquote.core.countries import vat_number_clean
from quotes.advice.inputs import (
    BUDGET_DECIMAL_PLACES,
    BUDGET_MAX_DIGITS,
    CURRENCIES,
    DEFAULT_CURRENCY,
    DEFAULT_HORIZON_YEARS,
    DEFAULT_LANGUAGE,
    DEFAULT_REGION,
    DEPLOYMENTS,
    GROWTH_GPUS_MAX,
    MAX_HORIZON_YEARS,
    MAX_UTILIZATION_PCT,
    MIN_HORIZON_YEARS,
    MIN_UTILIZATION_PCT,
    PARTNER_DEFAULT_DEPLOYMENT,
    PARTNER_DEFAULT_UPTIME,
    REGIONS,
    UPTIMES,
    language_codes,
)
from quotes.api.inputs import ServiceTierField
from quotes.api.workload import WorkloadJsonField
from quotes.models import Quote, QuoteEvent, QuoteLine
from quotes.sales.services import quote_public_url, totals_to_dict


class CustomerInput(serializers.Serializer):
    company = SingleLineCharField(max_length=160)
    contact_name = SingleLineCharField(max_length=120)
    email = serializers.EmailField(max_length=254)
    country = CountryCodeField()
    vat_number = SingleLineCharField(
        max_length=20,
        required=False,
        allow_blank=True,
        help_text="A member state's VAT number (its prefix, right check digits) for the reverse "
        "charge; outside the EU kept as given.",
    )
    is_business = serializers.BooleanField(default=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("vat_number"):
            attrs["vat_number"] = vat_number_clean(attrs["vat_number"], attrs["country"])
        return attrs


# The wizard's four steps in one, with the wizard's answers and bounds (``advice.inputs``). The
# docstring is the published description of the request (kept word for word: the contract grows).
@extend_schema_serializer(component_name="QuoteCreateSchema")
class QuoteCreateInput(serializers.Serializer):
    """For the documentation: the workload's own fields, as the sizing endpoint documents them."""

    customer = CustomerInput()
    workload = WorkloadJsonField()  # as in POST /api/v1/sizing/, kept as given
    environment = serializers.ChoiceField(choices=[e.value for e in Environment])
    deployment = serializers.ChoiceField(
        choices=list(DEPLOYMENTS),
        default=PARTNER_DEFAULT_DEPLOYMENT,
        help_text="managed: the quote adds the monthly managed-hosting line.",
    )
    uptime = serializers.ChoiceField(choices=list(UPTIMES), default=PARTNER_DEFAULT_UPTIME)
    service_tier = ServiceTierField(
        help_text="With deployment managed: the service tier the quote bills (a code from GET "
        "/api/v1/service-tiers/), listed with what the host does; without it, the default tier."
    )
    growth_gpus = BoundedIntegerField(min_value=0, max_value=GROWTH_GPUS_MAX, default=0)
    region = serializers.ChoiceField(choices=list(REGIONS), default=DEFAULT_REGION)
    currency = serializers.ChoiceField(choices=list(CURRENCIES), default=DEFAULT_CURRENCY)
    horizon_years = BoundedIntegerField(
        min_value=MIN_HORIZON_YEARS, max_value=MAX_HORIZON_YEARS, default=DEFAULT_HORIZON_YEARS
    )
    utilization_pct = BoundedDecimalField(
        max_digits=5,
        decimal_places=2,
        min_value=MIN_UTILIZATION_PCT,
        max_value=MAX_UTILIZATION_PCT,
        required=False,
        help_text="Share of the time the GPUs are busy, for the TCO (percent). Without it, the "
        "uptime suggests one, as in the wizard: always_on 70, flexible 50, business_hours 30.",
    )
    budget = BoundedDecimalField(
        max_digits=BUDGET_MAX_DIGITS,
        decimal_places=BUDGET_DECIMAL_PLACES,
        min_value=Decimal(0),
        required=False,
        allow_null=True,
    )
    language = serializers.ChoiceField(choices=language_codes(), default=DEFAULT_LANGUAGE)


class QuoteListFilter(serializers.Serializer):
    status = serializers.ChoiceField(choices=values_of(QuoteStatus), required=False)
    created_after = serializers.DateField(required=False, help_text="On or after (YYYY-MM-DD).")
    created_before = serializers.DateField(required=False, help_text="On or before.")


# --- Output ---------------------------------------------------------------------------------


class QuoteCustomerSchema(serializers.Serializer):
    company = serializers.CharField()
    contact_name = serializers.CharField()
    email = serializers.EmailField()
    country = serializers.CharField()
    vat_number = serializers.CharField(allow_blank=True)
    is_business = serializers.BooleanField()


class QuoteLineSchema(serializers.Serializer):
    position = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=values_of(LineKind))
    sku = serializers.CharField(allow_blank=True)
    description = serializers.CharField()
    quantity = serializers.DecimalField(max_digits=12, decimal_places=2)
    unit_price = serializers.DecimalField(max_digits=14, decimal_places=2)
    discount_pct = serializers.DecimalField(max_digits=5, decimal_places=2)
    recurrence = serializers.ChoiceField(choices=values_of(Recurrence))
    role = serializers.CharField(
        allow_blank=True,
        help_text="What the line is for: a part's role (gpu, cpu, chassis...), managed_hosting, "
        "service_tier (the support level), managed_setup; empty for a line added by hand.",
    )


class QuoteAmountsSchema(serializers.Serializer):
    gross = serializers.DecimalField(max_digits=16, decimal_places=2)
    line_discounts = serializers.DecimalField(max_digits=16, decimal_places=2)
    lines_net = serializers.DecimalField(max_digits=16, decimal_places=2)
    quote_discount = serializers.DecimalField(max_digits=16, decimal_places=2)
    net = serializers.DecimalField(max_digits=16, decimal_places=2)
    vat = serializers.DecimalField(max_digits=16, decimal_places=2)
    total = serializers.DecimalField(max_digits=16, decimal_places=2)


class QuoteTotalsSchema(serializers.Serializer):
    currency = serializers.CharField()
    one_off = QuoteAmountsSchema()
    monthly = QuoteAmountsSchema(help_text="Per month.")
    first_invoice = QuoteAmountsSchema(help_text="One-off plus the first month.")
    contract = QuoteAmountsSchema(help_text="One-off plus contract_months x monthly.")
    contract_months = serializers.IntegerField()
    effective_discount_pct = serializers.DecimalField(max_digits=6, decimal_places=2)
    vat_regime = serializers.CharField()
    vat_rate_pct = serializers.DecimalField(max_digits=5, decimal_places=2)


class QuoteStatusChangeSchema(serializers.Serializer):
    at = serializers.DateTimeField()
    from_status = serializers.CharField(allow_blank=True)
    to_status = serializers.CharField()


class QuoteLinksSchema(serializers.Serializer):
    self = serializers.CharField()
    pdf = serializers.CharField()
    customer = serializers.CharField(
        allow_null=True,
        help_text="The end customer's private page (accept/decline); null until the quote is "
        "first sent: a quote never sent has no customer page.",
    )
    checklist_pdf = serializers.CharField(allow_null=True)


class QuoteSchema(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField()
    revision = serializers.CharField(help_text="A, B, ...")
    display_number = serializers.CharField()
    status = serializers.ChoiceField(choices=values_of(QuoteStatus))
    origin = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    valid_until = serializers.DateField()
    currency = serializers.CharField()
    language = serializers.CharField()
    customer = QuoteCustomerSchema()
    lines = QuoteLineSchema(many=True)
    totals = QuoteTotalsSchema(allow_null=True)
    tco = serializers.JSONField(allow_null=True, help_text="As POST /api/v1/tco/ returns it.")
    recommendation = serializers.JSONField(
        allow_null=True,
        help_text="The answer the quote was built from, as POST /api/v1/tco/'s recommendation "
        "(in the quote's language).",
    )
    history = QuoteStatusChangeSchema(many=True)
    links = QuoteLinksSchema()


def quote_to_dict(
    quote: Quote,
    *,
    lines: list[QuoteLine],
    totals: QuoteTotals | None,
    status_events: list[QuoteEvent],
) -> dict[str, Any]:
    revision = quote.current_revision
    snapshot = quote.snapshot or {}
    token = snapshot.get("result_token")
    return {
        "id": quote.pk,
        "number": quote.number,
        "revision": revision.label,
        "display_number": display_number(quote.number, revision.index),
        "status": quote.status,
        "origin": quote.origin,
        "created_at": quote.created_at.isoformat(),
        "updated_at": quote.updated_at.isoformat(),
        "valid_until": revision.valid_until.isoformat(),
        "currency": quote.currency,
        "language": quote.language,
        "customer": {
            "company": quote.company,
            "contact_name": quote.contact_name,
            "email": quote.email,
            "country": quote.country.code,
            "vat_number": quote.vat_number,
            "is_business": quote.is_business,
        },
        "lines": [
            {
                "position": line.position,
                "kind": line.kind,
                "sku": line.sku,
                "description": line.description,
                "quantity": str(line.quantity),
                "unit_price": str(line.unit_price),
                "discount_pct": str(line.discount_pct),
                "recurrence": line.recurrence,
                "role": line.role,
            }
            for line in lines
        ],
        "totals": None if totals is None else totals_to_dict(totals),
        "tco": snapshot.get("tco"),
        "recommendation": snapshot.get("recommendation"),
        "history": [
            {
                "at": event.created_at.isoformat(),
                "from_status": event.from_status,
                "to_status": event.to_status,
            }
            for event in status_events
        ],
        "links": {
            "self": reverse("api:quote-detail", kwargs={"pk": quote.pk}),
            "pdf": reverse("api:quote-pdf", kwargs={"pk": quote.pk}),
            "customer": quote_public_url(quote) if _was_sent(status_events) else None,
            "checklist_pdf": reverse("wizard:checklist_pdf", kwargs={"token": token})
            if token
            else None,
        },
    }


def _was_sent(status_events: list[QuoteEvent]) -> bool:
    """Whether a revision ever went to the customer (from the prefetched status history)."""
    return any(event.to_status == QuoteStatus.SENT for event in status_events)
