"""Engine results -> plain JSON-ready dicts, messages rendered in the active language.

The one translation of the engine's output: the REST API returns these dicts, the wizard's
result page and the PDFs render them and quotes store them, so every screen shows the same
numbers and words. Money is a decimal string next to its currency; memory in GB (10^9 bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext

from quotes.engine.i18n import Message
from quotes.engine.money import Money, round_money
from quotes.engine.tco import BreakEven, OptionCost, TcoResult


def text(message: Message) -> str:
    return message.render(gettext)


def amount(money: Money | None) -> str | None:
    return None if money is None else str(round_money(money.amount))


def number(value: float | Decimal, places: int = 2) -> float:
    """A physical quantity for JSON: rounded for people, never money."""
    return round(float(value), places)


def _break_even(break_even: BreakEven) -> dict[str, int | None]:
    return {
        "vs_managed": break_even.vs_managed,
        "vs_cloud": break_even.vs_cloud,
        "vs_cloud_reserved": break_even.vs_cloud_reserved,
    }


def _option_cost(cost: OptionCost) -> dict[str, Any]:
    return {
        "currency": cost.total.currency,
        "total": amount(cost.total),
        "by_category": {name: amount(money) for name, money in cost.by_category.items()},
        "monthly_cumulative": [amount(m) for m in cost.monthly_cumulative],
        "yearly": [amount(m) for m in cost.yearly],
        "npv": amount(cost.npv),
        "cost_per_gpu_hour": amount(cost.cost_per_gpu_hour),
        "includes": text(cost.includes),
    }


def _totals(totals: Mapping[str, Money]) -> dict[str, str | None]:
    return {str(option): amount(money) for option, money in totals.items()}


def tco_to_dict(result: TcoResult) -> dict[str, Any]:
    return {
        "currency": result.currency,
        "horizon_months": result.horizon_months,
        "utilization": str(result.utilization),
        "options": {str(option): _option_cost(cost) for option, cost in result.options.items()},
        "break_even_month": _break_even(result.break_even_month),
        "cheapest": str(result.cheapest),
        "sensitivity": [
            {
                "parameter": str(row.parameter),
                "value": str(row.value),
                "label": text(row.label),
                "totals": _totals(row.totals),
                "break_even_month": _break_even(row.break_even),
            }
            for row in result.sensitivity
        ],
        "it_energy_kwh_per_year": number(result.it_energy_kwh_per_year, 1),
        "facility_energy_kwh_per_year": number(result.facility_energy_kwh_per_year, 1),
        "co2e_kg_per_year": number(result.co2e_kg_per_year, 1),
        "book_values": [
            {
                "year": row.year,
                "depreciation": amount(row.depreciation),
                "book_value": amount(row.book_value),
            }
            for row in result.book_values
        ],
        "assumptions": [
            {
                "name": item.name,
                "label": text(item.label),
                "value": format(item.value.normalize(), "f"),
                "unit": item.unit,
                "source": item.source,
                "overridden": item.overridden,
            }
            for item in result.assumptions
        ],
        "explanations": [text(message) for message in result.explanations],
    }
