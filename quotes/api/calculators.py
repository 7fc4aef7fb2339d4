"""Public calculators: the model registry, sizing, configurations and TCO (anonymous, throttled)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.filters import query_validated
from catalog.selectors import catalog_snapshot_get, price_ages_get
from catalog.selectors.service_tiers import service_tier_get, service_tiers_get
from engine.advice.pipeline import gpu_profile, tco_configuration
from engine.advice.recommendation import recommend
from engine.assumptions import AssumptionError
from engine.build.builder import BuiltOption, Environment, Tier
from engine.money import CURRENCIES, Money
from engine.performance.options import option_performance, options_performance
from engine.performance.results import Performance
from engine.sizing import Sizing, min_gpus, size
from engine.tco import TcoInputError, job_cost
from engine.workload.registry import all_models
from gpuquote.api.errors import InputError
from quotes.advice.inputs import DEFAULT_CURRENCY, Uptime
from quotes.advice.presenters import (
    build_to_dict,
    exchange_rates_to_list,
    job_to_dict,
    market_offers_to_list,
    model_entry_to_dict,
    option_to_dict,
    recommendation_to_dict,
    reserved_cloud_price_to_dict,
    service_tier_to_dict,
    sizing_to_dict,
    tco_to_dict,
    text,
)
from quotes.advice.selectors import (
    advice_get,
    catalog_gpu_get,
    cloud_market_for_gpu_get,
    priced_assumptions_get,
    tco_get,
)
from quotes.api import schemas
from quotes.api.answer_cache import cached_answer
from quotes.api.inputs import (
    ConfigurationInput,
    SizingOnGpuInput,
    reverse_questions,
    validated,
    workload_parse,
)
from quotes.api.tco_inputs import TcoInput, configuration_parse, overrides_of

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
        request=schemas.SizingRequestSchema,
        responses={200: schemas.SizingResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("sizing", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        if not isinstance(request.data, dict):
            raise InputError({"non_field_errors": [_("Expected a JSON object.")]})
        data = dict(request.data)
        extras = validated(
            SizingOnGpuInput,
            {key: data.pop(key) for key in ("gpu", "gpus", "gpu_memory_gb") if key in data},
        )
        workload = workload_parse(data)
        gpu = None
        if extras.get("gpu"):
            gpu = catalog_gpu_get(sku=extras["gpu"])
            if gpu is None:
                raise InputError(
                    {
                        "gpu": [
                            _("Unknown GPU SKU %(sku)s: see the catalog.") % {"sku": extras["gpu"]}
                        ]
                    }
                )
        gpus = extras.get("gpus")
        profile = None if gpu is None else gpu_profile(gpu)
        sizing = size(workload, gpu=profile, gpus=gpus)
        body = sizing_to_dict(sizing)
        if profile is not None and not workload.is_training:
            body |= reverse_questions(workload, profile, gpus or sizing.gpus)
        if "gpu_memory_gb" in extras:
            body["min_gpus"] = min_gpus(workload, gpu_memory_gb=extras["gpu_memory_gb"])
        return body


class ConfigurationsView(APIView):
    body_limit = "calculator"

    @extend_schema(
        operation_id="configurations_create",
        summary="Balanced server configurations (budget, balanced, performance) from the catalog.",
        request=schemas.ConfigurationRequestSchema,
        responses={200: schemas.ConfigurationResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("configurations", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        envelope = validated(ConfigurationInput, request.data)
        workload = workload_parse(envelope["workload"], prefix="workload")
        currency = envelope["currency"]
        budget = envelope.get("budget")
        advice = advice_get(
            workload=workload,
            environment=Environment(envelope["environment"]),
            currency=currency,
            budget=None if budget is None else Money(budget, currency),
            growth_gpus=envelope["growth_gpus"],
            always_on=envelope.get("uptime") == Uptime.ALWAYS_ON,
        )
        snapshot = catalog_snapshot_get(currency=currency)
        performance = options_performance(workload, advice.build.options, snapshot.gpus)
        body = build_to_dict(
            advice.build,
            price_ages_get(currency=currency),
            performance,
            exchange_rates=snapshot.exchange_rates,
        )
        options = {option.tier: option for option in advice.build.options}
        chosen = options.get(Tier.BALANCED) or next(iter(options.values()), None)
        body["recommendation"] = (
            None if chosen is None else recommendation_to_dict(recommend(chosen, advice.sizing))
        )
        return body


class TcoView(APIView):
    body_limit = "calculator"

    @extend_schema(
        operation_id="tco_create",
        summary="Buy vs managed hosting vs cloud over 1-7 years, with break-even and sensitivity.",
        request=schemas.TcoRequestSchema,
        responses={200: schemas.TcoResponseSchema, 400: BAD_REQUEST, 429: THROTTLED},
    )
    def post(self, request: Request) -> HttpResponseBase:
        return cached_answer("tco", request, lambda: self.answer(request))

    def answer(self, request: Request) -> dict[str, Any]:
        envelope = validated(TcoInput, request.data)
        built = None
        sizing = None
        performance: dict[Tier, Performance] = {}
        if envelope.get("workload") is not None:
            built, found, sizing = _build_for_tco(envelope)
            configuration = tco_configuration(built)
            if found is not None:
                performance[built.tier] = found
        else:
            configuration = configuration_parse(envelope["configuration"])
        currency = envelope.get("currency") or configuration.price.currency
        if configuration.price.currency != currency:
            raise InputError(
                {"currency": [_("The configuration's prices are in %(c)s.") % {"c": currency}]}
            )
        try:
            priced = priced_assumptions_get(
                region=envelope["region"],
                currency=currency,
                gpu_model=configuration.gpu_model,
                overrides=overrides_of(envelope),
            )
            result = tco_get(
                assumptions=priced,
                configuration=configuration,
                horizon_years=envelope["horizon_years"],
                utilization=envelope["utilization"],
                region=envelope["region"],
                currency=currency,
                overrides=overrides_of(envelope),
                always_on=envelope.get("uptime") == Uptime.ALWAYS_ON,
                service_tier=service_tier_get(code=envelope.get("service_tier"), currency=currency),
            )
        except (AssumptionError, TcoInputError) as exc:
            raise InputError({exc.field: [text(exc.message)]}) from exc
        body = tco_to_dict(result)
        market = cloud_market_for_gpu_get(gpu_model=configuration.gpu_model, currency=currency)
        body["market_offers"] = market_offers_to_list(market)
        body["reserved_cloud_price"] = reserved_cloud_price_to_dict(market)
        hours = None
        if built is not None and built.tier in performance:
            training = performance[built.tier].training
            hours = None if training is None else training.hours
        job = None
        if hours and result.managed_offer is not None:
            job = job_cost(hours, configuration, priced, result.managed_offer, result.service_tier)
        body["job"] = job_to_dict(job)
        body["recommendation"] = None
        if built is not None and sizing is not None:
            body["recommendation"] = recommendation_to_dict(
                recommend(built, sizing, tco=result, offer=result.managed_offer, job=job)
            )
        if built is not None:
            ages = price_ages_get(currency=currency)
            body["configuration"] = option_to_dict(built, ages, performance)
            body["configuration_exchange_rates"] = exchange_rates_to_list(
                catalog_snapshot_get(currency=currency).exchange_rates, (built,), ages
            )
        return body


def _build_for_tco(envelope: dict) -> tuple[BuiltOption, Performance | None, Sizing]:
    """The balanced option for a workload (the budget one when it is the only one), what it
    delivers, and the job's sizing."""
    workload = workload_parse(envelope["workload"], prefix="workload")
    currency = envelope.get("currency") or DEFAULT_CURRENCY
    advice = advice_get(
        workload=workload,
        environment=Environment(envelope["environment"]),
        currency=currency,
        always_on=envelope.get("uptime") == Uptime.ALWAYS_ON,
    )
    options = {option.tier: option for option in advice.build.options}
    chosen = options.get(Tier.BALANCED) or next(iter(options.values()), None)
    if chosen is None:
        raise InputError({"workload": [text(message) for message in advice.build.unmet]})
    gpus = catalog_snapshot_get(currency=currency).gpus
    return chosen, option_performance(workload, chosen, gpus), advice.sizing


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
