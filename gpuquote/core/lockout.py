"""The page django-axes answers with once a user name is locked out from an address
(``AXES_LOCKOUT_CALLABLE``): translated, in the site's layout, saying when to try again."""

from __future__ import annotations

from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

TEMPLATE = "registration/locked_out.html"


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """429 with ``Retry-After``: each failure during the lockout restarts the cool-off, so the
    earliest retry is one cool-off from now."""
    cool_off = get_cool_off(request)
    retry_at = timezone.now() + cool_off if cool_off else None
    response = render(request, TEMPLATE, {"retry_at": retry_at}, status=429)
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
