"""Parsing a TCO request: which configuration, over what horizon, with which overrides."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from engine.advice.pipeline import power_per_server
from engine.assumptions import SPECS
from engine.build.builder import Environment
from engine.money import Money
from engine.tco import TcoConfiguration, TcoInputError
from gpuquote.api.errors import InputError
from gpuquote.api.fields import BoundedDecimalField, BoundedIntegerField, SingleLineCharField
from quotes.advice.inputs import (
    API_DEFAULT_UTILIZATION,
    CURRENCIES,
    DEFAULT_HORIZON_YEARS,
    DEFAULT_REGION,
    MAX_HORIZON_YEARS,
    MAX_UTILIZATION,
    MIN_HORIZON_YEARS,
    MIN_UTILIZATION,
    REGIONS,
    TCO_DEFAULT_ENVIRONMENT,
    UPTIMES,
)
from quotes.advice.presenters import text
from quotes.api.inputs import PreferredGpuInput, ServiceTierField
from quotes.api.workload import WorkloadField

_MONEY: dict[str, Any] = {"max_digits": 14, "decimal_places": 2, "min_value": Decimal(0)}


class TotalsConfigurationInput(serializers.Serializer):
    """A configuration given by its totals, for partners who build their own."""

    servers = BoundedIntegerField(min_value=1, max_value=10_000)
    gpus_per_server = BoundedIntegerField(min_value=1, max_value=64)
    gpu_model = SingleLineCharField(required=False, allow_blank=True, max_length=128)
    power_w = BoundedIntegerField(
        min_value=1, max_value=500_000, help_text="Full-load draw per server, W."
    )
    price = BoundedDecimalField(**_MONEY, help_text="Purchase price per server.")
    currency = serializers.ChoiceField(choices=list(CURRENCIES))
    rack_units = BoundedIntegerField(min_value=1, max_value=60)
    managed_monthly_price = BoundedDecimalField(
        **_MONEY, required=False, allow_null=True, help_text="Managed-hosting fee per server."
    )
    provisioned_w = BoundedIntegerField(
        min_value=1,
        max_value=500_000,
        required=False,
        help_text="Power provisioned per server (colocation rent is paid on it), W; at least "
        "power_w, which it defaults to.",
    )


class _OptionTotalsInput(serializers.Serializer):
    gpus = BoundedIntegerField(min_value=1)
    power_w = BoundedIntegerField(min_value=1)
    price = BoundedDecimalField(**_MONEY)
    currency = serializers.ChoiceField(choices=list(CURRENCIES))
    rack_units = BoundedIntegerField(min_value=1)
    managed_monthly_price = BoundedDecimalField(**_MONEY, required=False, allow_null=True)
    power_sized_w = BoundedIntegerField(min_value=1, max_value=500_000, required=False)
    cluster_power_w = BoundedIntegerField(min_value=0, max_value=10_000_000, required=False)


class _PartInput(serializers.Serializer):
    kind = SingleLineCharField()
    name = SingleLineCharField()


class OptionConfigurationInput(serializers.Serializer):
    """An option exactly as POST /api/v1/configurations/ returned it."""

    servers = BoundedIntegerField(min_value=1, max_value=10_000)
    parts = _PartInput(many=True)
    totals = _OptionTotalsInput()


def _override_field(name: str) -> BoundedDecimalField:
    return BoundedDecimalField(
        max_digits=16, decimal_places=6, required=False, help_text=SPECS[name].label
    )


@extend_schema_serializer(component_name="TcoRequestSchema")
class TcoInput(PreferredGpuInput):
    configuration = serializers.JSONField(
        required=False,
        help_text="An option from POST /api/v1/configurations/, or a configuration by its "
        "totals: servers, gpus_per_server, gpu_model, power_w (full load per server), price "
        "(per server), currency, rack_units, managed_monthly_price (per server), provisioned_w "
        "(power provisioned per server, the basis of colocation rent; default power_w). An "
        "option's totals may carry power_sized_w and cluster_power_w, used the same way.",
    )
    workload = WorkloadField(required=False, help_text="Instead of a configuration: build one.")
    environment = serializers.ChoiceField(
        choices=[e.value for e in Environment], default=TCO_DEFAULT_ENVIRONMENT
    )
    uptime = serializers.ChoiceField(
        choices=list(UPTIMES),
        required=False,
        help_text="always_on: a service running around the clock: cloud GPUs are billed for "
        "every hour whatever their utilisation (and a production workload gets a spare server); "
        "otherwise for the share of hours used (utilization).",
    )
    horizon_years = BoundedIntegerField(
        min_value=MIN_HORIZON_YEARS, max_value=MAX_HORIZON_YEARS, default=DEFAULT_HORIZON_YEARS
    )
    utilization = BoundedDecimalField(
        max_digits=4,
        decimal_places=3,
        min_value=MIN_UTILIZATION,
        max_value=MAX_UTILIZATION,
        default=API_DEFAULT_UTILIZATION,
    )
    region = serializers.ChoiceField(choices=list(REGIONS), default=DEFAULT_REGION)
    currency = serializers.ChoiceField(choices=list(CURRENCIES), required=False)
    service_tier = ServiceTierField()

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        for name in SPECS:
            fields[name] = _override_field(name)
        return fields

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        # Both given: that alone is said, before the workload is read.
        if isinstance(data, Mapping) and _given(data) == list(ONE_OF):
            raise serializers.ValidationError({"configuration": [_(NOT_BOTH)]})
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(_given(attrs)) != 1:
            raise serializers.ValidationError({"configuration": [_(NOT_BOTH)]})
        for name in ("gpu", "min_gpus"):
            if attrs.get(name) and attrs.get("configuration") is not None:
                raise serializers.ValidationError({name: [_(WORKLOAD_ONLY)]})
        if attrs.get("configuration") is not None:  # its errors name its own fields
            attrs["configuration"] = configuration_parse(attrs["configuration"])
        return attrs


ONE_OF = ("configuration", "workload")
NOT_BOTH = gettext_noop("Give either a configuration or a workload, not both.")
WORKLOAD_ONLY = gettext_noop("Only with a workload: a configuration already has its GPUs.")


def _given(values: Mapping[str, Any]) -> list[str]:
    return [key for key in ONE_OF if values.get(key) is not None]


def overrides_of(attrs: dict[str, Any]) -> dict[str, Decimal]:
    return {name: attrs[name] for name in SPECS if attrs.get(name) is not None}


def _errors_at(prefix: str, serializer: serializers.Serializer) -> InputError:
    flat: dict[str, list[str]] = {}
    for field, messages in serializer.errors.items():
        if isinstance(messages, dict):
            for sub, sub_messages in messages.items():
                flat[f"{prefix}.{field}.{sub}"] = [str(m) for m in sub_messages]
        else:
            flat[f"{prefix}.{field}"] = [str(m) for m in messages]
    return InputError(flat)


def configuration_parse(data: Any) -> TcoConfiguration:
    """Either an option from the configurations endpoint or a configuration by its totals; a
    figure the model refuses is a 400 naming it."""
    try:
        return _configuration(data)
    except TcoInputError as exc:
        raise InputError({f"configuration.{exc.field}": [text(exc.message)]}) from exc


def _configuration(data: Any) -> TcoConfiguration:
    if not isinstance(data, dict):
        raise InputError({"configuration": [_("Expected a JSON object.")]})
    if "totals" in data:
        serializer = OptionConfigurationInput(data=data)
        if not serializer.is_valid():
            raise _errors_at("configuration", serializer)
        return _from_option(serializer.validated_data)
    serializer = TotalsConfigurationInput(data=data)
    if not serializer.is_valid():
        raise _errors_at("configuration", serializer)
    values = serializer.validated_data
    currency = values["currency"]
    managed = values.get("managed_monthly_price")
    return TcoConfiguration(
        servers=values["servers"],
        gpus_per_server=values["gpus_per_server"],
        gpu_model=values.get("gpu_model") or None,
        power_w=values["power_w"],
        price=Money(values["price"], currency),
        rack_units=values["rack_units"],
        managed_monthly_price=None if managed is None else Money(managed, currency),
        provisioned_w=values.get("provisioned_w"),
    )


def _per_server(total: Decimal, servers: int) -> Decimal:
    return total / servers


def _from_option(values: dict[str, Any]) -> TcoConfiguration:
    servers = values["servers"]
    totals = values["totals"]
    currency = totals["currency"]
    gpus = totals["gpus"]
    if gpus % servers or totals["rack_units"] % servers:
        raise InputError(
            {"configuration.totals": [_("GPUs and rack units must divide evenly by servers.")]}
        )
    gpu_names = [part["name"] for part in values["parts"] if part["kind"] == "gpu"]
    managed = totals.get("managed_monthly_price")
    draw_w, provisioned_w = power_per_server(
        totals["power_w"],
        totals.get("power_sized_w") or totals["power_w"],
        totals.get("cluster_power_w") or 0,
        servers,
    )
    return TcoConfiguration(
        servers=servers,
        gpus_per_server=gpus // servers,
        gpu_model=gpu_names[0] if gpu_names else None,
        power_w=draw_w,
        provisioned_w=provisioned_w,
        price=Money(_per_server(totals["price"], servers), currency),
        rack_units=totals["rack_units"] // servers,
        managed_monthly_price=None
        if managed is None
        else Money(_per_server(managed, servers), currency),
    )
