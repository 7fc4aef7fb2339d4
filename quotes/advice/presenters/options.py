"""The built configurations as JSON: parts with their price dates, totals, rule checks, and the
exchange rates their prices were converted at."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.build.builder import BuildResult, BuiltOption, Tier
from engine.build.cluster.single_points import single_points_of_failure
from engine.commerce.exchange import DatedRate, rates_involved
from engine.performance.results import Performance
from gpuquote.core.translated import gettext
from quotes.advice.presenters.performance import performance_to_dict
from quotes.advice.presenters.words import Render, amount, number, text


def option_to_dict(
    option: BuiltOption,
    price_ages: Mapping[str, Any] | None = None,
    performance: Mapping[Tier, Performance] | None = None,
    *,
    render: Render = text,
) -> dict[str, Any]:
    """``price_ages``: SKU -> (observed_on, stale), to date each price and flag stale ones.
    ``performance``: what each tier delivers; given, the option gets a ``performance`` object
    (null when its GPU is not known)."""
    totals = option.totals
    ages = price_ages or {}

    def age(sku: str) -> dict[str, Any]:
        found = ages.get(sku)
        if found is None:
            return {"price_date": None, "stale": False, "price_observed_in": None}
        return {
            "price_date": found.observed_on.isoformat(),
            "stale": found.stale,
            # The currency the price was observed in, when it was converted (else null).
            "price_observed_in": found.observed_in,
        }

    parts = [
        {
            "kind": line.kind,
            "sku": line.sku,
            "name": line.name,
            "quantity": line.quantity,
            "scope": line.scope,
            "role": line.role,
            "unit_price": amount(line.unit_price),
            **age(line.sku),
            "availability": str(line.availability),
            "lead_time_weeks": line.lead_time_weeks,
        }
        for line in option.parts
    ]
    body: dict[str, Any] = {
        "tier": str(option.tier),
        "servers": option.servers,
        "parts": parts,
        "stale_prices": any(part["stale"] for part in parts),
        "totals": {
            "gpus": totals.gpus,
            "vram_gb": number(totals.vram_gb),
            "ram_gb": totals.ram_gb,
            "storage_gb": number(totals.storage_gb),
            "power_w": totals.power_w,
            "power_sized_w": totals.power_sized_w,
            "rack_units": totals.rack_units,
            "cluster_power_w": totals.cluster_power_w,
            "price": amount(totals.price),
            "managed_monthly_price": amount(totals.managed_monthly_price),
            "currency": totals.currency,
        },
        "checks": [
            {
                "rule": check.rule,
                "passed": check.passed,
                "warning": check.warning,
                "detail": render(check.detail),
            }
            for check in option.checks
        ],
        "notes": [render(note) for note in option.notes],
        "single_points_of_failure": [
            {"role": point.role, "name": point.name, "label": render(point.label)}
            for point in single_points_of_failure(option)
        ],
    }
    if performance is not None:
        found = performance.get(option.tier)
        body["performance"] = None if found is None else performance_to_dict(found, render=render)
    return body


def build_to_dict(
    result: BuildResult,
    price_ages: Mapping[str, Any] | None = None,
    performance: Mapping[Tier, Performance] | None = None,
    *,
    exchange_rates: Iterable[DatedRate] = (),
    render: Render = text,
) -> dict[str, Any]:
    """``exchange_rates``: the rates prices observed in another currency were converted at; the
    answer names those its options' parts used."""
    return {
        "options": [
            option_to_dict(option, price_ages, performance, render=render)
            for option in result.options
        ],
        "unmet": [render(message) for message in result.unmet],
        "notes": [render(message) for message in result.notes],
        "budget_needed": amount(result.budget_needed),
        "exchange_rates": exchange_rates_to_list(exchange_rates, result.options, price_ages or {}),
    }


def exchange_rates_to_list(
    rates: Iterable[DatedRate], options: Iterable[BuiltOption], price_ages: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The rates the parts of ``options`` were converted at: per currency, its rate per euro as
    published, its day and its source (translated when it is a built-in one)."""
    options = tuple(options)
    if not options:
        return []
    observed = (
        getattr(price_ages.get(line.sku), "observed_in", None)
        for option in options
        for line in option.parts
    )
    return [
        {
            "currency": rate.currency,
            "per_eur": format(rate.per_eur, "f"),
            "rate_date": rate.rate_date.isoformat(),
            "source": gettext(rate.source),
        }
        for rate in rates_involved(rates, observed, options[0].totals.currency)
    ]
