"""Public calculators: the model registry, sizing, configurations and TCO (anonymous, throttled)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.filters import query_validated
from catalog.selectors.service_tiers import service_tier_get, service_tiers_get
from engine.build.builder import Environment
from engine.money import CURRENCIES
from engine.workload.registry import all_models
from quotes.advice.calculators import configurations_answer, sizing_answer, tco_answer
from quotes.advice.inputs import DEFAULT_CURRENCY, Uptime
from quotes.advice.presenters import model_entry_to_dict, service_tier_to_dict
from quotes.api import schemas
from quotes.api.answer_cache import cached_answer
from quotes.api.answers import (
    configurations_answer_to_dict,
    sizing_answer_to_dict,
    tco_answer_to_dict,
)
from quotes.api.inputs import (
    ConfigurationInput,
    SizingInput,
    preference_of,
    service_errors,
    validated,
)
from quotes.api.tco_inputs import TcoInput, overrides_of

BAD_REQUEST = OpenApiResponse(schemas.ErrorSchema, description="Invalid fields, named one by one.")
THROTTLED = OpenApiResponse(schemas.ErrorSchema, description="Too many requests.")


class ModelListView(APIView):
    @extend_schema(
        operation_id="models_list",
        summary="The public model registry (architecture from the model cards).",
        responses={200: schemas.ModelSchema(many=True), 429: THROTTLED},
    )
    def get(self, request: Request) -> Response:
        return Response([model_entry_to_dict(entry) for entry in all_models()])


class SizingView(APIView):
    body_limit = "calculator"

    @extend_schema(
        operation_id="sizing_create",
        summary="What a workload needs: GPU memory (GB = 10^9 bytes), GPUs, compute, RAM, storage.",
        request=SizingInput,
        responses={200: schemas.SizingResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("sizing", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        given = validated(SizingInput, request.data)
        return sizing_answer_to_dict(sizing_answer(**given))


class ConfigurationsView(APIView):
    body_limit = "calculator"

    @extend_schema(
        operation_id="configurations_create",
        summary="Balanced server configurations (budget, balanced, performance) from the catalog.",
        request=ConfigurationInput,
        responses={200: schemas.ConfigurationResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("configurations", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        given = validated(ConfigurationInput, request.data)
        answer = configurations_answer(
            workload=given["workload"],
            environment=Environment(given["environment"]),
            currency=given["currency"],
            budget=given.get("budget"),
            growth_gpus=given["growth_gpus"],
            always_on=given.get("uptime") == Uptime.ALWAYS_ON,
            **preference_of(given),
        )
        return configurations_answer_to_dict(answer)


class TcoView(APIView):
    body_limit = "calculator"

    @extend_schema(
        operation_id="tco_create",
        summary="Buy vs managed hosting vs cloud over 1-7 years, with break-even and sensitivity.",
        request=TcoInput,
        responses={200: schemas.TcoResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("tco", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        given = validated(TcoInput, request.data)
        with service_errors():
            answer = tco_answer(
                configuration=given.get("configuration"),
                workload=given.get("workload"),
                environment=Environment(given["environment"]),
                always_on=given.get("uptime") == Uptime.ALWAYS_ON,
                horizon_years=given["horizon_years"],
                utilization=given["utilization"],
                region=given["region"],
                currency=given.get("currency"),
                overrides=overrides_of(given),
                service_tier=given.get("service_tier"),
                **preference_of(given),
            )
        return tco_answer_to_dict(answer)


class ServiceTierQueryInput(serializers.Serializer):
    currency = serializers.ChoiceField(
        choices=list(CURRENCIES), default=DEFAULT_CURRENCY, help_text="Of each tier's `monthly`."
    )


class ServiceTierListView(APIView):
    """The managed offer's tiers, kept per catalog version in each process
    (``catalog.selectors.service_tiers``): a request reads no row while they stay as they are."""

    @extend_schema(
        operation_id="service_tiers_list",
        summary="Managed hosting's service tiers, by position, priced per server and month.",
        description="What the host does for the customer on top of running the hardware: when "
        "and how fast its people answer, how fast a failed part is replaced, and the upkeep it "
        "takes on. Names and sentences follow Accept-Language (English or French). A tier's "
        "code is the `service_tier` of POST /api/v1/tco/ and POST /api/v1/quotes/.",
        parameters=[ServiceTierQueryInput],
        responses={200: schemas.ServiceTierSchema(many=True), 400: BAD_REQUEST, 429: THROTTLED},
    )
    def get(self, request: Request) -> Response:
        currency = query_validated(ServiceTierQueryInput, request.query_params)["currency"]
        default = service_tier_get(code=None, currency=currency)
        return Response(
            [
                service_tier_to_dict(
                    tier, is_default=default is not None and tier.code == default.code
                )
                for tier in service_tiers_get(currency=currency)
            ]
        )
