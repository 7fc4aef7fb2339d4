"""The customer wizard in the browser: four steps, the stored result, its PDF, a quote request.

Plain HTML forms (POST, then redirect); answers live in the session between steps, as the raw
form data of each step (formtools' storage), and the last step re-validates every step before
anything is computed (formtools' ``done()``). JavaScript only enhances.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine import rules
from engine.assumptions import AssumptionError
from engine.i18n import Message
from engine.money import Money
from engine.tco import TcoInputError
from gpuquote.core.ratelimit import rate_limited
from quotes import charts, pdf
from quotes.advice.inputs import utilization_pct_for_uptime
from quotes.forms import (
    REGION_NAMES,
    STEP_FORMS,
    STEP_TITLES,
    STEPS,
    DataForm,
    DeploymentForm,
    QuoteRequestForm,
    WizardStepForm,
)
from quotes.models import WizardResult
from quotes.selectors import assumptions_get
from quotes.templatetags.money import money_format, number_localized
from quotes.wizard_services import (
    WizardInputs,
    checklist_evaluate,
    quote_request_create,
    result_texts,
    wizard_result_create,
)

SESSION_KEY = "gpuquote_wizard"

TIER_LABELS = {
    "budget": _("Budget"),
    "balanced": _("Balanced"),
    "performance": _("Performance"),
}
TIER_HELP = {
    "budget": _("The cheapest configuration that passes every rule."),
    "balanced": _("The most computing power per unit of price, with comfort margins."),
    "performance": _("The fastest GPUs for the work, with comfort margins."),
}
OPTION_LABELS = {
    "on_premises": _("Buy (on premises)"),
    "managed": _("Managed hosting"),
    "cloud": _("Cloud GPUs, on demand"),
    "cloud_reserved": _("Cloud GPUs, reserved 1 year"),
}
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
PART_KIND_LABELS = {
    "chassis": _("Chassis"),
    "gpu": _("GPU"),
    "cpu": _("CPU"),
    "memory": _("Memory"),
    "drive": _("Drive"),
    "nic": _("Network card"),
}
GOAL_LABELS = {
    "inference": _("Running"),
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


def _stored(request: HttpRequest) -> dict[str, dict[str, str]]:
    return dict(request.session.get(SESSION_KEY) or {})


def _store(request: HttpRequest, step: str, raw: Mapping[str, str]) -> None:
    wizard = _stored(request)
    wizard[step] = dict(raw)
    request.session[SESSION_KEY] = wizard


def _raw(form_class: type[WizardStepForm], form: WizardStepForm, post: Mapping[str, Any]) -> dict:
    """The posted values of the form's fields, every field present (unticked boxes as "")."""
    return {name: post.get(name, "") for name in form.fields}


def _initial_raw(form: WizardStepForm) -> dict[str, str]:
    """A field's default as form data, for fields a stored step lacks (its goal changed)."""
    raw = {}
    for name, field in form.fields.items():
        initial = form.get_initial_for_field(field, name)
        if isinstance(initial, bool):
            raw[name] = "on" if initial else ""
        else:
            raw[name] = "" if initial is None else str(initial)
    return raw


def _make(
    step: str,
    *,
    data: Mapping[str, Any] | None = None,
    project: Mapping[str, Any] | None = None,
    initial: Mapping[str, Any] | None = None,
) -> WizardStepForm:
    form_class = STEP_FORMS[step]
    kwargs: dict[str, Any] = {"data": data, "initial": initial}
    if form_class is DataForm:
        kwargs["project"] = project
    return form_class(**kwargs)


def _validated(stored: Mapping[str, Mapping[str, str]], upto: str | None):
    """Every step before ``upto`` (all steps when None), bound to its stored data.

    Returns ``(forms, first_invalid_step)``; the latter is None when they are all valid.
    """
    forms: dict[str, WizardStepForm] = {}
    for step in STEPS:
        if step == upto:
            break
        raw = stored.get(step)
        if raw is None:
            return forms, step
        form = _make(step, data=raw, project=_project(forms))
        if not form.is_valid():
            return forms, step
        forms[step] = form
    return forms, None


def _project(forms: Mapping[str, WizardStepForm]) -> dict[str, Any] | None:
    form = forms.get("project")
    return None if form is None else form.answers()


def _language() -> str:
    code = translation.get_language() or settings.LANGUAGE_CODE
    return translation.get_supported_language_variant(code)


