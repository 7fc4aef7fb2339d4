"""The result page's context: an advice result rendered in the active language.

The result page and the checklist PDF show the same context (``result_context``), built from
the stored result only, through the presenters (``quotes.advice.presenters``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language, gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from engine.build import rules
from engine.build.builder import Tier
from engine.build.cluster.lines import LINE_ROLE_LABELS, LineRole
from engine.build.configuration import PartScope
from engine.commerce.service_tiers import monthly_with_service
from engine.tco import JobCost
from gpuquote.core.formatting import money_format, number_localized
from quotes.advice.answer import TIER_NAMES, WAY_NAMES, answer_context
from quotes.advice.checklist import checklist_evaluate
from quotes.advice.presenters import (
    MARKET_LABELS,
    localized_text,
    monitoring_to_dict,
    recommendation_to_dict,
    result_to_dict,
    text,
)
from quotes.advice.result import AdviceResult
from quotes.models import WizardResult
from quotes.pdf import charts
from quotes.wizard.forms import (
    REGION_NAMES,
    STEP_FORMS,
)
from quotes.wizard.result_choices import (
    differences,
    preference_view,
    rental_view,
    shared_performance,
)

TIER_LABELS = TIER_NAMES
TIER_HELP = {
    "budget": _("The cheapest configuration that passes every rule."),
    "balanced": _("The most computing power per unit of price, with comfort margins."),
    "performance": _("The fastest GPUs for the work, with comfort margins."),
}
OPTION_LABELS = WAY_NAMES
# Short forms for table columns and the chart's line labels.
OPTION_SHORT_LABELS = {
    "on_premises": _("Buy"),
    "managed": _("Managed"),
    "cloud": _("Cloud"),
    "cloud_reserved": _("Cloud, reserved"),
}
CATEGORY_LABELS = {
    "capital": _("Purchase of the servers"),
    "installation": _("Installation"),
    "power": _("Electricity"),
    "cooling": _("Cooling (PUE overhead)"),
    "space": _("Rack space"),
    "staff": _("Staff"),
    "support": _("Support"),
    "spares": _("Spare parts"),
    "insurance": _("Insurance"),
    "network": _("Network"),
    "software": _("Software"),
    "setup": _("Set-up fee"),
    "hosting_fees": _("Hosting fees"),
    "cloud": _("GPU-hours"),
}
MEMORY_LABELS = {
    "weights": _("Model weights"),
    "gradients": _("Gradients"),
    "optimizer_states": _("Optimizer states"),
    "activations": _("Activations"),
    "kv_cache": _("KV cache (context of each request)"),
    "overhead": _("Runtime overhead"),
}
DRIVE_ROLE_LABELS = {"boot": _("system"), "data": _("data")}
PART_KIND_LABELS = {
    "chassis": _("Chassis"),
    "gpu": _("GPU"),
    "cpu": _("CPU"),
    "memory": _("Memory"),
    "drive": _("Drive"),
    "nic": _("Network card"),
    "switch": _("Network switch"),
    "cable": _("Cable or optic"),
    "storage_server": _("Shared storage server"),
}
GOAL_LABELS = {
    "inference": pgettext_lazy("what the model is used for", "Running"),
    "fine_tuning": _("Fine-tuning"),
    "pretraining": _("Training from scratch"),
}
ENVIRONMENT_LABELS = {"experiment": _("experiment"), "production": _("production")}
SENSITIVITY_TITLES = {
    "electricity_price": _("If the electricity price changes"),
    "utilization": _("If the GPUs are busy more or less often"),
    "horizon_years": _("Over a shorter or longer period"),
}


# --- Session storage ------------------------------------------------------------------------------


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


def _money(currency: str):
    def fmt(amount: Decimal | str) -> str:
        return money_format(amount, currency, places=0)

    return fmt


def _role_label(role: str) -> str:
    """A part's role in the reader's language: a cluster role (leaf switch, uplink...) or a
    drive's (boot, data)."""
    if role in LINE_ROLE_LABELS:
        return text(LINE_ROLE_LABELS[LineRole(role)])
    return str(DRIVE_ROLE_LABELS.get(role, role))


