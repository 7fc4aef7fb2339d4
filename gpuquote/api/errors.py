"""One error shape for the whole API, RFC 9457 problem details plus the bad fields:

    {"type": "https://gpuquote.example/problems/invalid-input", "title": "Invalid input",
     "status": 400, "detail": "The request has invalid fields.",
     "message": "The request has invalid fields.", "errors": {"field.path": ["..."]}}

``message`` repeats ``detail`` (the API's first versions had only ``message`` and ``errors``).
Every DRF exception, and every engine error translated at the edge, goes through
``problem_exception_handler`` so that a partner parses one format.
"""

from __future__ import annotations

import itertools
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

# The exceptions live apart: the JSON parser raises them and is imported by DRF's views module.
from gpuquote.api.exceptions import InputError, PayloadTooLarge

__all__ = ["InputError", "PayloadTooLarge", "problem_exception_handler", "problem_response"]


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF nests errors like its serializers; partners get dotted field paths instead."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors":
                path = prefix or "non_field_errors"
            for field, messages in _flatten(value, path).items():
                flat.setdefault(field, []).extend(messages)
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return {prefix or "non_field_errors": [str(item) for item in detail]}
        flat = {}
        for index, item in enumerate(detail):
            for field, messages in _flatten(item, f"{prefix}[{index}]").items():
                flat.setdefault(field, []).extend(messages)
        return flat
    return {prefix or "non_field_errors": [str(detail)]}


PROBLEM_BASE = "https://gpuquote.example/problems/"
# Status -> (type slug, title): one documented type per status the API gives (docs/api.md).
PROBLEM_TYPES = {
    400: ("invalid-input", gettext_noop("Invalid input")),
    401: ("unauthenticated", gettext_noop("Authentication required")),
    403: ("forbidden", gettext_noop("Forbidden")),
    404: ("not-found", gettext_noop("Not found")),
    405: ("method-not-allowed", gettext_noop("Method not allowed")),
    406: ("not-acceptable", gettext_noop("Not acceptable")),
    409: ("conflict", gettext_noop("Conflict")),
    413: ("payload-too-large", gettext_noop("Payload too large")),
    415: ("unsupported-media-type", gettext_noop("Unsupported media type")),
    422: ("unprocessable", gettext_noop("Unprocessable request")),
    429: ("throttled", gettext_noop("Too many requests")),
}


def problem(status_code: int, detail: str, errors: dict[str, list[str]] | None = None) -> dict:
    slug, title = PROBLEM_TYPES.get(status_code, ("error", gettext_noop("Error")))
    return {
        "type": PROBLEM_BASE + slug,
        "title": _(title),  # in the request's language, like detail; type is the stable key
        "status": status_code,
        "detail": detail,
        "message": detail,
        "errors": errors or {},
    }


PROBLEM_CONTENT_TYPE = "application/problem+json"
MAX_REPORTED_ERRORS = 20  # a body with 300 bad fields gets the first 20 and the count


def _capped(detail: str, errors: dict[str, list[str]]) -> tuple[str, dict[str, list[str]]]:
    if len(errors) <= MAX_REPORTED_ERRORS:
        return detail, errors
    detail = _("The request has invalid fields: the first %(shown)s of %(count)s are listed.") % {
        "shown": MAX_REPORTED_ERRORS,
        "count": len(errors),
    }
    return detail, dict(itertools.islice(errors.items(), MAX_REPORTED_ERRORS))


def problem_response(status_code: int, detail: str, errors: dict | None = None) -> JsonResponse:
    """A problem outside DRF's views (unknown /api/ paths, Django's own refusals)."""
    return JsonResponse(
        problem(status_code, detail, errors),
        status=status_code,
        content_type=PROBLEM_CONTENT_TYPE,
    )


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):  # Django refused to read the body (form data)
        exc = PayloadTooLarge()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, InputError):
        detail, errors = str(exc.detail), exc.errors
    elif isinstance(exc, ValidationError):
        detail, errors = _("The request has invalid fields."), _flatten(exc.detail)
    else:
        found = response.data.get("detail", "") if isinstance(response.data, dict) else ""
        detail, errors = str(found), {}
    response.data = problem(response.status_code, *_capped(detail, errors))
    renderer = getattr(context.get("request"), "accepted_renderer", None)
    if renderer is None or renderer.media_type != "text/html":  # not the browsable API (DEBUG)
        response.content_type = PROBLEM_CONTENT_TYPE
    return response
