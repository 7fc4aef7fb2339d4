"""The page django-axes answers with once a user name is locked out from an address
(``AXES_LOCKOUT_CALLABLE``): translated, in the site's layout, saying when to try again."""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
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


class AddressLimitedHandler(AxesDatabaseHandler):
    """django-axes' database handler, plus a limit per client address across user names
    (``AXES_ADDRESS_FAILURE_LIMIT`` failures within the cool-off): spraying one password over
    many user names from one address is locked out too, while the per user name + address
    lockout stays as it was. Axes compares ``get_failures`` with ``AXES_FAILURE_LIMIT``, both
    to refuse a login and to answer the lockout page, so an address over its own limit counts
    as at that limit."""

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        failures = int(super().get_failures(request, credentials))
        address = getattr(request, "axes_ip_address", None)
        if not address:
            return failures
        attempts = AccessAttempt.objects.filter(ip_address=address)
        cool_off = get_cool_off(request)
        if cool_off:
            attempts = attempts.filter(attempt_time__gte=timezone.now() - cool_off)
        total = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
        if total >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(failures, int(get_failure_limit(request, credentials)))
        return failures