def _total_quantity(line: Mapping[str, Any], servers: int) -> int:
    """How many to buy: a server part times the servers, a cluster part (switch, cable,
    storage server) once for the whole cluster."""
    quantity = int(line["quantity"])
    return quantity if line.get("scope") == PartScope.CLUSTER else quantity * servers


def _option_view(option: Mapping[str, Any], currency: str, chosen: str | None) -> dict[str, Any]:
    servers = option["servers"]
    parts = [
        {
            **line,
            "kind_label": PART_KIND_LABELS.get(line["kind"], line["kind"]),
            "role_label": _role_label(line["role"]),
            "total_quantity": _total_quantity(line, servers),
            "line_total": Decimal(line["unit_price"]) * _total_quantity(line, servers),
        }
        for line in option["parts"]
    ]
    checks = []
    for check in option["checks"]:
        rule = rules.RULES.get(check["rule"])
        checks.append(
            {
                **check,
                "title": localized_text(rule.title) if rule else check["rule"],
            }
        )
    gpu = next((line for line in option["parts"] if line["kind"] == "gpu"), None)
    cpu = next((line for line in parts if line["kind"] == "cpu"), None)
    return {
        "cpu": cpu,
        **option,
        "label": TIER_LABELS.get(option["tier"], option["tier"]),
        "help": TIER_HELP.get(option["tier"], ""),
        "chosen": option["tier"] == chosen,
        "parts": parts,
        "checks": checks,
        "passed_count": sum(1 for check in checks if check["passed"]),
        "all_passed": all(check["passed"] for check in checks),
        "gpu": gpu,
        "currency": currency,
    }


def _managed_fee_view(
    advice: AdviceResult, option: Mapping[str, Any], horizon_months: int
) -> dict[str, Any] | None:
    """The host's monthly fee for all of an option's servers over the contract the horizon
    signs: the figure the quote bills."""
    offer = advice.managed_offers.get(Tier(option["tier"]))
    if offer is None:
        return None
    contract = offer.term(horizon_months)
    tier = None if advice.tco is None else advice.tco.service_tier
    return {
        "monthly": monthly_with_service(contract.monthly, tier).amount * option["servers"],
        "months": contract.months,
    }


