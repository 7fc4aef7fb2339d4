"""The customer wizard's four steps: plain HTML forms (POST, then redirect).

Answers live in the session between steps, as the raw form data of each step (formtools'
storage), and the last step re-validates every step before anything is computed (formtools'
``done()``). JavaScript only enhances.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.http import require_http_methods, require_POST

from engine.assumptions import AssumptionError
from engine.tco import TcoInputError
from gpuquote.core.form_body import form_body_limited
from gpuquote.core.ratelimit import rate_limited
from quotes.advice.inputs import utilization_pct_for_uptime
from quotes.advice.presenters import assumption_words, localized_text
from quotes.advice.result import AdviceInputs
from quotes.advice.selectors import assumptions_get
from quotes.wizard.forms import (
    REGION_NAMES,
    STEP_FORMS,
    STEP_TITLES,
    STEPS,
    DataForm,
    DeploymentForm,
    ProjectForm,
    WizardStepForm,
)
from quotes.wizard.services import wizard_result_create

SESSION_KEY = "gpuquote_wizard"


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
    return form.answers() if isinstance(form, ProjectForm) else None


def active_language() -> str:
    code = translation.get_language() or settings.LANGUAGE_CODE
    return translation.get_supported_language_variant(code)


# --- The steps ------------------------------------------------------------------------------


@form_body_limited
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
        result = wizard_result_create(answers=answers, inputs=inputs, language=active_language())
    except (AssumptionError, TcoInputError) as exc:
        form = forms["deployment"]
        field = {"electricity_price_per_kwh": "electricity_price"}.get(exc.field, exc.field)
        form.add_error(field if field in form.fields else None, localized_text(exc.message))
        return _render_step(request, "deployment", form, stored)
    return redirect("wizard:result", token=result.token)


def _inputs(forms: Mapping[str, WizardStepForm]) -> AdviceInputs:
    data_form = forms["data"]
    deployment = forms["deployment"]
    if not isinstance(data_form, DataForm) or not isinstance(deployment, DeploymentForm):
        raise TypeError("the wizard's steps are out of order")
    usage = forms["usage"].cleaned_data
    chosen = deployment.cleaned_data
    return AdviceInputs(
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
        service_tier=chosen.get("service_tier") or "",
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
                    assumption_words(eur[name], "EUR", localized_text)["source"]
                    for name in ("electricity_price_per_kwh", "pue", "grid_carbon_kg_per_kwh")
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


@form_body_limited
@require_POST
def wizard_reset(request: HttpRequest) -> HttpResponse:
    request.session.pop(SESSION_KEY, None)
    return redirect("wizard:start")


# --- The result -----------------------------------------------------------------------------
