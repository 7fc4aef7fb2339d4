"""An incoming ``X-Request-ID`` is kept only when it is a plain UUID (32 hex digits, with or
without hyphens): django-guid's own check is ``uuid.UUID()``, which also takes braces, a
``urn:uuid:`` prefix or surrounding whitespace and would send them back as given (a line break
then breaks the response header, and lands in log lines). Anything else is dropped here, so
django-guid makes a new id. Placed just before django-guid's middleware."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

REQUEST_ID_META = "HTTP_X_REQUEST_ID"
_PLAIN_UUID = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def plain_request_id(value: str) -> bool:
    return _PLAIN_UUID.fullmatch(value) is not None


class RequestIdScreenMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        given = request.META.get(REQUEST_ID_META)
        if given is not None and not plain_request_id(given):
            del request.META[REQUEST_ID_META]
        return self.get_response(request)
