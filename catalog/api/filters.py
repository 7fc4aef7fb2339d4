"""The catalog lists' query parameters: one serializer per list validates them and documents them.

The views pass these serializers to ``extend_schema(parameters=...)`` too, so the OpenAPI schema
shows exactly the names, choices and ranges that are enforced. A parameter the list does not
know, or one given twice, is a 400 naming it: a misspelt filter must not quietly return the
whole catalog. Upper bounds keep numbers inside what every database can compare.
"""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _
from rest_framework import serializers

from catalog.models import PriceKind
from engine.build.parts import Cooling, FormFactor, GpuClass, PartKind
from engine.money import CURRENCIES
from gpuquote.api.fields import BoundedIntegerField, SingleLineCharField
from gpuquote.core.choices import values_of

# Read by the pagination class (``?page=``, ``?page_size=``) and DRF's format override.
PASS_THROUGH_PARAMETERS = frozenset({"page", "page_size", "format"})


def _vendor() -> serializers.CharField:
    return SingleLineCharField(
        required=False, max_length=64, help_text="Vendor name, any case: NVIDIA, AMD, Intel…"
    )


def _currency() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=list(CURRENCIES),
        default="EUR",
        help_text="Currency of the `price` object (parts without a price in it show null).",
    )


class GpuQueryInput(serializers.Serializer):
    currency = _currency()
    vendor = _vendor()
    gpu_class = serializers.ChoiceField(choices=values_of(GpuClass), required=False)
    form_factor = serializers.ChoiceField(choices=values_of(FormFactor), required=False)
    min_memory_gb = BoundedIntegerField(
        required=False,
        min_value=1,
        max_value=100_000,
        help_text="GPUs with at least this much memory, GB = 10^9 bytes.",
    )
    ecc = serializers.BooleanField(required=False, help_text="ECC memory (true or false).")


class GpuDetailQueryInput(serializers.Serializer):
    currency = _currency()


class CpuQueryInput(serializers.Serializer):
    currency = _currency()
    vendor = _vendor()
    socket = SingleLineCharField(
        required=False, max_length=16, help_text="CPU socket, any case: SP5, LGA4677…"
    )
    min_cores = BoundedIntegerField(
        required=False,
        min_value=1,
        max_value=10_000,
        help_text="CPUs with at least this many cores.",
    )
    server_grade = serializers.BooleanField(required=False)


class ChassisQueryInput(serializers.Serializer):
    currency = _currency()
    vendor = _vendor()
    form_factor = serializers.ChoiceField(
        choices=values_of(FormFactor),
        required=False,
        help_text="Chassis that accept GPUs of this form factor.",
    )
    min_gpu_slots = BoundedIntegerField(
        required=False, min_value=1, max_value=1_000, help_text="Chassis with at least this many."
    )
    cooling = serializers.ChoiceField(choices=values_of(Cooling), required=False)
    rack_mount = serializers.BooleanField(
        required=False, help_text="true: rack-mount servers; false: workstation towers."
    )


class PriceQueryInput(serializers.Serializer):
    currency = serializers.ChoiceField(choices=list(CURRENCIES), required=False)
    price_kind = serializers.ChoiceField(
        choices=PriceKind.values,
        required=False,
        help_text="purchase: one-off price; managed_monthly: managed hosting, per month.",
    )
    part_kind = serializers.ChoiceField(choices=values_of(PartKind), required=False)
    sku = SingleLineCharField(required=False, max_length=64, help_text="One part, exact SKU.")
    stale = serializers.BooleanField(
        required=False,
        help_text="true: only prices observed more than PRICE_STALE_DAYS ago; false: only fresh.",
    )


def query_validated(input_class: type[serializers.Serializer], params: QueryDict) -> dict[str, Any]:
    """The validated filters, or a ValidationError naming every bad parameter at once (a 400)."""
    filters = set(input_class().fields)
    errors: dict[str, list[str]] = {}
    for name, values in params.lists():
        if name not in filters | PASS_THROUGH_PARAMETERS:
            errors[name] = [_("Unknown query parameter: the API schema lists this list's filters.")]
        elif len(values) > 1:
            errors[name] = [_("Give this parameter once.")]
    # A plain dict, not the QueryDict: DRF reads a boolean missing from form-like data as False.
    query = input_class(data={name: params[name] for name in filters & set(params)})
    if not query.is_valid():
        errors = query.errors | errors
    if errors:
        raise serializers.ValidationError(errors)
    return dict(query.validated_data)
