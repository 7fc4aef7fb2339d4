"""Request parsing at the edge: DRF for the envelope, the engine for the workload itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from catalog.selectors.service_tiers import service_tier_get
from engine.build.builder import Environment
from engine.sizing import GpuProfile, max_concurrent_requests, max_context_length
from engine.workload import Workload, WorkloadError, workload_from_dict
from gpuquote.api.errors import InputError
from gpuquote.api.fields import (
    BoundedDecimalField,
    BoundedFloatField,
    BoundedIntegerField,
    SingleLineCharField,
)
from quotes.advice.inputs import (
    BUDGET_DECIMAL_PLACES,
    BUDGET_MAX_DIGITS,
    CURRENCIES,
    DEFAULT_CURRENCY,
    GROWTH_GPUS_MAX,
    UPTIMES,
)
from quotes.advice.presenters import text


def workload_parse(data: Any, *, prefix: str = "") -> Workload:
    """The engine's parser; its errors become the API's one error shape, field by field."""
    if not isinstance(data, Mapping):
        raise InputError({prefix or "non_field_errors": [_("Expected a JSON object.")]})
    try:
        return workload_from_dict(data)
    except WorkloadError as exc:
        raise InputError(
            {
                f"{prefix}.{path}" if prefix else path: [text(m) for m in messages]
                for path, messages in exc.errors.items()
            }
        ) from exc


SERVICE_TIER_CODE_MAX = 40


class ServiceTierField(serializers.CharField):
    """The code of a managed-hosting service tier the catalog offers (GET
    /api/v1/service-tiers/); left out: the catalog's default tier."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "The managed-hosting service tier (a code from GET /api/v1/service-tiers/); "
            "without it, the default tier. Its price is the managed option's support line.",
        )
        super().__init__(max_length=SERVICE_TIER_CODE_MAX, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        code = super().to_internal_value(data)
        if service_tier_get(code=code, currency="EUR") is None:
            raise serializers.ValidationError(
                _("Unknown service tier %(code)s: see GET /api/v1/service-tiers/.") % {"code": code}
            )
        return code


class ConfigurationInput(serializers.Serializer):
    workload = serializers.JSONField()
    environment = serializers.ChoiceField(choices=[e.value for e in Environment])
    budget = BoundedDecimalField(
        max_digits=BUDGET_MAX_DIGITS,
        decimal_places=BUDGET_DECIMAL_PLACES,
        required=False,
        allow_null=True,
        min_value=0,
    )
    currency = serializers.ChoiceField(choices=list(CURRENCIES), default=DEFAULT_CURRENCY)
    growth_gpus = BoundedIntegerField(default=0, min_value=0, max_value=GROWTH_GPUS_MAX)
    uptime = serializers.ChoiceField(choices=list(UPTIMES), required=False)


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError({"non_field_errors": [_("Expected a JSON object.")]})
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class SizingOnGpuInput(serializers.Serializer):
    gpu = SingleLineCharField(required=False, max_length=64)
    gpus = BoundedIntegerField(required=False, min_value=1, max_value=65_536)
    gpu_memory_gb = BoundedFloatField(required=False, min_value=1, max_value=4096)


def reverse_questions(workload: Workload, gpu: GpuProfile, gpus: int) -> dict[str, int | None]:
    """The longest context and the most concurrent requests that fit (models with a KV cache)."""
    try:
        return {
            "max_context_length": max_context_length(workload, gpu=gpu, gpus=gpus),
            "max_concurrent_requests": max_concurrent_requests(workload, gpu=gpu, gpus=gpus),
        }
    except WorkloadError:
        return {"max_context_length": None, "max_concurrent_requests": None}
