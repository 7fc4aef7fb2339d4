"""Read-only shapes of the partner catalog API. Units are in the names; GB = 10^9 bytes.

Amounts, clocks and TFLOPS are decimal strings (``COERCE_DECIMAL_TO_STRING``): exact, as stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Chassis, Cpu, Gpu, Part, Price
from engine.build.parts import PartKind
from engine.money import CURRENCIES
from gpuquote.core.choices import values_of

if TYPE_CHECKING:
    from catalog.selectors.prices import CurrentPrices

STALE_HELP = "Observed more than PRICE_STALE_DAYS ago: check it before buying."


class ExchangeRateSerializer(serializers.Serializer):
    """A euro reference rate: ``per_eur`` units of ``currency`` for one euro."""

    currency = serializers.CharField(help_text="ISO 4217 code.")
    per_eur = serializers.CharField(
        help_text="Units of the currency per euro, a decimal string as published (1.0853)."
    )
    rate_date = serializers.DateField(help_text="The day of the rate (an annual average: its end).")
    source = serializers.CharField(  # type: ignore[assignment]  # a declared field (see below)
        help_text="Where the rate comes from."
    )


class PartPriceSerializer(serializers.Serializer):
    """A part's current purchase price in the requested currency."""

    amount = serializers.DecimalField(
        max_digits=12, decimal_places=2, help_text="Per unit, a decimal string."
    )
    currency = serializers.ChoiceField(choices=list(CURRENCIES))
    observed_on = serializers.DateField(help_text="When this price was observed.")
    stale = serializers.BooleanField(help_text=STALE_HELP)
    observed_currency = serializers.CharField(
        help_text="The currency the price was observed in: `currency` unless it was converted.",
    )
    exchange_rate = ExchangeRateSerializer(
        allow_null=True,
        help_text="The reference rate a price observed in another currency was converted at "
        "(null when it was not).",
    )


class _PricedPartSerializer(serializers.ModelSerializer):
    # Fields every part kind shares, and the current purchase price that the selector annotates
    # (``price_amount``, ``price_observed_on``, ``price_stale``) in the request's ``currency``,
    # which the view passes in the serializer context.

    name = serializers.CharField(source="__str__", read_only=True, help_text="Vendor and model.")
    # A declared field: the serializer's metaclass takes it out of the class body, so it never
    # replaces ``Field.source`` (the attribute the stubs see).
    source = serializers.CharField(  # type: ignore[assignment]
        read_only=True, help_text="Datasheet URL(s) of the specs."
    )
    price = serializers.SerializerMethodField(
        help_text="Current purchase price; null when the part has none in this currency."
    )

    COMMON_FIELDS = ("sku", "name", "vendor", "model", "source")

    @extend_schema_field(PartPriceSerializer(allow_null=True))
    def get_price(self, part: Part) -> dict[str, Any] | None:
        prices: CurrentPrices | None = self.context["prices"]
        found = None if prices is None else prices.by_part.get(part.pk)
        if prices is None or found is None:
            return None
        observed_in = found.age.observed_in
        return PartPriceSerializer(
            {
                "amount": found.amount.amount,
                "currency": found.amount.currency,
                "observed_on": found.age.observed_on,
                "stale": found.age.stale,
                "observed_currency": observed_in or found.amount.currency,
                "exchange_rate": None
                if observed_in is None
                else _rate_used(prices, observed_in, found.amount.currency),
            }
        ).data


def _rate_used(prices: CurrentPrices, observed_in: str, currency: str) -> object:
    """The rate that converted from ``observed_in`` into ``currency``: the side that is not the
    euro (the ECB publishes euro rates only)."""
    return prices.rates.get(observed_in) or prices.rates[currency]


class GpuSerializer(_PricedPartSerializer):
    """An offered GPU, its specifications and its current purchase price."""

    class Meta:
        model = Gpu
        fields = (
            *_PricedPartSerializer.COMMON_FIELDS,
            "architecture",
            "gpu_class",
            "form_factor",
            "memory_gb",
            "memory_bandwidth_gbs",
            "bf16_tflops",
            "fp8_tflops",
            "tdp_w",
            "nvlink_gbs",
            "ecc",
            "mig",
            "pcie_gen",
            "price",
        )
        read_only_fields = fields
        extra_kwargs = {
            "memory_gb": {"help_text": "GPU memory, GB = 10^9 bytes."},
            "memory_bandwidth_gbs": {"help_text": "GPU memory bandwidth, GB/s (GB = 10^9 bytes)."},
            "bf16_tflops": {"help_text": "Dense BF16/FP16 tensor TFLOPS, without sparsity."},
            "fp8_tflops": {"help_text": "Dense FP8 tensor TFLOPS; null when the GPU has no FP8."},
            "nvlink_gbs": {
                "help_text": "NVLink / fabric bandwidth per GPU, bidirectional GB/s "
                "(GB = 10^9 bytes); null when the card has no GPU-to-GPU link."
            },
            "mig": {"help_text": "Multi-instance GPU."},
        }


class CpuSerializer(_PricedPartSerializer):
    """An offered CPU, its specifications and its current purchase price."""

    class Meta:
        model = Cpu
        fields = (
            *_PricedPartSerializer.COMMON_FIELDS,
            "socket",
            "cores",
            "threads",
            "base_ghz",
            "boost_ghz",
            "tdp_w",
            "memory_channels",
            "max_memory_gb",
            "pcie_gen",
            "pcie_lanes",
            "server_grade",
            "price",
        )
        read_only_fields = fields
        extra_kwargs = {
            "max_memory_gb": {"help_text": "Most memory per socket, GB = 10^9 bytes."},
            "pcie_lanes": {"help_text": "PCIe lanes per socket."},
        }


class ChassisSerializer(_PricedPartSerializer):
    """An offered chassis (barebone server or tower), its specifications and purchase price."""

    class Meta:
        model = Chassis
        fields = (
            *_PricedPartSerializer.COMMON_FIELDS,
            "rack_mount",
            "rack_units",
            "gpu_slots",
            "accepts_sxm",
            "accepts_pcie",
            "accepts_oam",
            "max_gpu_tdp_w",
            "nvswitch",
            "nvlink_bridge",
            "pcie_switches",
            "cpu_sockets",
            "cpu_socket_type",
            "dimm_slots",
            "ddr_generation",
            "registered_memory",
            "nvme_bays",
            "m2_slots",
            "pcie_gen",
            "psu_count",
            "psu_w",
            "psu_redundant",
            "cooling",
            "max_system_power_w",
            "base_power_w",
            "price",
        )
        read_only_fields = fields


class CurrentPriceSerializer(serializers.ModelSerializer):
    """The current price of one part, for one price kind and currency."""

    sku = serializers.CharField(source="part.sku", read_only=True)
    part_kind = serializers.ChoiceField(
        source="part.kind", choices=values_of(PartKind), read_only=True
    )
    stale = serializers.BooleanField(read_only=True, help_text=STALE_HELP)

    class Meta:
        model = Price
        fields = (
            "sku",
            "part_kind",
            "price_kind",
            "amount",
            "currency",
            "observed_on",
            "source",
            "stale",
        )
        read_only_fields = fields
        extra_kwargs = {
            "price_kind": {
                "help_text": "purchase: one-off price per unit; managed_monthly: managed "
                "hosting per unit and month."
            },
            "amount": {"help_text": "Per unit (and month for managed_monthly), a decimal string."},
            "observed_on": {"help_text": "When this price was observed."},
            "source": {"help_text": "Where the price comes from: quote, price list or URL."},
        }
