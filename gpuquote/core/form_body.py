"""A body limit for the public HTML forms, enforced before the body is read.

Django parses a form body of up to ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MiB) as soon as anything
reads ``request.POST``, and ``CsrfViewMiddleware`` reads it before any view runs. The wizard's
steps, the result page's forms and the customer's quote page take a few KB (the longest, a quote
request's 4,000-character message, is under 40 KB even percent-encoded), so a view marked
``@form_body_limited`` refuses a body declared larger than ``FORM_BODY_BYTES`` with a 413, from
``FormBodyLimitMiddleware``, listed before the CSRF middleware: the body is never read. A body
sent without a length is not read by Django at all (its stream is empty).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

V = TypeVar("V", bound=Callable[..., Any])

_ATTRIBUTE = "form_body_limited"


def form_body_limited(view: V) -> V:
    """Mark ``view``: a body larger than ``FORM_BODY_BYTES`` is refused before it is read."""
    setattr(view, _ATTRIBUTE, True)
    return view


def declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


class FormBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponse | None:
        if not getattr(view_func, _ATTRIBUTE, False):
            return None
        limit = int(settings.FORM_BODY_BYTES)
        if declared_length(request) <= limit:
            return None
        message = gettext("The request body is larger than %(max)s bytes.") % {"max": limit}
        response = HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        response["Cache-Control"] = "no-store"
        return response
