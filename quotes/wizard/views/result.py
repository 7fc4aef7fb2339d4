"""The stored result at its private link: the page, its checklist PDF, a quote request."""

from __future__ import annotations

import dataclasses

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from catalog.selectors.exchange_rates import conversion_rates_get
from engine.assumptions import AssumptionError
from engine.tco import TcoInputError
from engine.workload import WorkloadError
from gpuquote.core.form_body import form_body_limited
from gpuquote.core.ratelimit import rate_limited
from quotes.advice.presenters import cloud_market_panel, localized_text
from quotes.advice.result import AdviceResult
from quotes.advice.selectors import (
    catalog_gpu_choices_get,
    catalog_gpus_get,
    cloud_market_for_gpu_get,
)
from quotes.advice.store import inputs_from_json
from quotes.models import WizardResult
from quotes.pdf import render as pdf_render
from quotes.wizard.export import options_csv
from quotes.wizard.forms import (
    QuoteRequestForm,
)
from quotes.wizard.forms.reprice import RepriceForm
from quotes.wizard.reprice import repriced
from quotes.wizard.result_cache import result_page_context, stored_advice_get
from quotes.wizard.result_page import result_context
from quotes.wizard.services import quote_request_create, wizard_result_create
from quotes.wizard.views.steps import active_language


def _private(response: HttpResponse) -> HttpResponse:
    """A private link: never indexed, not kept by shared caches, not sent to other sites."""
    response["X-Robots-Tag"] = "noindex, nofollow"
    # Not "no-referrer": browsers would then post the quote form with "Origin: null" (CSRF).
    response["Referrer-Policy"] = "same-origin"
    response["Cache-Control"] = "private, no-store"
    return response


def _outdated(request: HttpRequest, result: WizardResult, error: str = "") -> HttpResponse:
    context = {"result": result, "error": error}
    return _private(render(request, "wizard/result_outdated.html", context))


@require_GET
def result_detail(request: HttpRequest, token: str) -> HttpResponse:
    result = get_object_or_404(WizardResult, token=token)
    advice = stored_advice_get(result)
    if advice is None:
        return _outdated(request, result)
    return _result_page(request, result, advice)


def _result_page(
    request: HttpRequest,
    result: WizardResult,
    advice: AdviceResult,
    *,
    quote_form: QuoteRequestForm | None = None,
    reprice_form: RepriceForm | None = None,
) -> HttpResponse:
    context = result_page_context(result, advice, request)
    # The market today (not part of the stored result): the cheapest cloud offers for its GPU.
    gpu = advice.recommended_gpu
    if gpu is not None:
        market = cloud_market_for_gpu_get(gpu_model=gpu.name, currency=advice.inputs.currency)
        context["cloud_market"] = cloud_market_panel(
            market,
            gpu_name=gpu.name,
            currency=advice.inputs.currency,
            rates=conversion_rates_get(),
        )
    context["quote_form"] = quote_form or QuoteRequestForm()
    context["reprice_form"] = reprice_form or RepriceForm(
        initial=RepriceForm.initial_from(advice.inputs),
        gpus=catalog_gpu_choices_get(currency=advice.inputs.currency),
    )
    return _private(render(request, "wizard/result.html", context))


@form_body_limited
@require_POST
@rate_limited(group="wizard", rate_setting="WIZARD_RATE", methods=["POST"])
def result_reprice(request: HttpRequest, token: str) -> HttpResponse:
    """The same answers with another GPU model or count, horizon, region or deployment, computed
    under a new private link (the old one keeps its answers and any quote request made on it).
    A mistake shows the page again with the form's errors, named by field."""
    result = get_object_or_404(WizardResult, token=token)
    advice = stored_advice_get(result)
    if advice is None:
        return redirect("wizard:result", token=result.token)
    # Validated against the catalog itself, not the cached list: a model just removed is refused.
    gpus = catalog_gpus_get(currency=advice.inputs.currency)
    choices = [(gpu.sku, gpu.name) for gpu in gpus if gpu.price is not None]
    form = RepriceForm(request.POST, gpus=choices)
    if form.is_valid():
        answers, inputs = repriced(result.answers, advice.inputs, form.cleaned_data)
        try:
            fresh = wizard_result_create(answers=answers, inputs=inputs, language=active_language())
        except (AssumptionError, TcoInputError) as exc:
            form.add_error(None, localized_text(exc.message))
        except WorkloadError:
            # The stored answers passed under earlier rules, not today's: the wizard asks again.
            form.add_error(None, gettext("Your answers need checking: change them in the wizard."))
        else:
            return redirect(reverse("wizard:result", kwargs={"token": fresh.token}) + "#answer")
    return _result_page(request, result, advice, reprice_form=form)


