"""The result page's cost section, from the engine's own objects (``TcoResult``, ``JobCost``,
``ManagedOffer``, ``Money``): the totals of each way to pay, the chart, the cost by category
and year, the sensitivity, the host's offer and one run of the job.

Each amount is the engine's, rounded to the cent once (``Money.rounded``): the figure the API
states, so the page, the checklist PDF and the API agree.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, ngettext

from engine.commerce.service_tiers import ServiceTier
from engine.tco import JobCost, ManagedOffer, MarketBand, TcoResult, Way
from gpuquote.core.formatting import money_format, number_localized
from quotes.advice.labels import (
    CATEGORY_LABELS,
    MARKET_LABELS,
    SENSITIVITY_TITLES,
    WAY_LABELS,
    WAY_SHORT_LABELS,
)
from quotes.advice.presenters import (
    assumption_to_dict,
    cents,
    cents_or_none,
    localized_text,
    number,
    service_tier_to_dict,
)
from quotes.pdf import charts


def duration_text(hours: float | None) -> str:
    if hours is None:
        return ""
    if hours < 48:
        count = number_localized(round(hours, 1))
        return ngettext("about %(n)s hour", "about %(n)s hours", max(1, round(hours))) % {
            "n": count
        }
    days = hours / 24
    if days < 366:
        return ngettext("about %(n)s day", "about %(n)s days", round(days)) % {
            "n": number_localized(round(days, 1))
        }
    years = days / 365
    return ngettext("about %(n)s year", "about %(n)s years", round(years)) % {
        "n": number_localized(round(years, 1))
    }


def job_view(job: JobCost) -> dict[str, Any]:
    """One run of the job on the chosen option: rented in the cloud, hosted month to month,
    or bought, the cheapest marked."""
    cards: list[dict[str, Any]] = [
        {
            "key": "cloud",
            "label": gettext("Cloud GPUs for the run"),
            "amount": cents_or_none(job.cloud),
            "note": ngettext(
                "%(n)s GPU-hour on demand", "%(n)s GPU-hours on demand", job.cloud_gpu_hours
            )
            % {"n": number_localized(job.cloud_gpu_hours)},
        },
        {
            "key": "managed",
            "label": gettext("Our managed hosting, no commitment"),
            "amount": cents(job.managed),
            "note": ngettext(
                "%(n)s month and the setup", "%(n)s months and the setup", job.managed_months
            )
            % {"n": job.managed_months},
        },
        {
            "key": "on_premises",
            "label": gettext("Buying the servers"),
            "amount": cents(job.buy),
            "note": gettext("including %(energy)s of electricity for the run")
            % {"energy": money_format(job.energy.amount, job.energy.currency, places=0)},
        },
    ]
    for card in cards:
        card["cheapest"] = card["key"] == str(job.cheapest)
    return {
        "duration": duration_text(job.hours),
        "gpus": job.gpus,
        "cards": [card for card in cards if card["amount"] is not None],
    }


def _band_view(band: MarketBand | None) -> dict[str, Any] | None:
    if band is None:
        return None
    return {
        "gpu_class": band.market_class,
        "name": band.name,
        "low": cents(band.low),
        "high": cents(band.high),
        "offers": band.offers,
        "oldest": band.oldest.isoformat(),
        "newest": band.newest.isoformat(),
        "sources": list(band.sources),
        "origin": gettext(band.origin),
    }


def managed_terms_view(
    offer: ManagedOffer,
    *,
    horizon_months: int,
    servers: int,
    service_tier: ServiceTier | None,
) -> dict[str, Any]:
    """The host's offer for every contract term, for all the servers, where each sits in the
    market band, and the support level's price on top."""
    signed = offer.term(horizon_months).months
    shown: dict[str, Any] = {
        "basis": str(offer.basis),
        "contract_months": signed,
        "servers": servers,
        "override_below_floor": offer.override_below_floor,
        "band": _band_view(offer.band),
        "terms": [
            {
                "months": fee.months,
                "monthly": cents(fee.monthly) * servers,
                "setup": cents(fee.setup) * servers,
                "per_gpu_month": cents(fee.per_gpu_month),
                "discount_pct": fee.discount * 100,
                "market": str(fee.market),
                "market_label": MARKET_LABELS.get(fee.market, str(fee.market)),
                "signed": fee.months == signed,
            }
            for fee in offer.terms
        ],
    }
    tier = service_tier_to_dict(service_tier, render=localized_text)
    if service_tier is not None and tier is not None:
        shown["service_tier"] = tier | {"all_servers": cents(service_tier.monthly) * servers}
    return shown


