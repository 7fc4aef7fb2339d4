"""Quotes over the API: create (idempotent), list, retrieve, PDF. Partners see only their own
quotes (another partner's id is a 404, like an id that does not exist); the sales team, signed
in, sees every quote."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Prefetch, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import translation
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.generics import GenericAPIView
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from engine.commerce.pricing import PricingError
from gpuquote.api.errors import InputError
from quotes.advice.inputs import DEFAULT_UTILIZATION_PCT, utilization_pct_for_uptime
from quotes.advice.result import AdviceInputs
from quotes.api import schemas
from quotes.api.auth import IsPartnerOrSalesStaff, request_partner
from quotes.api.inputs import validated
from quotes.api.partners.quote_payloads import (
    QuoteCreateInput,
    QuoteListFilter,
    QuoteSchema,
    quote_to_dict,
)
from quotes.models import Quote, QuoteEvent, QuoteEventKind, QuoteLine
from quotes.partners.idempotency import IdempotencyConflict, request_fingerprint
from quotes.partners.quotes import partner_quote_create
from quotes.pdf.quote import quote_pdf_filename, quote_pdf_render
from quotes.sales.selectors import revision_totals_get

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_MAX = 200

ERROR = schemas.ErrorSchema
UNAUTHENTICATED = OpenApiResponse(ERROR, description="No API key, or not a valid one.")
NOT_FOUND = OpenApiResponse(ERROR, description="No such quote for this partner.")
THROTTLED = OpenApiResponse(ERROR, description="Too many requests: see Retry-After.")
BAD_REQUEST = OpenApiResponse(ERROR, description="Invalid fields, named one by one.")


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def quotes_visible(request: Request) -> QuerySet[Quote]:
    """What the caller may see: its own quotes (partner) or all of them (sales staff), with
    the current lines and the status history prefetched (a list page costs 3 queries)."""
    quotes = Quote.objects.select_related("current_revision").prefetch_related(
        Prefetch("current_revision__lines", queryset=QuoteLine.objects.order_by("position", "id")),
        Prefetch(
            "events",
            queryset=QuoteEvent.objects.filter(
                kind__in=(QuoteEventKind.CREATED, QuoteEventKind.STATUS)
            )
            .exclude(to_status="")
            .order_by("created_at", "id"),
            to_attr="status_events",
        ),
    )
    partner = request_partner(request)
    return quotes if partner is None else quotes.filter(partner=partner)


def quote_payload(quote: Quote) -> dict[str, Any]:
    """A quote from ``quotes_visible`` (prefetched) as the API shows it."""
    lines = list(quote.current_revision.lines.all())
    try:
        totals = revision_totals_get(quote=quote, revision=quote.current_revision, lines=lines)
    except PricingError:
        totals = None  # a quote staff left inconsistent: lines are still shown
    return quote_to_dict(quote, lines=lines, totals=totals, status_events=quote.status_events)


class QuoteListCreateView(GenericAPIView):
    permission_classes = [IsPartnerOrSalesStaff]
    serializer_class = QuoteSchema

    def get_queryset(self) -> QuerySet[Quote]:
        return quotes_visible(self.request)

    @extend_schema(
        operation_id="quotes_list",
        summary="Your quotes, newest first, filterable by status and creation date.",
        parameters=[QuoteListFilter],
        responses={200: QuoteSchema(many=True), 400: BAD_REQUEST, 401: UNAUTHENTICATED,
                   429: THROTTLED},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        filters = validated(QuoteListFilter, request.query_params.dict())
        quotes = self.get_queryset().order_by("-created_at", "-id")
        if "status" in filters:
            quotes = quotes.filter(status=filters["status"])
        if "created_after" in filters:
            quotes = quotes.filter(created_at__date__gte=filters["created_after"])
        if "created_before" in filters:
            quotes = quotes.filter(created_at__date__lte=filters["created_before"])
        page = self.paginate_queryset(quotes)
        return self.get_paginated_response([quote_payload(quote) for quote in page])

    @extend_schema(
        operation_id="quotes_create",
        summary="Size, build and price a workload, and store the quote (origin partner_api).",
        description="Send an `Idempotency-Key` header to make retries safe: the same key and "
        "body return the first quote (200), a different body with a used key is a 409.",
        request=QuoteCreateInput,
        parameters=[
            OpenApiParameter(
                IDEMPOTENCY_HEADER,
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="Any unique string up to 200 characters, such as a UUID.",
            )
        ],
        responses={
            201: QuoteSchema,
            200: OpenApiResponse(QuoteSchema, description="Replay of an Idempotency-Key."),
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            403: OpenApiResponse(ERROR, description="Only partners create quotes here."),
            409: OpenApiResponse(ERROR, description="Idempotency-Key used with another body."),
            429: THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        partner = request_partner(request)
        if partner is None:
            raise PermissionDenied(_("Quotes are created over the API with a partner's key."))
        key = request.headers.get(IDEMPOTENCY_HEADER, "").strip() or None
        if key is not None and len(key) > IDEMPOTENCY_MAX:
            raise InputError({IDEMPOTENCY_HEADER: [_("At most 200 characters.")]})
        data = validated(QuoteCreateInput, request.data)
        customer = dict(data["customer"])
        customer["country"] = customer["country"].upper()
        inputs = AdviceInputs(
            workload=data["workload"],
            environment=data["environment"],
            uptime=data["uptime"],
            growth_gpus=data["growth_gpus"],
            deployment=data["deployment"],
            region=data["region"],
            currency=data["currency"],
            horizon_years=data["horizon_years"],
            utilization=_utilization_pct(data) / Decimal(100),
            budget=data.get("budget"),
            overrides={},
            service_tier=data.get("service_tier") or "",
        )
        try:
            quote, created = partner_quote_create(
                partner=partner,
                inputs=inputs,
                customer=customer,
                language=data["language"],
                idempotency_key=key,
                fingerprint=request_fingerprint(request.data),
            )
        except IdempotencyConflict as error:
            raise Conflict(str(error)) from error
        except DjangoValidationError as error:  # the workload has no configuration to quote
            raise InputError({"workload": list(error.messages)}) from error
        response = Response(
            quote_payload(quotes_visible(request).get(pk=quote.pk)),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )
        if not created:
            response["Idempotent-Replayed"] = "true"
        response["Location"] = request.build_absolute_uri(f"/api/v1/quotes/{quote.pk}/")
        return response


class QuoteDetailView(GenericAPIView):
    permission_classes = [IsPartnerOrSalesStaff]
    serializer_class = QuoteSchema

    def get_queryset(self) -> QuerySet[Quote]:
        return quotes_visible(self.request)

    @extend_schema(
        operation_id="quotes_retrieve",
        summary="One quote: status and history, lines, totals (Decimal strings), TCO, links.",
        responses={200: QuoteSchema, 401: UNAUTHENTICATED, 404: NOT_FOUND, 429: THROTTLED},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(quote_payload(get_object_or_404(self.get_queryset(), pk=pk)))


class PdfRenderer(BaseRenderer):
    """Lets ``Accept: application/pdf`` through content negotiation; the view answers the PDF
    itself, and errors are JSON whatever was accepted (see ``finalize_response``)."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        return data


