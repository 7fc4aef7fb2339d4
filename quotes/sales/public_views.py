"""The customer's private quote link, /q/<token>/: the quote as sent, its PDF, and the answer.

The token (256 bits) is the only key: whoever holds the link reads the quote, downloads its PDF
and answers it, as the e-mail that carried it meant. Responses are private (never indexed nor
cached by shared caches).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.views.decorators.http import require_GET, require_http_methods

from engine.commerce.workflow import QuoteStatus
from gpuquote.core.form_body import form_body_limited
from gpuquote.core.ratelimit import rate_limited
from quotes.models import Quote, QuoteEventKind, QuoteRevision
from quotes.pdf.quote import quote_document_context, quote_pdf_filename, quote_pdf_render
from quotes.sales import services
from quotes.sales.forms import CustomerAnswerForm
from quotes.sales.selectors import quote_by_token_get


def _private(response: HttpResponse) -> HttpResponse:
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "same-origin"
    response["Cache-Control"] = "private, no-store"
    return response


def _quote_or_404(token: str) -> Quote:
    try:
        return quote_by_token_get(token=token)
    except Quote.DoesNotExist:
        raise Http404 from None


def _customer_revision(quote: Quote) -> QuoteRevision:
    """What the customer sees: the last revision that went to them, never a draft (a first
    draft, or the next revision the sales team is preparing). A quote never sent has no
    customer page: 404, as for an unknown token."""
    revision = quote.revision
    if revision.sent_at is not None:
        return revision
    sent = quote.revisions.filter(sent_at__isnull=False).order_by("-index").first()
    if sent is None:
        raise Http404
    return sent


@form_body_limited
@require_http_methods(["GET", "POST"])
def quote_public(request: HttpRequest, token: str) -> HttpResponse:
    """The latest revision, its PDF, and the accept / decline buttons while the quote is open."""
    quote = _quote_or_404(token)
    form = CustomerAnswerForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.quote_customer_answer(
                token=token,
                accept=form.cleaned_data["decision"] == "accept",
                name=form.cleaned_data["name"],
                reason=form.cleaned_data["reason"],
            )
        except ValidationError as error:
            form.add_error(None, error)
            quote = _quote_or_404(token)  # the refusal may come from a change since the GET
        else:
            return _private(redirect("sales:quote_public", token=token))
    revision = _customer_revision(quote)
    context = quote_document_context(quote=quote, revision=revision)
    answer = (
        quote.events.filter(kind=QuoteEventKind.CUSTOMER_ANSWER).order_by("-created_at").first()
    )
    open_for_answer = (
        quote.status == QuoteStatus.SENT and timezone.localdate() <= revision.valid_until
    )
    context |= {
        "form": form,
        "answer": answer,
        "open_for_answer": open_for_answer,
        "closed": None if open_for_answer else _closed_because(quote, revision.valid_until),
        "refused": request.method == "POST",
    }
    return _private(render(request, "quotes/public_quote.html", context))


# Bump when the quote template or its context changes: older cached PDFs are then ignored.
QUOTE_PDF_VERSION = 1


@require_GET
@rate_limited(group="quote_pdf", rate_setting="QUOTE_PDF_RATE", methods=["GET", "HEAD"])
def quote_public_pdf(request: HttpRequest, token: str) -> HttpResponse:
    """The PDF of the last revision the customer was sent (the e-mail's attachment), in the
    quote's language; 404 for a quote never sent."""
    quote = _quote_or_404(token)
    revision = _customer_revision(quote)
    # A PDF costs about half a second of CPU: rendered once per revision and state of the quote
    # (any save moves ``updated_at``), then served from the cache.
    key = ":".join(
        str(part)
        for part in (
            "quote-pdf",
            QUOTE_PDF_VERSION,
            quote.pk,
            revision.pk,
            quote.language,
            quote.updated_at.isoformat(),
            revision.sent_at.isoformat() if revision.sent_at else "",
        )
    )
    document = cache.get(key)
    if document is None:
        with translation.override(quote.language):
            document = quote_pdf_render(quote=quote, revision=revision)
        cache.set(key, document, settings.QUOTE_PDF_CACHE_SECONDS)
    response = HttpResponse(document, content_type="application/pdf")
    filename = quote_pdf_filename(quote=quote, revision=revision)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)


def _closed_because(quote: Quote, valid_until: dt.date) -> dict[str, Any]:
    """Why the customer may not answer now: ``kind`` (accepted, declined, expired, revising,
    other) and ``on``, the date it happened (the answer's time, or the last day of validity)."""
    if quote.status in (QuoteStatus.ACCEPTED, QuoteStatus.DECLINED):
        event = quote.events.filter(to_status=quote.status).order_by("-created_at").first()
        return {"kind": quote.status, "on": event.created_at if event else None}
    if quote.status in (QuoteStatus.SENT, QuoteStatus.EXPIRED):
        return {"kind": "expired", "on": valid_until}
    if quote.status == QuoteStatus.DRAFT:
        # The link goes out with the first sending only: a draft behind it is the sales team
        # preparing the next revision (the sent one was taken back).
        return {"kind": "revising", "on": None}
    return {"kind": "other", "on": None}
