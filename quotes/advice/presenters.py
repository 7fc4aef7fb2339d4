"""Engine results -> plain JSON-ready dicts, messages rendered in the active language.

The one translation of the engine's output, at the edge: the REST API returns these dicts and the
result page and the PDFs render them, each in its reader's language when it is shown (a stored
result keeps the engine's objects, not these dicts), so every screen shows the same numbers and
words. Money is a decimal string next to its currency; memory in GB (10^9 bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import get_language, gettext_lazy

from catalog.selectors.cloud_offers import CloudMarket, CloudOfferQuote
from engine.advice.recommendation import Recommendation
from engine.assumptions import SPECS, Assumption, unit_message
from engine.build.builder import BuildResult, BuiltOption, Tier
from engine.commerce.exchange import DatedRate, convert, rates_involved
from engine.commerce.service_tiers import COVERAGE_LABELS, ServiceTier
from engine.i18n import Message
from engine.money import Money, round_money
from engine.performance.monitoring import MonitoringPlan
from engine.performance.results import Performance
from engine.sizing import Explanation, MemoryBreakdown, Sizing
from engine.tco import BreakEven, JobCost, ManagedOffer, OptionCost, TcoResult
from engine.workload.registry import ARCHITECTURE_FIELDS, ModelEntry
from gpuquote.core.formatting import money_format, number_localized
from gpuquote.core.translated import gettext, ngettext
from quotes.advice.result import AdviceResult

Render = Callable[[Message], str]


def text(message: Message) -> str:
    """An engine message in the active language, its numbers as Python writes them (the API's
    sentences); a counted sentence in the form its count asks for."""
    return message.render(gettext, ngettext)


def localized_text(message: Message) -> str:
    """An engine message in the active language, its numbers and money in the locale's format
    (``24,6``, ``5 000 €`` in French): what pages and PDFs show."""
    params = {key: _localized_param(value) for key, value in message.params.items()}
    template = message.template_for(gettext, ngettext)
    return template % params if params else template


def _localized_param(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Money):
        return money_format(value.amount, value.currency, places=0)
    if isinstance(value, Message):
        return localized_text(value)
    if isinstance(value, tuple | list):
        return ", ".join(_localized_param(item) for item in value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float | Decimal):
        return number_localized(value)
    return str(value)


def amount(money: Money | None) -> str | None:
    return None if money is None else str(round_money(money.amount))


def number(value: float | Decimal, places: int = 2) -> float:
    """A physical quantity for JSON: rounded for people, never money."""
    return round(float(value), places)


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
            {
                "name": item.name,
                "label": render(item.label),
                "value": format(item.value.normalize(), "f"),
                **assumption_words(item, result.currency, render),
                "overridden": item.overridden,
            }
            for item in result.assumptions
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


def _fraction(value: Decimal) -> str:
    """A share as a plain decimal string ("0.2"), however many places it was stored with."""
    return format(value.normalize(), "f")


# Where a managed-hosting fee sits in the band of dated public offers for its GPU class.
MARKET_LABELS = {
    "below": gettext_lazy("below the market"),
    "within": gettext_lazy("within the market"),
    "above": gettext_lazy("above the market"),
    "unknown": gettext_lazy("no public offer to compare"),
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
        "margin": _fraction(offer.margin),
        "cost_of_capital": _fraction(offer.cost_of_capital),
        "power_included": offer.power_included,
        "override": amount(offer.override),
        "override_below_floor": offer.override_below_floor,
        "terms": [
            {
                "months": fee.months,
                "monthly": amount(fee.monthly),
                "setup": amount(fee.setup),
                "per_gpu_month": amount(fee.per_gpu_month),
                "floor": amount(fee.floor),
                "discount": _fraction(fee.discount),
                "floored": fee.floored,
                "market": str(fee.market),
                "cost": {
                    "amortisation": amount(fee.cost.amortisation),
                    "power": amount(fee.cost.power),
                    "space": amount(fee.cost.space),
                    "staff": amount(fee.cost.staff),
                    "support": amount(fee.cost.support),
                    "network": amount(fee.cost.network),
                    "total": amount(fee.cost.total),
                },
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


# --- Sizing ------------------------------------------------------------------------------------


def _memory(breakdown: MemoryBreakdown) -> dict[str, float]:
    return {
        "weights": number(breakdown.weights),
        "gradients": number(breakdown.gradients),
        "optimizer_states": number(breakdown.optimizer_states),
        "activations": number(breakdown.activations),
        "kv_cache": number(breakdown.kv_cache),
        "overhead": number(breakdown.overhead),
        "total": number(breakdown.total),
    }


def explanations_to_list(
    explanations: Sequence[Explanation], render: Render = text
) -> list[dict[str, str]]:
    return [
        {"key": item.key, "text": render(item.message), "source": item.source}
        for item in explanations
    ]


def sizing_to_dict(sizing: Sizing, *, render: Render = text) -> dict[str, Any]:
    interconnect = sizing.interconnect
    return {
        "memory_gb": _memory(sizing.memory_gb),
        "memory_per_gpu_gb": _memory(sizing.memory_per_gpu_gb),
        "gpus": sizing.gpus,
        "min_gpus": sizing.min_gpus,
        "fits": sizing.fits,
        "training_flops": sizing.training_flops,
        "forward_flops": sizing.forward_flops,
        "backward_flops": sizing.backward_flops,
        "training_hours": None if sizing.training_hours is None else number(sizing.training_hours),
        "mfu": sizing.mfu,
        "gpus_for_deadline": sizing.gpus_for_deadline,
        "tokens_per_second": None
        if sizing.tokens_per_second is None
        else number(sizing.tokens_per_second, 1),
        "gpus_for_target": sizing.gpus_for_target,
        "images_per_second": None
        if sizing.images_per_second is None
        else number(sizing.images_per_second, 3),
        "system_ram_gb": number(sizing.system_ram_gb),
        "storage_gb": number(sizing.storage_gb),
        "storage_read_mbs": number(sizing.storage_read_mbs),
        "cpu_cores": sizing.cpu_cores,
        "nodes": sizing.nodes,
        "interconnect": None
        if interconnect is None
        else {"fabric": interconnect.fabric, "gbps_per_gpu": interconnect.gbps_per_gpu},
        "large_project": sizing.large_project,
        "model_sharded": sizing.model_sharded,
        "explanations": explanations_to_list(sizing.explanations, render),
    }


def model_entry_to_dict(entry: ModelEntry) -> dict[str, Any]:
    arch = entry.architecture
    return {
        "id": entry.id,
        "name": entry.name,
        "family": entry.family,
        "parameters": entry.parameters,
        "parameters_billions": number(entry.parameters / 1e9, 3),
        "active_parameters": entry.active_parameters,
        "modality": str(entry.modality),
        "license": entry.license,
        "sources": list(entry.sources),
        "architecture": {name: getattr(arch, name) for name in ARCHITECTURE_FIELDS},
    }


# --- What an option delivers --------------------------------------------------------------------


def performance_to_dict(performance: Performance, *, render: Render = text) -> dict[str, Any]:
    """Per-user decode speed and time to first token, images/s, training time against the
    deadline and the software stack of an option; ``lines`` are the short answers to show."""
    serving, images, training, software = (
        performance.serving,
        performance.images,
        performance.training,
        performance.software,
    )
    return {
        "gpu": performance.gpu_name,
        "gpus": performance.gpus,
        "serving": None
        if serving is None
        else {
            "gpus_per_replica": serving.gpus_per_replica,
            "replicas": serving.replicas,
            "users": serving.users,
            "users_per_replica": serving.users_per_replica,
            "prompt_tokens": serving.prompt_tokens,
            "answer_tokens": serving.answer_tokens,
            "tokens_per_second_per_user": number(serving.tokens_per_second_per_user, 1),
            "tokens_per_second": number(serving.tokens_per_second, 1),
            "time_to_first_token_s": number(serving.time_to_first_token_s, 3),
            "memory_bound": serving.memory_bound,
            "speed": str(serving.speed),
            "first_token": str(serving.first_token),
        },
        "images": None
        if images is None
        else {
            "images_per_second": number(images.images_per_second, 3),
            "seconds_per_image": number(images.seconds_per_image, 2),
            "steps": images.steps,
            "flops_per_image": images.flops_per_image,
        },
        "training": None
        if training is None
        else {
            "hours": number(training.hours, 1),
            "deadline_days": training.deadline_days,
            "meets_deadline": training.meets_deadline,
        },
        "software": None
        if software is None
        else {
            "vendor": software.vendor,
            "platform": software.platform,
            "statement": render(software.statement),
            "sources": list(software.sources),
            "seen_on": software.seen_on.isoformat(),
            "stack": [
                {"key": line.key, "text": render(line.text), "sources": list(line.sources)}
                for line in software.lines
            ],
        },
        "monitoring": monitoring_to_dict(performance.monitoring, render=render),
        "lines": [render(line) for line in performance.lines],
        "explanations": explanations_to_list(performance.explanations, render),
    }


def monitoring_to_dict(
    plan: MonitoringPlan | None, *, render: Render = text
) -> dict[str, Any] | None:
    """What to watch on an option's servers and when to alert (the customer's numbers in the
    alerts: GB = 10^9 bytes, W, °C), the pipeline, and what the host watches in managed hosting."""
    if plan is None:
        return None
    return {
        "vendor": plan.vendor,
        "seen_on": plan.seen_on.isoformat(),
        "stack": [
            {"key": step.key, "text": render(step.text), "sources": list(step.sources)}
            for step in plan.stack
        ],
        "watches": [
            {
                "key": watch.key,
                "metric": watch.metric,
                "what": render(watch.what),
                "alert": render(watch.alert),
                "threshold": None if watch.threshold is None else str(watch.threshold),
                "unit": watch.unit,
                "sources": list(watch.sources),
            }
            for watch in plan.watches
        ],
        "host_watches": [render(message) for message in plan.host_watches],
    }


# --- Configurations ----------------------------------------------------------------------------


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


# --- A whole advice result ---------------------------------------------------------------------


def _defaults(
    assumptions: Sequence[Assumption], currency: str, render: Render
) -> dict[str, dict[str, str]]:
    return {
        item.name: {
            "value": format(item.value.normalize(), "f"),
            **assumption_words(item, currency, render),
        }
        for item in assumptions
    }


def job_dict(result: AdviceResult) -> dict[str, Any]:
    """The ``job`` entry of a TCO answer (as ``POST /api/v1/tco/`` gives it)."""
    return {"job": job_to_dict(result.job)}


def result_to_dict(result: AdviceResult, *, render: Render = localized_text) -> dict[str, Any]:
    """An advice result in the active language: what the result page and the checklist PDF show,
    rendered when they are (the stored result holds no words), numbers written the reader's
    way."""
    tco = result.tco
    return {
        "sizing": sizing_to_dict(result.sizing, render=render),
        "build": build_to_dict(
            result.build, result.price_ages, exchange_rates=result.exchange_rates, render=render
        ),
        "tco": None if tco is None else tco_to_dict(tco, render=render) | job_dict(result),
        "on_recommended": None
        if result.on_recommended is None
        else sizing_to_dict(result.on_recommended, render=render),
        "on_workstation": None
        if result.on_workstation is None
        else sizing_to_dict(result.on_workstation, render=render),
        "defaults": _defaults(result.defaults, result.inputs.currency, render),
        "performance": {
            str(tier): performance_to_dict(found, render=render)
            for tier, found in result.performance.items()
        },
    }


def cloud_offer_to_dict(offer: CloudOfferQuote) -> dict[str, Any]:
    """One provider's offer as published (per GPU-hour, its currency; 4 places, not rounded)."""
    return {
        "provider": offer.provider,
        "instance": offer.instance,
        "region": offer.region,
        "gpu_count": offer.gpu_count,
        "price_per_gpu_hour": str(offer.price_per_gpu_hour.amount),
        "currency": offer.price_per_gpu_hour.currency,
        "spot": offer.spot,
        "observed_on": offer.observed_on.isoformat(),
        "source": offer.source_name,
    }