@form_body_limited
@require_POST
@rate_limited(group="wizard", rate_setting="WIZARD_RATE", methods=["POST"])
def result_recompute(request: HttpRequest, token: str) -> HttpResponse:
    """A result stored by an earlier schema, computed again from its stored inputs under a new
    private link (the old one keeps its answers and any quote request made on it)."""
    result = get_object_or_404(WizardResult, token=token)
    if stored_advice_get(result) is not None:
        return redirect("wizard:result", token=result.token)
    inputs = inputs_from_json(result.result)
    if inputs is None:
        return _outdated(request, result, gettext("Your answers could not be read: start again."))
    try:
        fresh = wizard_result_create(
            answers=result.answers, inputs=inputs, language=active_language()
        )
    except (WorkloadError, AssumptionError, TcoInputError):
        # The answers were valid under earlier rules, not today's: the wizard asks again.
        return _outdated(request, result, gettext("Your answers need checking: start again."))
    return redirect("wizard:result", token=fresh.token)


@form_body_limited
@require_POST
@rate_limited(group="wizard", rate_setting="WIZARD_RATE", methods=["POST"])
def result_use_budget(request: HttpRequest, token: str) -> HttpResponse:
    """ "Use 146,493 EUR": the same answers with the budget the cheapest sound configuration
    needs, computed under a new private link (the old one keeps its answers)."""
    result = get_object_or_404(WizardResult, token=token)
    advice = stored_advice_get(result)
    if advice is None or advice.build.budget_needed is None:
        return redirect("wizard:result", token=result.token)
    needed = advice.build.budget_needed.amount
    inputs = dataclasses.replace(advice.inputs, budget=needed)
    answers = dict(result.answers)
    deployment = dict(answers.get("deployment") or {})
    deployment["budget"] = str(needed)
    answers["deployment"] = deployment
    fresh = wizard_result_create(answers=answers, inputs=inputs, language=active_language())
    return redirect("wizard:result", token=fresh.token)


@require_GET
def result_csv(request: HttpRequest, token: str) -> HttpResponse:
    """The options and their costs as a CSV file, in the result's language."""
    result = get_object_or_404(WizardResult, token=token)
    advice = stored_advice_get(result)
    if advice is None:
        return redirect("wizard:result", token=result.token)
    with translation.override(result.language):
        document = options_csv(advice)
        filename = gettext("gpuquote-options") + f"-{result.token[:8]}.csv"
    # A byte-order mark: Excel then reads the file as UTF-8 (names with accents, "×").
    response = HttpResponse("\ufeff" + document, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)


# The confirmation's query parameter saying that the request had been recorded before.
QUOTE_ALREADY_RECORDED = "already"


@form_body_limited
@require_POST
@rate_limited(group="quote_request", rate_setting="QUOTE_REQUEST_RATE", methods=["POST"])
def quote_request(request: HttpRequest, token: str) -> HttpResponse:
    result = get_object_or_404(WizardResult, token=token)
    advice = stored_advice_get(result)
    if advice is None:
        return redirect("wizard:result", token=result.token)
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
    return _result_page(request, result, advice, quote_form=form)


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
CHECKLIST_PDF_VERSION = 4


@require_GET
@rate_limited(group="checklist_pdf", rate_setting="CHECKLIST_PDF_RATE", methods=["GET", "HEAD"])
def checklist_pdf(request: HttpRequest, token: str) -> HttpResponse:
    """The decision checklist as an A4 PDF, in the result's own language.

    A stored result never changes: its PDF is rendered once per language and then served from
    the cache (Redis in production)."""
    # The stored figures are read (and decoded) only when the PDF is not in the cache yet.
    result = get_object_or_404(WizardResult.objects.defer("result"), token=token)
    with translation.override(result.language):
        key = f"checklist-pdf:v{CHECKLIST_PDF_VERSION}:{result.token}:{result.language}"
        document = cache.get(key)
        if document is None:
            advice = stored_advice_get(result)
            if advice is None:
                return redirect("wizard:result", token=result.token)
            # The link printed in the PDF is the site's own (SITE_URL), whoever asked first.
            context = result_context(result, advice)
            site = str(settings.SITE_URL).rstrip("/")
            context["private_url"] = site + context["private_url"]
            document = pdf_render.render_pdf("pdf/checklist.html", context)
            cache.set(key, document, settings.CHECKLIST_PDF_CACHE_SECONDS)
        filename = gettext("gpuquote-checklist") + f"-{result.token[:8]}.pdf"
    response = HttpResponse(document, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)
