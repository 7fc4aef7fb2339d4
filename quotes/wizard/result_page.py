"""The result page's context: an advice result rendered in the active language.

The result page and the checklist PDF show the same context (``result_context``), built from
the stored result only: the engine's objects for the figures (``AdviceResult``, its options and
``Money``; the cost section in ``quotes.wizard.tco_view``), the presenters for the words
(``quotes.advice.presenters``) and one module for the labels of the engine's enums
(``quotes.advice.labels``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import get_language, gettext

from engine.build import rules
from engine.build.builder import BuiltOption, Tier
from engine.build.cluster.lines import LineRole
from engine.commerce.service_tiers import monthly_with_service
from engine.sizing import MemoryBreakdown
from engine.sizing.training_plan import TrainingPlan
from gpuquote.core.formatting import number_localized
from quotes.advice.answer import answer_context
from quotes.advice.checklist import checklist_evaluate
from quotes.advice.labels import (
    DEPLOYMENT_LABELS,
    DRIVE_ROLE_LABELS,
    ENVIRONMENT_LABELS,
    LINE_ROLE_LABELS,
    MEMORY_LABELS,
    PART_KIND_LABELS,
    PRECISION_NAMES,
    SHARDING_LABELS,
    STACK_LINE_LABELS,
    TASK_LABELS,
    TIER_HELP,
    TIER_LABELS,
    TRAINING_METHOD_LABELS,
)
from quotes.advice.presenters import (
    build_to_dict,
    cents,
    defaults_to_dict,
    localized_text,
    monitoring_to_dict,
    number,
    on_gpus_to_dict,
    recommendation_to_dict,
    sizing_to_dict,
    text,
    training_plan_to_dict,
)
from quotes.advice.result import AdviceResult
from quotes.models import WizardResult
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
from quotes.wizard.tco_view import duration_text, job_view, managed_terms_view, tco_view


def _role_label(role: str) -> str:
    """A part's role in the reader's language: a cluster role (leaf switch, uplink...) or a
    drive's (boot, data)."""
    if role in LINE_ROLE_LABELS:
        return text(LINE_ROLE_LABELS[LineRole(role)])
    return str(DRIVE_ROLE_LABELS.get(role, role))


def _option_view(
    option: BuiltOption, shown: Mapping[str, Any], chosen: Tier | None
) -> dict[str, Any]:
    """A configuration's card: ``shown`` is its words and figures (``presenters.option_to_dict``),
    the amounts read from the engine's ``option``."""
    servers = option.servers
    parts = [
        {
            **words,
            "kind_label": PART_KIND_LABELS.get(line.kind, line.kind),
            "role_label": _role_label(line.role),
            "total_quantity": line.total_quantity(servers),
            "line_total": cents(line.unit_price) * line.total_quantity(servers),
        }
        for line, words in zip(option.parts, shown["parts"], strict=True)
    ]
    checks = []
    for check in shown["checks"]:
        rule = rules.RULES.get(check["rule"])
        checks.append(
            {
                **check,
                "title": localized_text(rule.title) if rule else check["rule"],
            }
        )
    gpu = next((line for line in shown["parts"] if line["kind"] == "gpu"), None)
    cpu = next((line for line in parts if line["kind"] == "cpu"), None)
    return {
        "cpu": cpu,
        **shown,
        "label": TIER_LABELS.get(option.tier, str(option.tier)),
        "help": TIER_HELP.get(option.tier, ""),
        "chosen": option.tier == chosen,
        "parts": parts,
        "checks": checks,
        "passed_count": sum(1 for check in checks if check["passed"]),
        "all_passed": all(check["passed"] for check in checks),
        "gpu": gpu,
        "currency": option.totals.currency,
    }


def _managed_fee_view(
    advice: AdviceResult, option: BuiltOption, horizon_months: int
) -> dict[str, Any] | None:
    """The host's monthly fee for all of an option's servers over the contract the horizon
    signs: the figure the quote bills."""
    offer = advice.managed_offers.get(option.tier)
    if offer is None:
        return None
    contract = offer.term(horizon_months)
    tier = None if advice.tco is None else advice.tco.service_tier
    return {
        "monthly": monthly_with_service(contract.monthly, tier).amount * option.servers,
        "months": contract.months,
    }


def _performance_view(advice: AdviceResult, tier: Tier) -> dict[str, Any] | None:
    """What an option delivers, its numbers in the reader's locale
    (``engine.performance``)."""
    found = advice.performance.get(tier)
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