class QuotePdfView(GenericAPIView):
    permission_classes = [IsPartnerOrSalesStaff]
    renderer_classes = [JSONRenderer, PdfRenderer]
    serializer_class = None

    def get_queryset(self) -> QuerySet[Quote]:
        return quotes_visible(self.request)

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any):
        if isinstance(response, Response):  # an error: JSON problem details
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="quotes_pdf",
        summary="The quote's current revision as a PDF, in the quote's language.",
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="PDF"),
            (401, "application/json"): UNAUTHENTICATED,
            (404, "application/json"): NOT_FOUND,
            (409, "application/json"): OpenApiResponse(
                ERROR, description="The quote's lines do not price (staff must fix them)."
            ),
            (429, "application/json"): THROTTLED,
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        quote = get_object_or_404(self.get_queryset(), pk=pk)
        with translation.override(quote.language):
            try:
                document = quote_pdf_render(quote=quote, revision=quote.current_revision)
            except PricingError as error:
                raise Conflict(error.message.render(_)) from error
        response = HttpResponse(document, content_type="application/pdf")
        filename = quote_pdf_filename(quote=quote, revision=quote.current_revision)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


def _utilization_pct(data: dict[str, Any]) -> Decimal:
    """The partner's utilisation, else the one its uptime suggests (as the wizard pre-fills)."""
    given = data.get("utilization_pct")
    if given is not None:
        return Decimal(given)
    return Decimal(utilization_pct_for_uptime(data["uptime"]) or DEFAULT_UTILIZATION_PCT)
