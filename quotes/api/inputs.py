"""Request parsing at the edge: DRF for the envelope, the engine for the workload itself
(``quotes.api.workload``). Each serializer is also the request's OpenAPI schema."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from catalog.selectors.service_tiers import service_tier_get
from engine.build.builder import Environment
from engine.build.parts import GpuSpec
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
    GPU_COUNT_MAX,
    GROWTH_GPUS_MAX,
    UPTIMES,
)
from quotes.advice.selectors import catalog_gpu_get
from quotes.api.workload import WorkloadField, WorkloadSchema, workload_validated

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


class PreferredGpuInput(serializers.Serializer):
    """The customer's own GPU model and count, as the result page's re-pricing takes them
    (``quotes.advice.calculators.gpu_preference``)."""

    gpu = SingleLineCharField(
        required=False,
        max_length=64,
        help_text="Catalog GPU SKU: build only with this GPU model. Its tensor-parallel model "
        "copies stay inside one server whenever a server of it can hold one.",
    )
    min_gpus = BoundedIntegerField(
        required=False,
        min_value=1,
        max_value=GPU_COUNT_MAX,
        help_text="GPUs in all, at least (rounded up to whole model copies); fewer than the "
        "job needs is not taken. Omitted: what the job needs.",
    )

    def validate_gpu(self, value: str) -> str:
        if catalog_gpu_get(sku=value) is None:
            raise serializers.ValidationError(
                _("Unknown GPU SKU %(sku)s: see the catalog.") % {"sku": value}
            )
        return value


def preference_of(given: Mapping[str, Any]) -> dict[str, Any]:
    """The validated ``gpu`` and ``min_gpus`` as the calculators take them."""
    return {"gpu_sku": given.get("gpu") or "", "min_gpus": given.get("min_gpus") or 0}


@extend_schema_serializer(component_name="ConfigurationRequestSchema")
class ConfigurationInput(PreferredGpuInput):
    workload = WorkloadField()
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
    uptime = serializers.ChoiceField(
        choices=list(UPTIMES),
        required=False,
        help_text="always_on: a production service keeps one spare server (N+1) so that it "
        "survives a server failing. Omitted: no spare.",
    )


@contextmanager
def service_errors() -> Iterator[None]:
    """A service's ``ValidationError`` (a request it cannot answer, by field) as the API's 400."""
    try:
        yield
    except DjangoValidationError as exc:
        raise InputError(exc.message_dict) from exc


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError({"non_field_errors": [_("Expected a JSON object.")]})
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class _OnGpuInput(serializers.Serializer):
    gpu = SingleLineCharField(
        required=False,
        max_length=64,
        help_text="Catalog GPU SKU: adds min_gpus, time and throughput on it.",
    )
    gpus = BoundedIntegerField(required=False, min_value=1, max_value=65_536)
    gpu_memory_gb = BoundedFloatField(
        required=False,
        min_value=1,
        max_value=4096,
        help_text="Answer min_gpus for GPUs of this memory size (GB = 10^9 bytes).",
    )


ON_GPU_FIELDS = tuple(_OnGpuInput().fields)


@extend_schema_serializer(component_name="SizingRequestSchema")
class SizingInput(WorkloadSchema, _OnGpuInput):
    # A workload at the top level (``WorkloadSchema`` describes it, the engine parses it) and,
    # optionally, the catalog GPU to size it on. Validated: ``workload`` (the engine's
    # ``Workload``), ``gpu`` (the catalog's, or None), ``gpus`` and ``gpu_memory_gb`` (or None).
    # No docstring: it would become the schema's description.

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError({"non_field_errors": [_("Expected a JSON object.")]})
        workload = dict(data)
        on_gpu = validated(
            _OnGpuInput, {name: workload.pop(name) for name in ON_GPU_FIELDS if name in workload}
        )
        return {
            "workload": workload_validated(workload),
            "gpu": _catalog_gpu(on_gpu["gpu"]) if on_gpu.get("gpu") else None,
            "gpus": on_gpu.get("gpus"),
            "gpu_memory_gb": on_gpu.get("gpu_memory_gb"),
        }


def _catalog_gpu(sku: str) -> GpuSpec:
    gpu = catalog_gpu_get(sku=sku)
    if gpu is None:
        raise serializers.ValidationError(
            {"gpu": [_("Unknown GPU SKU %(sku)s: see the catalog.") % {"sku": sku}]}
        )
    return gpu
