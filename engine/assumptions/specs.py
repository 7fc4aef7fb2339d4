"""What each assumption name means: its unit, translatable label and bounds, in canonical order.

A unit is a translatable template too (``%(currency)s/kWh``): ``unit_message`` gives it for a
currency, the shell renders it in the reader's language and ``Assumption.unit`` keeps the
English words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..i18n import Message, gettext_noop


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a name means: its unit (a template, ``%(currency)s`` for the currency), label and
    bounds."""

    unit: str
    label: str
    minimum: Decimal
    maximum: Decimal | None
    money: bool = False
    integral: bool = False


def _spec(
    unit: str,
    label: str,
    minimum: str = "0",
    maximum: str | None = None,
    *,
    money: bool = False,
    integral: bool = False,
) -> _Spec:
    return _Spec(
        unit=unit,
        label=label,
        minimum=Decimal(minimum),
        maximum=None if maximum is None else Decimal(maximum),
        money=money,
        integral=integral,
    )


FRACTION = gettext_noop("fraction (0.10 = 10%%)")
FRACTION_PER_YEAR = gettext_noop("fraction per year (0.08 = 8%%)")

# Canonical order: the order in which assumptions are listed to users.
SPECS: Mapping[str, _Spec] = MappingProxyType(
    {
        "electricity_price_per_kwh": _spec(
            gettext_noop("%(currency)s/kWh"), gettext_noop("Electricity price"), money=True
        ),
        "pue": _spec(
            gettext_noop("ratio"),
            gettext_noop("Power usage effectiveness (facility power / IT power)"),
            "1",
            "3",
        ),
        "idle_power_fraction": _spec(
            FRACTION, gettext_noop("Idle draw as a share of full-load power"), "0", "1"
        ),
        "grid_carbon_kg_per_kwh": _spec(
            gettext_noop("kg CO2e/kWh"), gettext_noop("Grid carbon intensity"), "0", "2"
        ),
        "colocation_per_kw_month": _spec(
            gettext_noop("%(currency)s/kW/month"),
            gettext_noop("Colocation rent per provisioned kW (full-load power) per month"),
            money=True,
        ),
        "staff_cost_per_year": _spec(
            gettext_noop("%(currency)s/year"),
            gettext_noop("Fully loaded cost of one systems engineer per year"),
            money=True,
        ),
        "staff_fte_per_server": _spec(
            gettext_noop("FTE/server"),
            gettext_noop("Staff time per server you run yourself"),
            "0",
            "5",
        ),
        "managed_staff_fte_per_server": _spec(
            gettext_noop("FTE/server"),
            gettext_noop("Staff time per server that stays with you when it is hosted"),
            "0",
            "5",
        ),
        "installation_cost": _spec(
            gettext_noop("%(currency)s/server"),
            gettext_noop("Installation and integration, one-off, per server"),
            money=True,
        ),
        "support_pct_per_year": _spec(
            FRACTION,
            gettext_noop("Hardware support and maintenance per year, share of the price"),
            "0",
            "1",
        ),
        "spares_pct_per_year": _spec(
            FRACTION, gettext_noop("Spare parts per year, share of the price"), "0", "1"
        ),
        "insurance_pct_per_year": _spec(
            FRACTION, gettext_noop("Insurance per year, share of the price"), "0", "1"
        ),
        "network_per_server_month": _spec(
            gettext_noop("%(currency)s/server/month"),
            gettext_noop("Network uplink and transit per server per month"),
            money=True,
        ),
        "software_per_gpu_year": _spec(
            gettext_noop("%(currency)s/GPU/year"),
            gettext_noop("Software licences per GPU per year"),
            money=True,
        ),
        "depreciation_years": _spec(
            gettext_noop("years"), gettext_noop("Depreciation period (straight line)"), "1", "15"
        ),
        "residual_value_pct": _spec(
            FRACTION,
            gettext_noop("Residual value at the end of depreciation, share of the price"),
            "0",
            "1",
        ),
        "discount_rate": _spec(
            FRACTION_PER_YEAR,
            gettext_noop("Cost of capital used to discount cash flows (0 = no discounting)"),
            "0",
            "1",
        ),
        "managed_monthly_price": _spec(
            gettext_noop("%(currency)s/GPU/month"),
            gettext_noop("Managed-hosting fee per GPU per month, set by sales (month to month)"),
            money=True,
        ),
        "provider_margin_pct": _spec(
            FRACTION,
            gettext_noop("Host's margin, share of the managed-hosting fee"),
            "0",
            "0.9",
        ),
        "provider_cost_of_capital": _spec(
            FRACTION_PER_YEAR,
            gettext_noop("Host's cost of capital, to pay the hardware back over a contract"),
            "0",
            "1",
        ),
        "managed_discount_12m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 12-month contract"), "0", "1"
        ),
        "managed_discount_24m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 24-month contract"), "0", "1"
        ),
        "managed_discount_36m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 36-month contract"), "0", "1"
        ),
        "managed_power_included": _spec(
            gettext_noop("flag (1 = included, 0 = billed at the electricity price)"),
            gettext_noop("Power and cooling included in the managed-hosting fee"),
            "0",
            "1",
            integral=True,
        ),
        # The host's own cost base: its halls, power contract and fleet, apart from the customer's.
        "host_pue": _spec(
            gettext_noop("ratio"),
            gettext_noop("Host's power usage effectiveness (its own halls)"),
            "1",
            "3",
        ),
        "host_electricity_price_per_kwh": _spec(
            gettext_noop("%(currency)s/kWh"),
            gettext_noop("Host's electricity contract price (large consumer)"),
            money=True,
        ),
        "host_space_per_kw_month": _spec(
            gettext_noop("%(currency)s/kW/month"),
            gettext_noop("Host's space cost per provisioned kW per month, at cost"),
            money=True,
        ),
        "host_support_pct_per_year": _spec(
            FRACTION,
            gettext_noop("Host's spares and hardware support per year, share of the price"),
            "0",
            "1",
        ),
        "host_staff_fte_per_server": _spec(
            gettext_noop("FTE/server"),
            gettext_noop("Host's operations staff per server, at fleet scale"),
            "0",
            "5",
        ),
        "host_network_per_server_month": _spec(
            gettext_noop("%(currency)s/server/month"),
            gettext_noop("Host's network (uplink, transit) per server per month"),
            money=True,
        ),
        "host_hardware_life_years": _spec(
            gettext_noop("years"),
            gettext_noop("Years the host rents a server out before retiring it"),
            "1",
            "10",
        ),
        "host_residual_value_pct": _spec(
            FRACTION,
            gettext_noop("Host's resale value of a retired server, share of the price"),
            "0",
            "1",
        ),
        "host_fleet_occupancy": _spec(
            FRACTION,
            gettext_noop("Share of the host's servers rented out, on average"),
            "0.05",
            "1",
        ),
        "host_setup_cost_per_server": _spec(
            gettext_noop("%(currency)s/server"),
            gettext_noop("Host's installation cost per server (racking, cabling), one-off"),
            money=True,
        ),
        "host_setup_cost_per_gpu": _spec(
            gettext_noop("%(currency)s/GPU"),
            gettext_noop("Host's installation cost per GPU of the server (burn-in), one-off"),
            money=True,
        ),
        "cloud_price_per_gpu_hour": _spec(
            gettext_noop("%(currency)s/GPU-hour"),
            gettext_noop("Cloud price per GPU-hour, on demand"),
            money=True,
        ),
        "cloud_reserved_discount_pct": _spec(
            FRACTION,
            gettext_noop("Discount for reserving cloud GPUs for one year"),
            "0",
            "0.99",
        ),
        "usd_per_eur": _spec(
            "USD/EUR", gettext_noop("Exchange rate, US dollars per euro"), "0.01", "100"
        ),
        "gbp_per_eur": _spec(
            "GBP/EUR", gettext_noop("Exchange rate, pounds sterling per euro"), "0.01", "100"
        ),
    }
)

PER_MODEL = ("cloud_price_per_gpu_hour", "managed_monthly_price")


def unit_message(name: str, currency: str) -> Message:
    """The unit of the assumption ``name`` for ``currency``, to render in the reader's language
    (``EUR/kWh``, ``fraction (0.10 = 10%)``; ``fraction (0,10 = 10 %)`` in French)."""
    return Message(SPECS[name].unit, MappingProxyType({"currency": currency}))
