"""The TCO answer as JSON: the ways to pay over the horizon, the assumptions behind them, the
host's managed offer and service tier, one run of the job, the recommendation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import get_language

from engine.advice.recommendation import Recommendation
from engine.assumptions import SPECS, Assumption, unit_message
from engine.commerce.service_tiers import COVERAGE_LABELS, ServiceTier
from engine.i18n import Message
from engine.money import Money
from engine.tco import BreakEven, JobCost, ManagedOffer, OptionCost, ProviderCost, TcoResult
from gpuquote.core.translated import gettext
from quotes.advice.presenters.words import Render, amount, fraction, number, text


def assumption_words(item: Assumption, currency: str, render: Render = text) -> dict[str, str]:
    """An assumption's unit in the reader's language, and its source.

    ``citation`` is the source in the active language: a built-in source has a translation
    (GPUQuote's words translated, the titles, codes and figures it cites kept as published); a
    source a staff member wrote in the admin has none and stays as written. ``citation_lang``
    is "" when the citation was translated (it reads in the page's language) and "en" when it
    was not (the English text; a page marks it ``lang="en"``). ``conversion`` is the translated
    note of a currency conversion ("" if none); ``source`` the English source and that note
    together."""
    conversion = "" if item.conversion is None else render(item.conversion)
    # gettext("") would answer the catalog's header.
    citation = gettext(item.source) if item.source else ""
    return {
        "unit": render(unit_message(item.name, currency)) if item.name in SPECS else item.unit,
        "citation": citation,
        "citation_lang": "" if citation != item.source else "en",
        "conversion": conversion,
        "source": f"{item.source}; {conversion}" if conversion else item.source,
    }


def assumption_to_dict(item: Assumption, currency: str, *, render: Render = text) -> dict[str, Any]:
    """One assumption of a cost comparison: its label, value, unit and source."""
    return {
        "name": item.name,
        "label": render(item.label),
        "value": format(item.value.normalize(), "f"),
        **assumption_words(item, currency, render),
        "overridden": item.overridden,
    }


def _break_even(break_even: BreakEven) -> dict[str, int | None]:
    return {
        "vs_managed": break_even.vs_managed,
        "vs_cloud": break_even.vs_cloud,
        "vs_cloud_reserved": break_even.vs_cloud_reserved,
    }


def _option_cost(cost: OptionCost, render: Render) -> dict[str, Any]:
    return {
        "currency": cost.total.currency,
        "total": amount(cost.total),
        "by_category": {name: amount(money) for name, money in cost.by_category.items()},
        "monthly_cumulative": [amount(m) for m in cost.monthly_cumulative],
        "yearly": [amount(m) for m in cost.yearly],
        "npv": amount(cost.npv),
        "cost_per_gpu_hour": amount(cost.cost_per_gpu_hour),
        "includes": render(cost.includes),
    }


def _totals(totals: Mapping[str, Money]) -> dict[str, str | None]:
    return {str(option): amount(money) for option, money in totals.items()}


def tco_to_dict(result: TcoResult, *, render: Render = text) -> dict[str, Any]:
    """``render``: how the sentences read (``localized_text`` for a page, ``text`` for the API)."""
    return {
        "currency": result.currency,
        "horizon_months": result.horizon_months,
        "utilization": str(result.utilization),
        "options": {
            str(option): _option_cost(cost, render) for option, cost in result.options.items()
        },
        "break_even_month": _break_even(result.break_even_month),
        "cheapest": str(result.cheapest),
        "sensitivity": [
            {
                "parameter": str(row.parameter),
                "value": str(row.value),
                "label": render(row.label),
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
            assumption_to_dict(item, result.currency, render=render) for item in result.assumptions
        ],
        "explanations": [render(message) for message in result.explanations],
        "managed_offer": managed_offer_to_dict(result.managed_offer, result.horizon_months),
        "service_tier": service_tier_to_dict(result.service_tier, render=render),
    }


def service_tier_to_dict(
    tier: ServiceTier | None, *, render: Render = text, is_default: bool | None = None
) -> dict[str, Any] | None:
    """A managed-hosting service tier: its name in the active language, what the host does,
    and its price per server and month (``is_default``: whether the catalog offers it when
    none is chosen, where the caller knows it)."""
    if tier is None:
        return None
    shown = {
        "code": tier.code,
        "name": tier.name(get_language()),
        "coverage": str(tier.coverage),
        "coverage_label": render(COVERAGE_LABELS[tier.coverage]),
        "response_minutes": tier.response_minutes,
        "replacement_hours": tier.replacement_hours,
        "os_driver_upkeep": tier.os_driver_upkeep,
        "monitoring": tier.monitoring,
        "backups": tier.backups,
        "monthly": amount(tier.monthly),
        "currency": tier.monthly.currency,
        "included_operations": [render(message) for message in tier.included_operations()],
    }
    if is_default is not None:
        shown["is_default"] = is_default
    return shown


def recommendation_to_dict(
    found: Recommendation | None, *, render: Callable[[Message], str] = text
) -> dict[str, Any] | None:
    """The answer first, in the active language: which option, why, and its cost each way.
    ``render``: how the reasons read (``localized_text`` for a page: numbers in the locale's
    format; plain for the API)."""
    if found is None:
        return None
    return {
        "tier": str(found.tier),
        "servers": found.servers,
        "gpus": found.gpus,
        "gpu": found.gpu_name,
        "reasons": [render(reason) for reason in found.reasons],
        "buy": amount(found.buy),
        "managed_monthly": amount(found.managed_monthly),
        "managed_months": found.managed_months,
        "cloud_monthly": amount(found.cloud_monthly),
        "job": job_to_dict(found.job),
        "cheapest": None if found.cheapest is None else str(found.cheapest),
        "cheapest_amount": amount(found.cheapest_amount),
        "horizon_months": found.horizon_months,
        "currency": found.buy.currency,
    }


def job_to_dict(job: JobCost | None) -> dict[str, Any] | None:
    """One run of the job rented (cloud, the host month to month) or bought."""
    if job is None:
        return None
    return {
        "hours": number(job.hours, 1),
        "gpus": job.gpus,
        "cloud": amount(job.cloud),
        "cloud_gpu_hours": job.cloud_gpu_hours,
        "managed": amount(job.managed),
        "managed_months": job.managed_months,
        "buy": amount(job.buy),
        "energy": amount(job.energy),
        "cheapest": str(job.cheapest),
    }


def _cost_lines(cost: ProviderCost) -> dict[str, Any]:
    """One server's cost per month, by line (the host's, or the customer's own)."""
    return {
        "amortisation": amount(cost.amortisation),
        "power": amount(cost.power),
        "space": amount(cost.space),
        "staff": amount(cost.staff),
        "support": amount(cost.support),
        "network": amount(cost.network),
        "total": amount(cost.total),
    }


def managed_offer_to_dict(offer: ManagedOffer | None, horizon_months: int) -> dict[str, Any] | None:
    """The host's price of one server for every contract term, and the term the horizon signs."""
    if offer is None:
        return None
    band = offer.band
    return {
        "basis": str(offer.basis),
        "currency": offer.currency,
        "gpus_per_server": offer.gpus_per_server,
        "contract_months": offer.term(horizon_months).months,
        "margin": fraction(offer.margin),
        "cost_of_capital": fraction(offer.cost_of_capital),
        "power_included": offer.power_included,
        "override": amount(offer.override),
        "override_below_floor": offer.override_below_floor,
        "occupancy": fraction(offer.occupancy),
        "terms": [
            {
                "months": fee.months,
                "monthly": amount(fee.monthly),
                "setup": amount(fee.setup),
                "per_gpu_month": amount(fee.per_gpu_month),
                "floor": amount(fee.floor),
                "discount": fraction(fee.discount),
                "floored": fee.floored,
                "market": str(fee.market),
                "cost": _cost_lines(fee.cost),
                "renewal": amount(fee.renewal),
                "paid_back": fee.paid_back,
                "customer": _cost_lines(fee.customer),
            }
            for fee in offer.terms
        ],
        "market_band": None
        if band is None
        else {
            "gpu_class": band.market_class,
            "name": band.name,
            "low": amount(band.low),
            "high": amount(band.high),
            "offers": band.offers,
            "oldest": band.oldest.isoformat(),
            "newest": band.newest.isoformat(),
            "sources": list(band.sources),
            "origin": gettext(band.origin),
        },
    }
