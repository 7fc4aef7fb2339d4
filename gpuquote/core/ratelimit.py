"""Rate limits on the anonymous HTML endpoints (django-ratelimit), per client address.

The client address follows the API's rule (``NUM_PROXIES`` trusted proxies in front):
``gpuquote.core.client_ip``; counters live in the limits' cache (``RATELIMIT_USE_CACHE``, Redis
in production, files under var/ in embedded production: shared by every process). Over the
limit a visitor gets a translated HTML 429 page with ``Retry-After``, not a 403. While the cache
fails the limit lets requests through (``RATELIMIT_FAIL_OPEN``; the cache logs and counts each
failure, ``gpuquote.core.cache``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django_ratelimit.core import get_usage

from gpuquote.core.client_ip import client_ip

View = Callable[..., HttpResponse]


def client_key(group: str, request: HttpRequest) -> str:
    """django-ratelimit's key: the client's address, as the API's throttles see it."""
    return client_ip(request)


def _rate(setting: str) -> Callable[[str, HttpRequest], str]:
    """The rate read from ``settings`` at request time (so a test may override it)."""

    def rate(group: str, request: HttpRequest) -> str:
        return str(getattr(settings, setting))

    rate.__name__ = f"rate_{setting.lower()}"
    return rate


def too_many_requests(request: HttpRequest, *, retry_after: int) -> HttpResponse:
    """The translated 429 page, with how many seconds to wait."""
    context = {"retry_after": retry_after, "retry_minutes": max(1, -(-retry_after // 60))}
    body = render_to_string("errors/429.html", context, request=request)
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response


def rate_limited(
    *, group: str, rate_setting: str, methods: Iterable[str]
) -> Callable[[View], View]:
    """Count the client's ``methods`` requests in ``group``; over the rate named by
    ``rate_setting`` (e.g. ``"60/m"``) answer 429 without calling the view."""
    method = [m.upper() for m in methods]
    rate = _rate(rate_setting)

    def decorator(view: View) -> View:
        @wraps(view)
        def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            usage = get_usage(
                request, group=group, key=client_key, rate=rate, method=method, increment=True
            )
            if usage is not None and usage["should_limit"]:
                retry_after = usage["time_left"]
                if retry_after <= 0:  # the window ends this second: ask for the whole period
                    retry_after = _period_seconds(rate(group, request))
                return too_many_requests(request, retry_after=retry_after)
            return view(request, *args, **kwargs)

        return limited

    return decorator


# django-ratelimit's rate grammar: "<count>/<multiplier><unit>", the multiplier optional and the
# unit one of s, m, h, d (seconds when absent); text after the unit's letter is allowed, so "60/m",
# "60/min", "10/5m" and "3/h" all read as the library reads them.
RATE_PATTERN = re.compile(r"(?P<count>\d+)/(?P<multiplier>\d*)(?P<unit>[smhd])?", re.IGNORECASE)
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``rate`` (e.g. ``"60/m"``) as (requests allowed, period in seconds), read the way
    django-ratelimit reads it; a malformed rate is a ``ValueError`` naming it."""
    match = RATE_PATTERN.match(rate.strip())
    if match is None:
        raise ValueError(
            f"{rate!r} is not a rate such as '60/m' (count/period, period s, m, h or d)"
        )
    seconds = UNIT_SECONDS[(match["unit"] or "s").lower()]
    if match["multiplier"]:
        seconds *= int(match["multiplier"])
    return int(match["count"]), seconds


def _period_seconds(rate: str) -> int:
    return parse_rate(rate)[1]