# --- The steps ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@rate_limited(group="wizard", rate_setting="WIZARD_RATE", methods=["POST"])
def wizard_step(request: HttpRequest, step: str = STEPS[0]) -> HttpResponse:
    if step not in STEP_FORMS:
        raise Http404
    stored = _stored(request)
    previous, invalid = _validated(stored, step)
    if invalid is not None:
        return redirect("wizard:step", step=invalid)
    project = _project(previous)
    index = STEPS.index(step)

    if request.method == "POST":
        form = _make(step, data=request.POST, project=project)
        if request.POST.get("nav") == "back":
            _store(request, step, _raw(type(form), form, request.POST))
            return redirect("wizard:step", step=STEPS[max(0, index - 1)])
        if form.is_valid():
            _store(request, step, _raw(type(form), form, request.POST))
            if index + 1 < len(STEPS):
                return redirect("wizard:step", step=STEPS[index + 1])
            return _done(request)
        return _render_step(request, step, form, stored)

    raw = stored.get(step)
    if raw is not None:
        blank = _make(step, project=project, initial=_initial_for(step, stored))
        form = _make(step, data={**_initial_raw(blank), **raw}, project=project)
    else:
        form = _make(step, project=project, initial=_initial_for(step, stored))
    return _render_step(request, step, form, stored)


