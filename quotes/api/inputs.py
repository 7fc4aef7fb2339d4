"""Request parsing at the edge: DRF for the envelope, the engine for the workload itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from engine.builder import Environment
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