def _break_even_sentence(tco: TcoResult) -> str:
    years = tco.horizon_months // 12
    break_even = tco.break_even_month
    if break_even.vs_managed:
        sentence = gettext("Buying becomes cheaper than managed hosting from month %(month)s.") % {
            "month": break_even.vs_managed
        }
    else:
        sentence = ngettext(
            "Buying does not become cheaper than managed hosting within %(years)s year.",
            "Buying does not become cheaper than managed hosting within %(years)s years.",
            years,
        ) % {"years": years}
    if break_even.vs_cloud:
        sentence += " " + gettext("It becomes cheaper than cloud GPUs from month %(month)s.") % {
            "month": break_even.vs_cloud
        }
    return sentence


def tco_view(tco: TcoResult) -> dict[str, Any]:
    """The cost section of the result page and the checklist PDF, in the active language."""
    currency = tco.currency
    options = tco.options
    shown = [way for way in Way if way in options]  # the ways in the labels' order
    categories = []
    for key, label in CATEGORY_LABELS.items():
        values = [cents_or_none(options[way].by_category.get(key)) for way in shown]
        if any(value for value in values):  # not every option without it, nor all zero
            categories.append({"key": key, "label": label, "values": values})
    years = tco.horizon_months // 12
    be_sentence = _break_even_sentence(tco)
    totals_sentence = "; ".join(
        f"{WAY_LABELS[way]}: {money_format(cents(options[way].total), currency, places=0)}"
        for way in shown
        if way in charts.SERIES
    )
    words = charts.chart_text(tco, description=f"{totals_sentence}. {be_sentence}")

    def money(amount: Decimal) -> str:
        return money_format(amount, currency, places=0)

    # Two drawings of one chart: CSS shows the one made for the screen's width, so its labels
    # keep their size on a phone instead of shrinking to a third.
    chart = charts.cumulative_cost_svg(tco, text=words, money=money)  # the PDF's too
    chart_narrow = charts.cumulative_cost_svg(
        tco, text=words, money=money, element_id="tco-chart-narrow", frame=charts.NARROW
    )
    sensitivity: dict[str, dict[str, Any]] = {}
    for row in tco.sensitivity:
        group = sensitivity.setdefault(
            row.parameter,
            {"title": SENSITIVITY_TITLES.get(row.parameter, str(row.parameter)), "rows": []},
        )
        group["rows"].append(
            {
                "label": localized_text(row.label),
                "values": [cents_or_none(row.totals.get(way)) for way in shown],
                "break_even": row.break_even.vs_managed,
            }
        )
    return {
        "currency": currency,
        "horizon_months": tco.horizon_months,
        "years": years,
        "shown": [
            {"key": str(way), "label": WAY_SHORT_LABELS[way], "long": WAY_LABELS[way]}
            for way in shown
        ],
        "totals": [
            {
                "key": str(way),
                "label": WAY_LABELS[way],
                "total": cents(options[way].total),
                "per_gpu_hour": cents(options[way].cost_per_gpu_hour),
                "includes": localized_text(options[way].includes),
                "cheapest": way == tco.cheapest,
            }
            for way in shown
        ],
        "categories": categories,
        "chart": chart,
        "chart_narrow": chart_narrow,
        "chart_summary": f"{totals_sentence}. {be_sentence}",
        "break_even_sentence": be_sentence,
        "yearly_rows": [
            {
                "year": year,
                "values": [cents(options[way].monthly_cumulative[year * 12 - 1]) for way in shown],
            }
            for year in range(1, years + 1)
        ],
        "sensitivity": list(sensitivity.values()),
        "legend": [
            {"label": WAY_LABELS[way], "style": style}
            for way, style in charts.SERIES.items()
            if way in options
        ],
        "facility_energy_kwh_per_year": number(tco.facility_energy_kwh_per_year, 1),
        "co2e_kg_per_year": number(tco.co2e_kg_per_year, 1),
        "assumptions": [
            assumption_to_dict(item, currency, render=localized_text) for item in tco.assumptions
        ],
    }