def market_offers_to_list(market: CloudMarket | None) -> list[dict[str, Any]]:
    """The cheapest on-demand offers for the GPU, cheapest first (empty without offers)."""
    return [] if market is None else [cloud_offer_to_dict(offer) for offer in market.on_demand]


def reserved_cloud_price_to_dict(market: CloudMarket | None) -> dict[str, Any] | None:
    """The cheapest reserved cloud price recorded for the GPU, or ``None``."""
    quote = None if market is None else market.reserved
    if quote is None:
        return None
    return {
        "provider": quote.provider,
        "commitment": quote.commitment,
        "price_per_gpu_hour": str(quote.price_per_gpu_hour.amount),
        "currency": quote.price_per_gpu_hour.currency,
        "observed_on": quote.observed_on.isoformat(),
        "source": quote.source,
        "stale": quote.stale,
    }


def cloud_market_panel(
    market: CloudMarket | None,
    *,
    gpu_name: str,
    currency: str,
    rates: Mapping[str, DatedRate],
) -> dict[str, Any] | None:
    """The result page's market panel (templates/wizard/_market_offers.html): the cheapest
    on-demand offers as published (Money, a date and the source of each), each with its price in
    the page's ``currency`` when it differs (converted at ``rates``, the day's), and the cheapest
    reserved price; ``None`` when there is nothing to show."""
    if market is None or not (market.on_demand or market.reserved):
        return None
    rows = [
        {
            "offer": offer,
            "converted": None
            if offer.price_per_gpu_hour.currency == currency
            else convert(offer.price_per_gpu_hour, currency, rates),
        }
        for offer in market.on_demand
    ]
    used = rates_involved(
        rates.values(), (offer.price_per_gpu_hour.currency for offer in market.on_demand), currency
    )
    return {
        "gpu_name": gpu_name,
        "offers": rows,
        "cheapest": rows[0] if rows else None,
        "reserved": market.reserved,
        "reserved_years": None
        if market.reserved is None
        else {"reserved_1y": 1, "reserved_3y": 3}.get(market.reserved.commitment),
        "currency": currency,
        "exchange_rates": [
            {
                "currency": rate.currency,
                "per_eur": number_localized(rate.per_eur),
                "source": gettext(rate.source),
            }
            for rate in used
        ],
    }
