"""Stored results as the result page shows them, kept per process. A stored result never
changes (a snapshot: STYLE.md rule 5), so its decoded object, and its page's context in each
language, are worked out once per process instead of on every visit (a later visit renders
the result page under 30 ms). What depends on the visit (the forms, the CSRF token, the
absolute link) is added each time."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import translation

from gpuquote.core.kept import KeptValues
from quotes.advice.result import AdviceResult
from quotes.advice.store import result_from_json
from quotes.models import WizardResult
from quotes.wizard.result_page import result_context

RESULTS_KEPT = 64  # a decoded result and its two languages' contexts: ~0.5 MB (measured)


def stored_advice_get(result: WizardResult) -> AdviceResult | None:
    """The stored result's object (None: stored by an earlier schema)."""
    return _advices.get_or_make(result.token, lambda: result_from_json(result.result))


def result_page_context(
    result: WizardResult, advice: AdviceResult, request: HttpRequest
) -> dict[str, Any]:
    """``result_context`` for this visit: a fresh dict the view may add to."""
    key = (result.token, translation.get_language() or "")
    kept = _contexts.get_or_make(key, lambda: result_context(result, advice))
    context = dict(kept)
    context["result"] = result
    context["private_url"] = request.build_absolute_uri(kept["private_url"])
    return context


_advices: KeptValues[str, AdviceResult | None] = KeptValues(RESULTS_KEPT)
_contexts: KeptValues[tuple[str, str], dict[str, Any]] = KeptValues(RESULTS_KEPT * 2)