def _initial_for(step: str, stored: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    if step == "deployment":
        suggested = utilization_pct_for_uptime((stored.get("usage") or {}).get("uptime"))
        if suggested is not None:
            return {"utilization_pct": suggested}
    return {}


def _done(request: HttpRequest) -> HttpResponse:
    """Re-validate every step, then compute and store the result once."""
    stored = _stored(request)
    forms, invalid = _validated(stored, None)
    if invalid is not None:
        form = _make(invalid, data=stored.get(invalid) or {}, project=_project(forms))
        form.is_valid()
        return _render_step(request, invalid, form, stored)
    inputs = _inputs(forms)
    answers = {step: form.json_cleaned() for step, form in forms.items()}
    answers["workload"] = dict(inputs.workload)
    try:
        result = wizard_result_create(answers=answers, inputs=inputs, language=_language())
    except (AssumptionError, TcoInputError) as exc:
        form = forms["deployment"]
        field = {"electricity_price_per_kwh": "electricity_price"}.get(exc.field, exc.field)
        form.add_error(field if field in form.fields else None, exc.message.render(gettext))
        return _render_step(request, "deployment", form, stored)
    return redirect("wizard:result", token=result.token)


def _inputs(forms: Mapping[str, WizardStepForm]) -> WizardInputs:
    data_form = forms["data"]
    deployment = forms["deployment"]
    if not isinstance(data_form, DataForm) or not isinstance(deployment, DeploymentForm):
        raise TypeError("the wizard's steps are out of order")
    usage = forms["usage"].cleaned_data
    chosen = deployment.cleaned_data
    return WizardInputs(
        workload=data_form.workload(),
        environment=usage["environment"],
        uptime=usage["uptime"],
        growth_gpus=usage["growth_gpus"],
        deployment=chosen["deployment"],
        region=chosen["region"],
        currency=chosen["currency"],
        horizon_years=chosen["horizon_years"],
        utilization=Decimal(chosen["utilization_pct"]) / 100,
        budget=chosen["budget"],
        overrides=deployment.overrides(),
    )


def _progress(step: str, stored: Mapping[str, Any]) -> list[dict[str, Any]]:
    index = STEPS.index(step)
    return [
        {
            "number": i + 1,
            "step": name,
            "title": STEP_TITLES[name],
            "current": name == step,
            "done": i < index,
            "url": reverse("wizard:step", kwargs={"step": name}) if i < index else "",
        }
        for i, name in enumerate(STEPS)
    ]


def _region_defaults() -> list[dict[str, Any]]:
    """Each region's electricity price (EUR and USD), PUE and grid carbon, with sources."""
    rows = []
    for code in REGION_NAMES:
        eur = assumptions_get(region=code, currency="EUR")
        usd = assumptions_get(region=code, currency="USD")
        rows.append(
            {
                "code": code,
                "name": REGION_NAMES[code],
                "electricity_eur": eur.value("electricity_price_per_kwh"),
                "electricity_usd": usd.value("electricity_price_per_kwh"),
                "pue": eur.value("pue"),
                "carbon": eur.value("grid_carbon_kg_per_kwh"),
                "sources": [
                    eur["electricity_price_per_kwh"].source,
                    eur["pue"].source,
                    eur["grid_carbon_kg_per_kwh"].source,
                ],
            }
        )
    return rows


def _render_step(
    request: HttpRequest, step: str, form: WizardStepForm, stored: Mapping[str, Any]
) -> HttpResponse:
    index = STEPS.index(step)
    context = {
        "form": form,
        "step": step,
        "step_number": index + 1,
        "step_count": len(STEPS),
        "step_title": STEP_TITLES[step],
        "progress": _progress(step, stored),
        "first": index == 0,
        "last": index == len(STEPS) - 1,
        "has_answers": bool(stored),
    }
    if step == "deployment":
        context["region_defaults"] = _region_defaults()
    return render(request, f"wizard/step_{step}.html", context)


@require_POST
def wizard_reset(request: HttpRequest) -> HttpResponse:
    request.session.pop(SESSION_KEY, None)
    return redirect("wizard:start")


# --- The result -----------------------------------------------------------------------------


def localized_text(message: Message) -> str:
    """An engine message in the active language, its numbers and money in the locale's format."""
    params = {key: _localized_param(value) for key, value in message.params.items()}
    template = gettext(message.template)
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


def _option_view(option: Mapping[str, Any], currency: str, chosen: str | None) -> dict[str, Any]:
    servers = option["servers"]
    parts = [
        {
            **line,
            "kind_label": PART_KIND_LABELS.get(line["kind"], line["kind"]),
            "total_quantity": line["quantity"] * servers,
            "line_total": Decimal(line["unit_price"]) * line["quantity"] * servers,
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
        be_sentence = gettext(
            "Buying does not become cheaper than managed hosting within %(years)s years."
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
    chart = charts.cumulative_cost_svg(
        tco,
        text=charts.ChartText(
            title=gettext("Cumulative cost per month over %(years)s years") % {"years": years},
            description=f"{totals_sentence}. {be_sentence}",
            series={name: str(OPTION_SHORT_LABELS[name]) for name in charts.SERIES},
            month_axis=gettext("Month"),
            break_even=lambda month: gettext("Break-even: month %(month)s") % {"month": month},
        ),
        money=fmt,
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


def _summary(result: WizardResult) -> str:
    data = result.result
    inputs = data["inputs"]
    model = data["model"]
    workload = inputs["workload"]
    name = model["name"] or gettext("a model of %(size)s billion parameters") % {
        "size": number_localized(model["parameters_billions"])
    }
    parts = [f"{GOAL_LABELS.get(workload['task'], workload['task'])} {name}"]
    training = workload.get("training")
    if training:
        methods = {"lora": "LoRA", "qlora": "QLoRA", "full": gettext("full training")}
        parts.append(methods.get(training["method"], training["method"]))
    parts.append(workload.get("precision", "bf16").upper())
    parts.append(str(ENVIRONMENT_LABELS.get(inputs["environment"], inputs["environment"])))
    parts.append(str(REGION_NAMES.get(inputs["region"], inputs["region"])))
    return " · ".join(parts)


def _answer_rows(result: WizardResult) -> list[dict[str, str]]:
    """The customer's answers, step by step, with the wizard's own labels."""
    rows = []
    for step, form_class in STEP_FORMS.items():
        for name, value in (result.answers.get(step) or {}).items():
            field = form_class.base_fields.get(name)
            if field is None or value in (None, ""):
                continue
            if name == "model":
                shown = result.result["model"]["name"] or gettext("another model")
            elif name == "parameters_billions" and result.answers[step].get("model") != "custom":
                continue
            elif isinstance(value, bool):
                shown = gettext("yes") if value else gettext("no")
            elif getattr(field, "choices", None):
                shown = str(dict(field.choices).get(value, value))
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


def result_context(result: WizardResult, request: HttpRequest | None = None) -> dict[str, Any]:
    """Everything the result page and the PDF show, from the stored JSON only."""
    data = result.result
    inputs = data["inputs"]
    currency = inputs["currency"]
    texts = result_texts(result, _language())
    sizing = texts["sizing"]
    build = texts["build"]
    chosen_tier = data["chosen_tier"]
    options = [_option_view(option, currency, chosen_tier) for option in build["options"]]
    chosen = next((option for option in options if option["chosen"]), None)
    tco = None if texts["tco"] is None else _tco_view(texts["tco"], currency)
    on_recommended = texts["on_recommended"]
    on_workstation = texts["on_workstation"]
    is_training = inputs["workload"]["task"] != "inference"
    checklist_items = [
        {
            "point": str(item.point),
            "title": localized_text(item.title),
            "statement": localized_text(item.statement),
            "met": item.met,
            "reason": localized_text(item.reason),
        }
        for item in checklist_evaluate(result)
    ]
    explanations = {item["key"]: item for item in sizing["explanations"]}
    url = reverse("wizard:result", kwargs={"token": result.token})
    return {
        "result": result,
        "data": data,
        "inputs": inputs,
        "currency": currency,
        "summary": _summary(result),
        "private_url": request.build_absolute_uri(url) if request is not None else url,
        "sizing": sizing,
        "memory_rows": _memory_rows(sizing["memory_gb"]),
        "explanations": sizing["explanations"],
        "explanation": explanations,
        "options": options,
        "chosen": chosen,
        "unmet": build["unmet"],
        "tco": tco,
        "is_training": is_training,
        "on_recommended": on_recommended,
        "on_workstation": on_workstation,
        "recommended_time": duration_text(on_recommended and on_recommended["training_hours"]),
        "workstation_time": duration_text(on_workstation and on_workstation["training_hours"]),
        "checklist": checklist_items,
        "checklist_met": sum(1 for item in checklist_items if item["met"]),
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
        }.get(inputs["deployment"], inputs["deployment"]),
        "region_name": REGION_NAMES.get(inputs["region"], inputs["region"]),
        "utilization_pct": Decimal(inputs["utilization"]) * 100,
        "answer_rows": _answer_rows(result),
    }


def _private(response: HttpResponse) -> HttpResponse:
    """A private link: never indexed, not kept by shared caches, not sent to other sites."""
    response["X-Robots-Tag"] = "noindex, nofollow"
    # Not "no-referrer": browsers would then post the quote form with "Origin: null" (CSRF).
    response["Referrer-Policy"] = "same-origin"
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def result_detail(request: HttpRequest, token: str) -> HttpResponse:
    result = get_object_or_404(WizardResult, token=token)
    context = result_context(result, request)
    context["quote_form"] = QuoteRequestForm()
    return _private(render(request, "wizard/result.html", context))


# The confirmation's query parameter saying that the request had been recorded before.
QUOTE_ALREADY_RECORDED = "already"


@require_POST
@rate_limited(group="quote_request", rate_setting="QUOTE_REQUEST_RATE", methods=["POST"])
def quote_request(request: HttpRequest, token: str) -> HttpResponse:
    result = get_object_or_404(WizardResult, token=token)
    form = QuoteRequestForm(request.POST)
    if form.is_valid():
        try:
            _request, created = quote_request_create(result=result, **form.cleaned_data)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, messages)
        else:
            sent = reverse("wizard:quote_sent", kwargs={"token": result.token})
            return redirect(sent if created else f"{sent}?{QUOTE_ALREADY_RECORDED}=1")
    context = result_context(result, request)
    context["quote_form"] = form
    return _private(render(request, "wizard/result.html", context))


@require_GET
def quote_sent(request: HttpRequest, token: str) -> HttpResponse:
    result = get_object_or_404(WizardResult, token=token)
    url = request.build_absolute_uri(reverse("wizard:result", kwargs={"token": token}))
    context = {
        "result": result,
        "private_url": url,
        "already_recorded": request.GET.get(QUOTE_ALREADY_RECORDED) == "1",
    }
    return _private(render(request, "wizard/quote_sent.html", context))


# Bump when the checklist template or its context changes: older cached PDFs are then ignored.
CHECKLIST_PDF_VERSION = 1


@require_GET
@rate_limited(group="checklist_pdf", rate_setting="CHECKLIST_PDF_RATE", methods=["GET", "HEAD"])
def checklist_pdf(request: HttpRequest, token: str) -> HttpResponse:
    """The decision checklist as an A4 PDF, in the result's own language.

    A stored result never changes: its PDF is rendered once per language and then served from
    the cache (Redis in production)."""
    result = get_object_or_404(WizardResult, token=token)
    with translation.override(result.language):
        key = f"checklist-pdf:v{CHECKLIST_PDF_VERSION}:{result.token}:{result.language}"
        document = cache.get(key)
        if document is None:
            # The link printed in the PDF is the site's own (SITE_URL), whoever asked first.
            context = result_context(result)
            context["private_url"] = settings.SITE_URL.rstrip("/") + context["private_url"]
            document = pdf.render_pdf("pdf/checklist.html", context)
            cache.set(key, document, settings.CHECKLIST_PDF_CACHE_SECONDS)
        filename = gettext("gpuquote-checklist") + f"-{result.token[:8]}.pdf"
    response = HttpResponse(document, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)