def _job_view(job: JobCost) -> dict[str, Any]:
    """One run of the job on the chosen option: rented in the cloud, hosted month to month,
    or bought, the cheapest marked."""
    cards: list[dict[str, Any]] = [
        {
            "key": "cloud",
            "label": gettext("Cloud GPUs for the run"),
            "amount": job.cloud.amount if job.cloud else None,
            "note": ngettext(
                "%(n)s GPU-hour on demand", "%(n)s GPU-hours on demand", job.cloud_gpu_hours
            )
            % {"n": number_localized(job.cloud_gpu_hours)},
        },
        {
            "key": "managed",
            "label": gettext("Our managed hosting, no commitment"),
            "amount": job.managed.amount,
            "note": ngettext(
                "%(n)s month and the setup", "%(n)s months and the setup", job.managed_months
            )
            % {"n": job.managed_months},
        },
        {
            "key": "on_premises",
            "label": gettext("Buying the servers"),
            "amount": job.buy.amount,
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


def _managed_terms_view(offer: Mapping[str, Any], servers: int) -> dict[str, Any]:
    """The host's offer for every contract term, for all the servers, and where each sits in
    the market band."""
    band = offer["market_band"]
    return {
        "basis": offer["basis"],
        "contract_months": offer["contract_months"],
        "servers": servers,
        "override_below_floor": offer["override_below_floor"],
        "band": band,
        "terms": [
            {
                "months": term["months"],
                "monthly": Decimal(term["monthly"]) * servers,
                "setup": Decimal(term["setup"]) * servers,
                "per_gpu_month": Decimal(term["per_gpu_month"]),
                "discount_pct": Decimal(term["discount"]) * 100,
                "market": term["market"],
                "market_label": MARKET_LABELS.get(term["market"], term["market"]),
                "signed": term["months"] == offer["contract_months"],
            }
            for term in offer["terms"]
        ],
    }


# The software stack's lines, as the result page and the checklist name them.
STACK_LINE_LABELS = {
    "os": _("Operating system"),
    "driver": _("GPU driver"),
    "platform": _("Compute platform"),
    "container": _("Containers"),
    "frameworks": _("Frameworks"),
    "kernels": _("Number format"),
}


def _performance_view(advice: AdviceResult, tier: str) -> dict[str, Any] | None:
    """What an option delivers, its numbers in the reader's locale
    (``engine.performance``)."""
    found = next((p for key, p in advice.performance.items() if str(key) == tier), None)
    if found is None:
        return None
    software = found.software
    monitoring = monitoring_to_dict(found.monitoring, render=localized_text)
    if monitoring is not None:
        monitoring["stack"] = [step["text"] for step in monitoring["stack"]]
    return {
        "monitoring": monitoring,
        "lines": [localized_text(line) for line in found.lines],
        "explanations": [
            {"text": localized_text(item.message), "source": item.source}
            for item in found.explanations
        ],
        "software": None
        if software is None or not software.lines
        else {
            "platform": software.platform,
            "seen_on": software.seen_on,
            "lines": [
                {
                    "key": line.key,
                    "label": STACK_LINE_LABELS.get(line.key, line.key),
                    "text": localized_text(line.text),
                    "sources": line.sources,
                }
                for line in software.lines
            ],
        },
    }


def _operations_view(
    chosen: Mapping[str, Any] | None, tco: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The chosen configuration's software stack and monitoring plan, and the managed offer's
    support level: what runs on the servers and who looks after them."""
    performance = None if chosen is None else chosen.get("performance")
    managed = None if tco is None else tco.get("managed")
    found = {
        "software": None if performance is None else performance.get("software"),
        "monitoring": None if performance is None else performance.get("monitoring"),
        "support": None if managed is None else managed.get("service_tier"),
    }
    return found if any(found.values()) else None


def _memory_rows(memory: Mapping[str, float]) -> list[dict[str, Any]]:
    """The memory table's rows; ``x`` and ``width`` place each part on the bar, in percent of
    the total (an SVG of 100 units: no inline style under the Content-Security-Policy)."""
    total = memory["total"] or 1
    rows, start = [], 0.0
    for key, label in MEMORY_LABELS.items():
        if not memory.get(key):
            continue
        width = memory[key] / total * 100
        rows.append(
            {
                "key": key,
                "label": label,
                "gb": memory[key],
                "share": Decimal(str(memory[key])) / Decimal(str(total)),
                "x": f"{start:.2f}",
                "width": f"{width:.2f}",
            }
        )
        start += width
    return rows


def _tco_view(tco: Mapping[str, Any], currency: str) -> dict[str, Any]:
    fmt = _money(currency)
    options = tco["options"]
    shown = [name for name in OPTION_LABELS if name in options]
    categories = []
    for key, label in CATEGORY_LABELS.items():
        values = {name: options[name]["by_category"].get(key) for name in shown}
        if any(value not in (None, "0.00") for value in values.values()):
            categories.append({"key": key, "label": label, "values": [values[n] for n in shown]})
    months = tco["horizon_months"]
    years = months // 12
    break_even = tco["break_even_month"]
    if break_even.get("vs_managed"):
        be_sentence = gettext(
            "Buying becomes cheaper than managed hosting from month %(month)s."
        ) % {"month": break_even["vs_managed"]}
    else:
        be_sentence = ngettext(
            "Buying does not become cheaper than managed hosting within %(years)s year.",
            "Buying does not become cheaper than managed hosting within %(years)s years.",
            years,
        ) % {"years": years}
    if break_even.get("vs_cloud"):
        be_sentence += " " + gettext("It becomes cheaper than cloud GPUs from month %(month)s.") % {
            "month": break_even["vs_cloud"]
        }
    totals_sentence = "; ".join(
        f"{OPTION_LABELS[name]}: {fmt(options[name]['total'])}"
        for name in shown
        if name in charts.SERIES
    )
    words = charts.ChartText(
        title=ngettext(
            "Cumulative cost per month over %(years)s year",
            "Cumulative cost per month over %(years)s years",
            years,
        )
        % {"years": years},
        description=f"{totals_sentence}. {be_sentence}",
        series={name: str(OPTION_SHORT_LABELS[name]) for name in charts.SERIES},
        month_axis=gettext("Month"),
        break_even=lambda month: gettext("Break-even: month %(month)s") % {"month": month},
    )
    # Two drawings of one chart: CSS shows the one made for the screen's width, so its labels
    # keep their size on a phone instead of shrinking to a third.
    chart = charts.cumulative_cost_svg(tco, text=words, money=fmt)  # the PDF's too
    chart_narrow = charts.cumulative_cost_svg(
        tco, text=words, money=fmt, element_id="tco-chart-narrow", frame=charts.NARROW
    )
    yearly_rows = [
        {
            "year": year,
            "values": [options[name]["monthly_cumulative"][year * 12 - 1] for name in shown],
        }
        for year in range(1, years + 1)
    ]
    sensitivity: dict[str, dict[str, Any]] = {}
    for row in tco["sensitivity"]:
        group = sensitivity.setdefault(
            row["parameter"],
            {"title": SENSITIVITY_TITLES.get(row["parameter"], row["parameter"]), "rows": []},
        )
        group["rows"].append(
            {
                "label": row["label"],
                "values": [row["totals"].get(name) for name in shown],
                "break_even": row["break_even_month"].get("vs_managed"),
            }
        )
    return {
        **tco,
        "years": years,
        "shown": [
            {"key": name, "label": OPTION_SHORT_LABELS[name], "long": OPTION_LABELS[name]}
            for name in shown
        ],
        "totals": [
            {
                "key": name,
                "label": OPTION_LABELS[name],
                "total": options[name]["total"],
                "per_gpu_hour": options[name]["cost_per_gpu_hour"],
                "includes": options[name]["includes"],
                "cheapest": name == tco["cheapest"],
            }
            for name in shown
        ],
        "categories": categories,
        "chart": chart,
        "chart_narrow": chart_narrow,
        "chart_summary": f"{totals_sentence}. {be_sentence}",
        "break_even_sentence": be_sentence,
        "yearly_rows": yearly_rows,
        "sensitivity": list(sensitivity.values()),
        "legend": [
            {"label": OPTION_LABELS[name], "style": charts.SERIES[name]}
            for name in charts.SERIES
            if name in options
        ],
    }


def _summary(advice: AdviceResult) -> str:
    inputs = advice.inputs
    model = advice.model
    workload = inputs.workload
    name = model.name or gettext("a model of %(size)s billion parameters") % {
        "size": number_localized(model.parameters_billions)
    }
    parts = [f"{GOAL_LABELS.get(workload['task'], workload['task'])} {name}"]
    training = workload.get("training")
    if training:
        methods = {"lora": "LoRA", "qlora": "QLoRA", "full": gettext("full training")}
        parts.append(methods.get(training["method"], training["method"]))
    parts.append(workload.get("precision", "bf16").upper())
    parts.append(str(ENVIRONMENT_LABELS.get(inputs.environment, inputs.environment)))
    parts.append(str(REGION_NAMES.get(inputs.region, inputs.region)))
    return " · ".join(parts)


def _answer_rows(result: WizardResult, advice: AdviceResult) -> list[dict[str, str]]:
    """The customer's answers, step by step, with the wizard's own labels."""
    rows = []
    for step, form_class in STEP_FORMS.items():
        for name, value in (result.answers.get(step) or {}).items():
            field = form_class.base_fields.get(name)
            if field is None or value in (None, ""):
                continue
            if name == "model":
                shown = advice.model.name or gettext("another model")
            elif name == "service_tier":
                tier = None if advice.tco is None else advice.tco.service_tier
                shown = value if tier is None else tier.name(get_language())
            elif (
                name in ("parameters_billions", "model_kind")
                and result.answers[step].get("model") != "custom"
            ):
                continue
            elif isinstance(value, bool):
                shown = gettext("yes") if value else gettext("no")
            elif choices := getattr(field, "choices", None):
                shown = str(dict(choices).get(value, value))
            elif isinstance(value, int | float) or _is_number(value):
                shown = number_localized(value)
            else:
                shown = str(value)
            rows.append({"label": str(field.label), "value": shown})
    return rows


def _is_number(value: Any) -> bool:
    try:
        Decimal(str(value))
    except ArithmeticError:
        return False
    return True


def result_context(
    result: WizardResult, advice: AdviceResult, request: HttpRequest | None = None
) -> dict[str, Any]:
    """Everything the result page and the PDF show, from the stored result only, rendered in the
    active language."""
    inputs = advice.inputs
    currency = inputs.currency
    texts = result_to_dict(advice)
    sizing = texts["sizing"]
    build = texts["build"]
    chosen_tier = None if advice.chosen_tier is None else str(advice.chosen_tier)
    options = [_option_view(option, currency, chosen_tier) for option in build["options"]]
    horizon_months = inputs.horizon_years * 12
    for option in options:
        option["performance"] = _performance_view(advice, option["tier"])
        option["managed"] = _managed_fee_view(advice, option, horizon_months)
    chosen = next((option for option in options if option["chosen"]), None)
    recommendation = advice.recommendation
    for option in options:
        option["recommended"] = recommendation is not None and option["tier"] == str(
            recommendation.tier
        )
    tco = None if texts["tco"] is None else _tco_view(texts["tco"], currency)
    if tco is not None and advice.job is not None:
        tco["job"] = _job_view(advice.job)
    if tco is not None and chosen is not None and texts["tco"].get("managed_offer"):
        tco["managed"] = _managed_terms_view(texts["tco"]["managed_offer"], chosen["servers"])
        tier = texts["tco"].get("service_tier")
        if tier is not None:
            tco["managed"]["service_tier"] = tier | {
                "all_servers": Decimal(tier["monthly"]) * chosen["servers"]
            }
    on_recommended = texts["on_recommended"]
    on_workstation = texts["on_workstation"]
    is_training = inputs.workload["task"] != "inference"
    checklist_items = [
        {
            "point": str(item.point),
            "title": localized_text(item.title),
            "statement": localized_text(item.statement),
            "met": item.met,
            "planned": item.planned,
            "reason": localized_text(item.reason),
        }
        for item in checklist_evaluate(advice)
    ]
    explanations = {item["key"]: item for item in sizing["explanations"]}
    url = reverse("wizard:result", kwargs={"token": result.token})
    return {
        "result": result,
        "data": advice,
        "currency": currency,
        "summary": _summary(advice),
        "answer": answer_context(recommendation_to_dict(recommendation, render=localized_text)),
        "private_url": request.build_absolute_uri(url) if request is not None else url,
        "sizing": sizing,
        "memory_rows": _memory_rows(sizing["memory_gb"]),
        "explanations": sizing["explanations"],
        "explanation": explanations,
        "options": options,
        "differs": differences(options),
        "shared_performance": shared_performance(options),
        "preference": preference_view(advice),
        "rental": rental_view(advice),
        "chosen": chosen,
        "unmet": build["unmet"],
        "budget_needed": build["budget_needed"],
        "exchange_rates": [
            rate | {"per_eur_shown": number_localized(Decimal(rate["per_eur"]))}
            for rate in build["exchange_rates"]
        ],
        "budget": inputs.budget,
        "tier_notes": build["notes"],
        "tco": tco,
        "is_training": is_training,
        "on_recommended": on_recommended,
        "on_workstation": on_workstation,
        "recommended_time": duration_text(on_recommended and on_recommended["training_hours"]),
        "workstation_time": duration_text(on_workstation and on_workstation["training_hours"]),
        "checklist": checklist_items,
        "operations": _operations_view(chosen, tco),
        "checklist_met": sum(1 for item in checklist_items if item["met"]),
        "checklist_planned": sum(1 for item in checklist_items if item["planned"]),
        "defaults": texts["defaults"],
        "rules": [
            {
                "code": rule.code,
                "title": localized_text(rule.title),
                "reason": localized_text(rule.reason),
                "source": rule.source,
            }
            for rule in rules.RULES.values()
        ],
        "deployment_label": {
            "on_premises": gettext("On premises"),
            "managed": gettext("Managed hosting"),
            "not_sure": gettext("Not sure yet"),
        }.get(inputs.deployment, inputs.deployment),
        "region_name": REGION_NAMES.get(inputs.region, inputs.region),
        "utilization_pct": inputs.utilization * 100,
        "answer_rows": _answer_rows(result, advice),
    }