def _memory_rows(memory: MemoryBreakdown) -> list[dict[str, Any]]:
    """The memory table's rows, in GB to two places as the API states them; ``x`` and ``width``
    place each part on the bar, in percent of the total (an SVG of 100 units: no inline style
    under the Content-Security-Policy)."""
    total = number(memory.total) or 1
    rows, start = [], 0.0
    for key, label in MEMORY_LABELS.items():
        gb = number(getattr(memory, key))
        if not gb:
            continue
        width = gb / total * 100
        rows.append(
            {
                "key": key,
                "label": label,
                "gb": gb,
                "share": Decimal(str(gb)) / Decimal(str(total)),
                "x": f"{start:.2f}",
                "width": f"{width:.2f}",
            }
        )
        start += width
    return rows


def _summary(advice: AdviceResult) -> str:
    inputs = advice.inputs
    model = advice.model
    workload = inputs.workload
    name = model.name or gettext("a model of %(size)s billion parameters") % {
        "size": number_localized(model.parameters_billions)
    }
    parts = [f"{TASK_LABELS.get(workload['task'], workload['task'])} {name}"]
    training = workload.get("training")
    if training:
        method = training["method"]
        parts.append(str(TRAINING_METHOD_LABELS.get(method, method)))
    precision = workload.get("precision", "bf16")
    parts.append(PRECISION_NAMES.get(precision, precision.upper()))
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
    sizing = sizing_to_dict(advice.sizing, render=localized_text)
    build = build_to_dict(
        advice.build,
        advice.price_ages,
        exchange_rates=advice.exchange_rates,
        render=localized_text,
    )
    horizon_months = inputs.horizon_years * 12
    options = []
    for built, shown in zip(advice.build.options, build["options"], strict=True):
        view = _option_view(built, shown, advice.chosen_tier)
        view["performance"] = _performance_view(advice, built.tier)
        view["managed"] = _managed_fee_view(advice, built, horizon_months)
        options.append(view)
    chosen = next((option for option in options if option["chosen"]), None)
    recommendation = advice.recommendation
    for option in options:
        option["recommended"] = recommendation is not None and option["tier"] == str(
            recommendation.tier
        )
    costs = advice.tco
    tco = None if costs is None else tco_view(costs)
    if tco is not None and advice.job is not None:
        tco["job"] = job_view(advice.job)
    if costs is not None and tco is not None and chosen is not None and costs.managed_offer:
        tco["managed"] = managed_terms_view(
            costs.managed_offer,
            horizon_months=costs.horizon_months,
            servers=chosen["servers"],
            service_tier=costs.service_tier,
        )
    on_recommended = on_gpus_to_dict(
        advice.on_recommended,
        None if advice.chosen_tier is None else advice.performance.get(advice.chosen_tier),
    )
    on_workstation = on_gpus_to_dict(advice.on_workstation, advice.workstation_performance)
    rates = {rate.currency: rate for rate in advice.exchange_rates}
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
        "memory_rows": _memory_rows(advice.sizing.memory_gb),
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
            rate | {"per_eur_shown": number_localized(rates[rate["currency"]].per_eur)}
            for rate in build["exchange_rates"]
        ],
        "budget": inputs.budget,
        "tier_notes": build["notes"],
        "tco": tco,
        "is_training": is_training,
        "training_plan": training_plan_view(advice.training_plan),
        "on_recommended": on_recommended,
        "on_workstation": on_workstation,
        "recommended_time": duration_text(
            None if on_recommended is None else on_recommended["training_hours"]
        ),
        "workstation_time": duration_text(
            None if on_workstation is None else on_workstation["training_hours"]
        ),
        "checklist": checklist_items,
        "operations": _operations_view(chosen, tco),
        "checklist_met": sum(1 for item in checklist_items if item["met"]),
        "checklist_planned": sum(1 for item in checklist_items if item["planned"]),
        "defaults": defaults_to_dict(advice.defaults, currency, render=localized_text),
        "rules": [
            {
                "code": rule.code,
                "title": localized_text(rule.title),
                "reason": localized_text(rule.reason),
                "source": rule.source,
            }
            for rule in rules.RULES.values()
        ],
        "deployment_label": DEPLOYMENT_LABELS.get(inputs.deployment, inputs.deployment),
        "region_name": REGION_NAMES.get(inputs.region, inputs.region),
        "utilization_pct": inputs.utilization * 100,
        "answer_rows": _answer_rows(result, advice),
    }


def training_plan_view(plan: TrainingPlan | None) -> dict[str, Any] | None:
    """The training plan as the result page reads it: the engine's figures, the sharding in
    words and the durations in the reader's language."""
    if plan is None:
        return None
    figures = training_plan_to_dict(plan) or {}
    return figures | {
        "sharding_label": SHARDING_LABELS.get(plan.sharding, plan.sharding),
        "duration": duration_text(plan.hours),
        "deadline": duration_text(plan.deadline_hours),
    }
