"""Partner catalog reads: offered GPUs, CPUs, chassis and current prices.

Partners call with their API key, the sales team with its session (``IsPartnerOrSalesStaff``).
Every answer can be revalidated: it carries an ``ETag`` and a ``Last-Modified``, and a request
whose ``If-None-Match`` (or ``If-Modified-Since``) still matches gets a 304 without a body. The
ETag is computed from ``catalog_version_get()`` in a few aggregate queries, before the list query
runs, so an integration that polls the catalog costs little while nothing changes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import django_filters
from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpResponseBase, HttpResponseNotModified
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.http import http_date, parse_etags, parse_http_date_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.mixins import ListModelMixin, RetrieveModelMixin
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.api.filters import (
    ChassisFilter,
    ChassisQueryInput,
    CpuFilter,
    CpuQueryInput,
    GpuDetailQueryInput,
    GpuFilter,
    GpuQueryInput,
    PriceFilter,
    PriceQueryInput,
    filtered,
    query_validated,
)
from catalog.api.serializers import (
    ChassisSerializer,
    CpuSerializer,
    CurrentPriceSerializer,
    GpuSerializer,
)
from catalog.selectors import (
    catalog_changed_at_get,
    catalog_version_get,
    current_prices_get,
    exchange_rates_version_get,
    offered_chassis_queryset,
    offered_cpu_queryset,
    offered_current_price_queryset,
    offered_gpu_queryset,
)
from gpuquote.api.auth import IsPartnerOrSalesStaff
from gpuquote.api.schemas import ErrorSchema

# Caches may keep an answer but must ask again each time (a 304 is cheap); never shared.
CACHE_CONTROL = "private, max-age=0, must-revalidate"
VARY = ("Authorization", "Accept-Language")


@dataclass(frozen=True, slots=True)
class CatalogValidators:
    etag: str
    last_modified: int  # seconds since the epoch: HTTP dates have a one-second resolution


def catalog_validators_get(request: Request, *, fields: tuple[str, ...]) -> CatalogValidators:
    """The ETag and Last-Modified of the answer this request would get, without building it.

    ``fields`` are the answer's field names: a release that adds one changes every tag.
    """
    identity = (
        catalog_version_get(),
        exchange_rates_version_get(),  # a price observed in another currency is converted
        fields,
        # Path, full query string and host: the `next` and `previous` links are absolute.
        request.build_absolute_uri(),
        translation.get_language(),
        request.accepted_renderer.format,
        # `stale` flags are relative to today: a new day (or setting) can change them.
        timezone.localdate(),
        settings.PRICE_STALE_DAYS,
    )
    digest = hashlib.sha256(repr(identity).encode()).hexdigest()[:32]
    day_started = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    changed_at = catalog_changed_at_get()
    last_modified = max(changed_at, day_started) if changed_at else day_started
    # Weak: the tag names the catalog version an answer was made from, not a hash of its bytes.
    return CatalogValidators(etag=f'W/"{digest}"', last_modified=int(last_modified.timestamp()))


def _opaque_tag(etag: str) -> str:
    return etag.removeprefix("W/")


def is_not_modified(request: Request, validators: CatalogValidators) -> bool:
    """RFC 9110 section 13.2.2: If-None-Match (weak comparison) decides when present;
    If-Modified-Since is read only without it."""
    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:
        tags = parse_etags(if_none_match)
        return "*" in tags or _opaque_tag(validators.etag) in {_opaque_tag(t) for t in tags}
    if_modified_since = request.headers.get("If-Modified-Since")
    since = parse_http_date_safe(if_modified_since) if if_modified_since else None
    return since is not None and validators.last_modified <= since


class CatalogReadView(GenericAPIView):
    """Query validation and conditional GETs for a generic DRF view; ``read`` is the answer
    (a list or one row) when the caller's copy is out of date.

    ``get`` runs after DRF has authenticated, checked permissions and throttled the request, so
    a 304 is only ever given to a caller who may read the catalog.
    """

    permission_classes = [IsPartnerOrSalesStaff]
    serializer_class: type[serializers.ModelSerializer]
    query_input_class: type[serializers.Serializer]
    # Applies the validated query to the queryset; None: the read has no filter.
    filterset_class: type[django_filters.FilterSet] | None = None
    query: dict[str, Any]

    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        self.query = query_validated(self.query_input_class, request.query_params)
        fields = tuple(self.serializer_class.Meta.fields)
        validators = catalog_validators_get(request, fields=fields)
        if is_not_modified(request, validators):
            response: HttpResponseBase = HttpResponseNotModified()
        else:
            response = self.read(request, *args, **kwargs)
        response["ETag"] = validators.etag
        response["Last-Modified"] = http_date(validators.last_modified)
        response["Cache-Control"] = CACHE_CONTROL
        patch_vary_headers(response, VARY)
        return response

    def read(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise NotImplementedError

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        """The FilterSet applied to the validated query (DRF calls this for lists and rows)."""
        if self.filterset_class is None:
            return queryset
        return filtered(self.filterset_class, self.query, queryset)

    def get_serializer_context(self) -> dict[str, Any]:
        currency = self.query.get("currency")
        return {
            **super().get_serializer_context(),
            "currency": currency,
            "prices": None if currency is None else current_prices_get(currency=currency),
        }


class CatalogListView(ListModelMixin, CatalogReadView):
    def read(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)


class CatalogRetrieveView(RetrieveModelMixin, CatalogReadView):
    def read(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.retrieve(request, *args, **kwargs)


# --- OpenAPI: what every catalog read shares --------------------------------------------------

BAD_QUERY = OpenApiResponse(
    ErrorSchema, description="A bad, unknown or repeated query parameter, named in `errors`."
)
UNAUTHENTICATED = OpenApiResponse(
    ErrorSchema,
    description="No API key and no staff session, or the key is unknown, expired or revoked.",
)
THROTTLED = OpenApiResponse(ErrorSchema, description="Too many requests.")
NOT_FOUND = OpenApiResponse(ErrorSchema, description="No offered GPU has this SKU.")
NOT_MODIFIED = OpenApiResponse(
    description="Not modified: the `If-None-Match` ETag still matches, or nothing changed since "
    "`If-Modified-Since`. No body; the ETag and Last-Modified headers are repeated."
)
CONDITIONAL_HEADERS = [
    OpenApiParameter(
        "If-None-Match",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        description="The ETag of an earlier answer to the same URL: 304 while it still holds.",
    ),
    OpenApiParameter(
        "If-Modified-Since",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        description="An HTTP date (an earlier Last-Modified): 304 when nothing changed since. "
        "Ignored when If-None-Match is given.",
    ),
    OpenApiParameter(
        "ETag",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200, 304],
        description="Changes with the catalog, the query string, the language and the day "
        "(stale flags are relative to today). Send it back in If-None-Match.",
    ),
    OpenApiParameter(
        "Last-Modified",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200, 304],
        description="The latest part or price change, or the start of today if later.",
    ),
    OpenApiParameter(
        "Cache-Control",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200, 304],
        description=f"`{CACHE_CONTROL}`: keep the answer, revalidate it every time.",
    ),
]


def catalog_read_schema(
    *,
    operation_id: str,
    summary: str,
    description: str,
    query_input: type[serializers.Serializer],
    response: serializers.Serializer | type[serializers.Serializer],
    not_found: bool = False,
) -> Any:
    """The documentation of one catalog GET: its filters, the validators and every status."""
    responses: dict[int, Any] = {
        200: response,
        304: NOT_MODIFIED,
        400: BAD_QUERY,
        401: UNAUTHENTICATED,
        429: THROTTLED,
    }
    if not_found:
        responses[404] = NOT_FOUND
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=["catalog"],
        parameters=[query_input, *CONDITIONAL_HEADERS],
        responses=responses,
    )


# --- The endpoints ----------------------------------------------------------------------------


@extend_schema_view(
    get=catalog_read_schema(
        operation_id="catalog_gpus_list",
        summary="Offered GPUs with their current purchase price, by SKU.",
        description="Memory in GB = 10^9 bytes. Filters combine (AND); `vendor` ignores case.",
        query_input=GpuQueryInput,
        response=GpuSerializer(many=True),
    )
)
class GpuListView(CatalogListView):
    serializer_class = GpuSerializer
    query_input_class = GpuQueryInput

    filterset_class = GpuFilter

    def get_queryset(self) -> QuerySet:
        return offered_gpu_queryset()


@extend_schema_view(
    get=catalog_read_schema(
        operation_id="catalog_gpus_retrieve",
        summary="One offered GPU by SKU, with its current purchase price.",
        description="Memory in GB = 10^9 bytes. A GPU no longer offered is a 404.",
        query_input=GpuDetailQueryInput,
        response=GpuSerializer,
        not_found=True,
    )
)
class GpuDetailView(CatalogRetrieveView):
    serializer_class = GpuSerializer
    query_input_class = GpuDetailQueryInput
    lookup_field = "sku"

    def get_queryset(self) -> QuerySet:
        return offered_gpu_queryset()


@extend_schema_view(
    get=catalog_read_schema(
        operation_id="catalog_cpus_list",
        summary="Offered CPUs with their current purchase price, by SKU.",
        description="Memory in GB = 10^9 bytes. Filters combine (AND); `vendor` and `socket` "
        "ignore case.",
        query_input=CpuQueryInput,
        response=CpuSerializer(many=True),
    )
)
class CpuListView(CatalogListView):
    serializer_class = CpuSerializer
    query_input_class = CpuQueryInput

    filterset_class = CpuFilter

    def get_queryset(self) -> QuerySet:
        return offered_cpu_queryset()


@extend_schema_view(
    get=catalog_read_schema(
        operation_id="catalog_chassis_list",
        summary="Offered chassis (barebone servers and towers) with their purchase price, by SKU.",
        description="Filters combine (AND); `vendor` ignores case; `form_factor` keeps the "
        "chassis that accept GPUs of that form factor.",
        query_input=ChassisQueryInput,
        response=ChassisSerializer(many=True),
    )
)
class ChassisListView(CatalogListView):
    serializer_class = ChassisSerializer
    query_input_class = ChassisQueryInput

    filterset_class = ChassisFilter

    def get_queryset(self) -> QuerySet:
        return offered_chassis_queryset()


@extend_schema_view(
    get=catalog_read_schema(
        operation_id="catalog_prices_list",
        summary="Current prices of the offered parts: one row per SKU, price kind and currency.",
        description="Ordered by SKU, price kind, currency. A price is stale when it was observed "
        "more than PRICE_STALE_DAYS ago. Filters combine (AND). These are the prices as they "
        "were observed, in the currency they were observed in (the seed catalog's are in USD): "
        "the parts lists give each part's price in the currency asked for, converted at the "
        "day's reference rate when needed.",
        query_input=PriceQueryInput,
        response=CurrentPriceSerializer(many=True),
    )
)
class CurrentPriceListView(CatalogListView):
    serializer_class = CurrentPriceSerializer
    query_input_class = PriceQueryInput

    filterset_class = PriceFilter

    def get_queryset(self) -> QuerySet:
        return offered_current_price_queryset()
