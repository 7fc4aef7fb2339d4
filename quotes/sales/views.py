"""The sales team's screens (the customer's private quote page is in ``public_views``).

Plain Django views: each validates a form, calls one service from ``quotes.sales.services`` and
redirects (POST) or renders what a selector read (GET). Refusals from the services (the
workflow's reasons, prices that do not add up) are shown as messages on the quote page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from catalog.selectors import price_ages_get
from catalog.selectors.source_health import price_sources_health
from engine.build.rules import rule_get
from engine.commerce.numbering import display_number
from engine.commerce.pricing import PricingError
from engine.commerce.workflow import Role, allowed_actions, validity_needs_approval
from gpuquote.core.roles import user_role
from quotes.advice.answer import answer_context
from quotes.advice.presenters import localized_text, option_to_dict, text
from quotes.models import Quote, QuoteRequest
from quotes.pdf.quote import quote_document_context, quote_pdf_filename, quote_pdf_render
from quotes.sales import services
from quotes.sales.forms import (
    ActionForm,
    CustomerForm,
    DashboardFilterForm,
    LineRemoveForm,
    LineUpdateForm,
    OptionApplyForm,
    PartLineForm,
    QuoteCreateForm,
    ServiceLineForm,
    ServiceTierSetForm,
    TermsForm,
    WorkloadForm,
)
from quotes.sales.history import event_details, status_label
from quotes.sales.managed_view import managed_context
from quotes.sales.request_summary import quote_requests_new_summaries
from quotes.sales.selectors import (
    approval_threshold_pct,
    approved_discount_get,
    quote_events_get,
    quote_get,
    quote_list,
    quote_rate_deviation_pct,
    quote_revisions_get,
    quote_server_review_get,
    quote_status_counts,
    quote_workload_get,
    quotes_awaiting_approval,
    rate_tolerance_pct,
    revision_digest,
    validity_max_days,
)
from quotes.sales.services import build as build_services

LOGIN_URL = "sales:login"
PAGE_SIZE = 25


class SalesRequest(HttpRequest):
    """A request that ``sales_team`` let through, as type checkers see it (never made: the
    decorator sets ``sales_role``, the caller's role, on Django's own request)."""

    sales_role: Role


def sales_team(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed in (else the login page) and in a sales group (else 403; ``gpuquote.core.roles``)."""

    @wraps(view)
    @login_required(login_url=LOGIN_URL)
    def wrapper(request: SalesRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        request.sales_role = user_role(request.user)  # PermissionDenied -> 403
        return view(request, *args, **kwargs)

    return wrapper


def _error_messages(request: HttpRequest, error: ValidationError) -> None:
    for message in error.messages:
        messages.error(request, message)


def _form_errors(request: HttpRequest, form: Any) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


# --- Dashboard ----------------------------------------------------------------------------------


@require_GET
@sales_team
def dashboard(request: SalesRequest) -> HttpResponse:
    form = DashboardFilterForm(request.GET or None)
    filters: dict[str, Any] = {}
    if form.is_valid():
        filters = {
            "search": form.cleaned_data["q"],
            "status": form.cleaned_data["status"],
            "origin": form.cleaned_data["origin"],
            "created_from": form.cleaned_data["created_from"],
            "created_to": form.cleaned_data["created_to"],
        }
    page = Paginator(quote_list(**filters), PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "staff/dashboard.html",
        {
            "form": form,
            "page": page,
            "query": query.urlencode(),
            # Each status's chip: its value (the filter's), its label in the page's language.
            "counts": [
                (status, status_label(status), count)
                for status, count in quote_status_counts().items()
            ],
            "requests": quote_requests_new_summaries(limit=20),
            # The approval queue, for those who may approve: the sales managers (the group
            # setup_roles gives quotes.approve_discount) and the admin. The role, not has_perm:
            # the workflow authorises approving by role, and a rep's page costs no query more.
            "approvals": (
                quotes_awaiting_approval(today=timezone.localdate())
                if request.sales_role == Role.SALES_MANAGER
                else None
            ),
            "threshold": approval_threshold_pct(),
            # Prices a quote is built from may be old when a source stopped refreshing.
            "stale_sources": [health for health in price_sources_health() if health.stale],
        },
    )


@require_POST
@sales_team
def quote_approve(request: HttpRequest, pk: int) -> HttpResponse:
    """Approve from the dashboard's queue; back to the queue, saying which quote."""
    quote = _quote_or_404(pk)
    try:
        services.quote_discount_approve(
            user=request.user, quote=quote, digest=request.POST.get("digest", "")
        )
    except ValidationError as error:
        _error_messages(request, error)
    else:
        messages.success(
            request, gettext("Discount of quote %(number)s approved.") % {"number": quote.number}
        )
    return redirect("sales:dashboard")


# --- Creating -----------------------------------------------------------------------------------


@require_POST
@sales_team
def quote_from_request(request: HttpRequest, pk: int) -> HttpResponse:
    quote_request = get_object_or_404(QuoteRequest, pk=pk)
    try:
        quote = services.quote_create_from_request(user=request.user, quote_request=quote_request)
    except ValidationError as error:
        _error_messages(request, error)
        return redirect("sales:dashboard")
    return redirect("sales:quote_detail", pk=quote.pk)


@require_http_methods(["GET", "POST"])
@sales_team
def quote_new(request: HttpRequest) -> HttpResponse:
    form = QuoteCreateForm(request.POST or None, initial={"language": translation.get_language()})
    if request.method == "POST" and form.is_valid():
        try:
            quote = services.quote_create(user=request.user, origin="staff", **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            return redirect("sales:quote_detail", pk=quote.pk)
    return render(request, "staff/quote_new.html", {"form": form})


# --- One quote ----------------------------------------------------------------------------------


def _quote_or_404(pk: int) -> Quote:
    try:
        return quote_get(pk=pk)
    except Quote.DoesNotExist:
        raise Http404 from None


@require_GET
@sales_team
def quote_detail(request: SalesRequest, pk: int) -> HttpResponse:
    quote = _quote_or_404(pk)
    revision = quote.revision
    revisions = list(quote_revisions_get(quote=quote))
    context: dict[str, Any] = {"quote": quote, "revision": revision, "pricing_error": ""}
    try:
        context |= quote_document_context(quote=quote, revision=revision)
    except PricingError as error:
        context["pricing_error"] = localized_text(error.message)
        context["display_number"] = display_number(quote.number, revision.index)
        context["rows"] = [{"line": line} for line in revision.lines.all()]
    actions: tuple[str, ...] = ()
    approval_pending = False
    if "totals" in context:
        from engine.commerce.workflow import context_for

        workflow = context_for(
            context["totals"],
            role=request.sales_role,
            today=timezone.localdate(),
            valid_until=revision.valid_until,
            approval_threshold_pct=approval_threshold_pct(),
            approved_discount_pct=approved_discount_get(
                quote=quote, revision=revision, totals=context["totals"]
            ),
            rate_deviation_pct=quote_rate_deviation_pct(quote=quote, revision=revision),
            rate_tolerance_pct=rate_tolerance_pct(),
            validity_max_days=validity_max_days(),
        )
        actions = allowed_actions(quote.status, request.sales_role, workflow)
        approval_pending = workflow.approval_pending
        hand_pending = approval_pending and workflow.hand_priced_parts > 0
        rate_pending = approval_pending and workflow.rate_needs_approval and not hand_pending
        context["approval_digest"] = revision_digest(
            quote=quote, revision=revision, totals=context["totals"]
        )
        context["rate_approval"] = {
            "deviation": workflow.rate_deviation_pct,
            "tolerance": workflow.rate_tolerance_pct,
            "pending": rate_pending,
            "hand_priced": hand_pending,
        }
        context["validity_approval"] = {
            "pending": approval_pending
            and validity_needs_approval(revision.valid_until, workflow.today, validity_max_days()),
            "max_days": validity_max_days(),
        }
    context |= {
        "review": _review_context(quote),
        "actions": actions,
        "approval_pending": approval_pending,
        "threshold": approval_threshold_pct(),
        "role": request.sales_role,
        "events": [
            {
                "event": event,
                "details": event_details(event),
                "from_status": status_label(event.from_status),
                "to_status": status_label(event.to_status),
            }
            for event in quote_events_get(quote=quote)
        ],
        # Catalog prices past PRICE_STALE_DAYS: the frozen line price may need confirming.
        "price_ages": price_ages_get(currency=quote.currency),
        "revisions": revisions,
        # Three forms on one page: distinct ids, so every label points at its own field.
        "part_form": PartLineForm(auto_id="part_%s", initial={"quantity": 1, "discount_pct": 0}),
        "service_form": ServiceLineForm(
            auto_id="service_%s", initial={"quantity": 1, "discount_pct": 0}
        ),
        "service_tier_form": _service_tier_form(quote, [row["line"] for row in context["rows"]]),
        "terms_form": TermsForm(
            auto_id="terms_%s",
            initial={
                "discount_pct": revision.discount_pct,
                "valid_until": revision.valid_until,
                "contract_months": revision.contract_months,
                "notes": revision.notes,
            },
        ),
        "editable": quote.status != "accepted",
        "customer_form": CustomerForm(
            auto_id="customer_%s",
            initial={
                "country": quote.country.code,
                "vat_number": quote.vat_number,
                "is_business": quote.is_business,
            },
        ),
        **_workload_context(quote),
        "managed": managed_context(quote),
        "answer": answer_context((quote.snapshot or {}).get("recommendation")),
        # The customer's link as the e-mail gives it, ready to paste; it opens once a revision
        # was sent (before that the customer page answers 404).
        "public_url": services.quote_customer_link(quote),
        "ever_sent": any(item.sent_at is not None for item in revisions),
    }
    return render(request, "staff/quote_detail.html", context)


def _review_context(quote: Quote) -> dict[str, Any] | None:
    """The server checks of the quoted parts, as the page shows them (active language)."""
    review = quote_server_review_get(quote=quote)
    if review is None:
        return None
    return {
        "passed": review.passed,
        "with_workload": review.with_workload,
        "servers": review.configuration.servers if review.configuration else None,
        "problems": [localized_text(message) for message in review.problems],
        "checks": [
            {
                "rule": check.rule,
                "title": localized_text(rule_get(check.rule).title),
                "passed": check.passed,
                "warning": check.warning,
                "detail": localized_text(check.detail),
            }
            for check in review.checks
        ],
        "failed_count": len(review.failures),
    }


def _workload_context(quote: Quote) -> dict[str, Any]:
    """The workload panel: the form (quotes not made from a wizard result) and the builder's
    proposals for the stored workload, each with its price and how many checks pass."""
    from_wizard = (quote.snapshot or {}).get("source") == build_services.WIZARD_SOURCE
    workload, environment = quote_workload_get(quote=quote)
    inputs = (quote.snapshot or {}).get("inputs") or {}
    initial = {"environment": environment.value, "growth_gpus": inputs.get("growth_gpus", 0)}
    if workload:
        initial |= {
            "task": workload.get("task"),
            "model": workload.get("model") or "",
            "parameters_billions": workload.get("parameters_billions"),
            "workload_json": workload,
        }
    advice = None if from_wizard else build_services.quote_proposals_get(quote=quote)
    return {
        "from_wizard": from_wizard,
        "workload": workload,
        "workload_form": WorkloadForm(auto_id="workload_%s", initial=initial),
        "proposals": [] if advice is None else [option_to_dict(o) for o in advice.build.options],
        "proposals_unmet": [] if advice is None else [text(m) for m in advice.build.unmet],
    }


def _post(
    request: HttpRequest,
    pk: int,
    form_class: type,
    call: Callable[[Quote, dict], object],
    done: Callable[[dict], str] | None = None,
) -> HttpResponse:
    quote = _quote_or_404(pk)
    form = form_class(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        try:
            call(quote, form.cleaned_data)
        except ValidationError as error:
            _error_messages(request, error)
        else:
            messages.success(request, done(form.cleaned_data) if done else gettext("Saved."))
    return redirect("sales:quote_detail", pk=pk)


def _service_tier_form(quote: Quote, lines: list[Any]) -> ServiceTierSetForm | None:
    """The support level's form, for a quote whose ``lines`` bill managed hosting."""
    billed = next((line for line in lines if line.role == "service_tier"), None)
    if billed is None and not any(line.role == "managed_hosting" for line in lines):
        return None
    initial = {"code": billed.sku} if billed is not None else {}
    return ServiceTierSetForm(auto_id="tier_%s", currency=quote.currency, initial=initial)


@require_POST
@sales_team
def line_add_part(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        PartLineForm,
        lambda quote, data: services.quote_line_add_part(user=request.user, quote=quote, **data),
    )


@require_POST
@sales_team
def line_add_service(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        ServiceLineForm,
        lambda quote, data: services.quote_line_add(
            user=request.user, quote=quote, line=services.LineInput(**data)
        ),
    )


@require_POST
@sales_team
def line_update(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        LineUpdateForm,
        lambda quote, data: services.quote_line_update(user=request.user, quote=quote, **data),
    )


@require_POST
@sales_team
def line_remove(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        LineRemoveForm,
        lambda quote, data: services.quote_line_remove(user=request.user, quote=quote, **data),
    )


@require_POST
@sales_team
def terms_update(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        TermsForm,
        lambda quote, data: services.quote_terms_update(user=request.user, quote=quote, **data),
    )


@require_POST
@sales_team
def customer_update(request: HttpRequest, pk: int) -> HttpResponse:
    """The customer's country, VAT number and status (they decide the VAT), on a draft."""
    return _post(
        request,
        pk,
        CustomerForm,
        lambda quote, data: services.quote_customer_update(user=request.user, quote=quote, **data),
    )


@require_POST
@sales_team
def workload_set(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        WorkloadForm,
        lambda quote, data: build_services.quote_workload_set(
            user=request.user,
            quote=quote,
            workload=data["workload"],
            environment=data["environment"],
            growth_gpus=data["growth_gpus"],
        ),
    )


@require_POST
@sales_team
def service_tier_set(request: HttpRequest, pk: int) -> HttpResponse:
    # The tiers' codes are the same in every currency: the form checks the code, the service
    # prices it in the quote's currency.
    return _post(
        request,
        pk,
        ServiceTierSetForm,
        lambda quote, data: build_services.quote_service_tier_set(
            user=request.user, quote=quote, code=data["code"]
        ),
    )


@require_POST
@sales_team
def option_apply(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        OptionApplyForm,
        lambda quote, data: build_services.quote_option_apply(
            user=request.user, quote=quote, tier=data["tier"]
        ),
    )


def _act(user: Any, quote: Quote, data: dict[str, Any]) -> object:
    action = data["action"]
    if action == "approve_discount":
        return services.quote_discount_approve(user=user, quote=quote, digest=data["digest"])
    if action == "send":
        return services.quote_send(
            user=user, quote=quote, failed_checks_acknowledged=data["acknowledge_checks"]
        )
    if action == "reprice":
        return services.quote_reprice(user=user, quote=quote)
    return services.quote_answer_record(
        user=user, quote=quote, accept=action == "accept", reason=data["reason"]
    )


@require_POST
@sales_team
def quote_action(request: HttpRequest, pk: int) -> HttpResponse:
    return _post(
        request,
        pk,
        ActionForm,
        lambda quote, data: _act(request.user, quote, data),
        done=lambda data: str(_ACTION_DONE.get(data["action"], gettext_lazy("Saved."))),
    )


# What the page says once an action went through ("Sent.", not "Saved.").
_ACTION_DONE = {
    "send": gettext_lazy("Sent to the customer."),
    "approve_discount": gettext_lazy("Discount approved."),
    "accept": gettext_lazy("Acceptance recorded."),
    "decline": gettext_lazy("Refusal recorded."),
    "revise": gettext_lazy("New revision started."),
    "reprice": gettext_lazy("Repriced to the current catalog: a new revision."),
}


@require_GET
@sales_team
def quote_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """The current revision's PDF in the quote's language; ``?download=1`` saves it."""
    quote = _quote_or_404(pk)
    revision = quote.revision
    with translation.override(quote.language):
        try:
            document = quote_pdf_render(quote=quote, revision=revision)
        except PricingError as error:
            messages.error(request, localized_text(error.message))
            return redirect("sales:quote_detail", pk=pk)
    response = HttpResponse(document, content_type="application/pdf")
    disposition = "attachment" if request.GET.get("download") else "inline"
    filename = quote_pdf_filename(quote=quote, revision=revision)
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    return response
