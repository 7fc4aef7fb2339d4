"""The calculators' answers, memoised: users pick from the model registry and the wizard's
defaults, so the same request recurs. An answer is kept in the shared cache (Redis in
production, local memory embedded) under a hash of the endpoint, the request body as canonical
JSON, the language, and the version of the data it was computed from (``data_version_get``):
a price applied by a feed, a quarantined price approved, an admin edit or an assumption edit
changes the version, so the next request computes again, in every process. A hit is the stored
response body itself: byte for byte what the computation gave."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import translation
from rest_framework.request import Request
from rest_framework.response import Response

from quotes.advice.selectors import data_version_get

# Bump when an answer's shape or its computation changes without a data change.
ANSWER_MEMO_VERSION = 1


def answer_key(endpoint: str, data: Any) -> str | None:
    """The cache key of a request, or None when its body is not plain JSON (not memoised)."""
    try:
        body = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    version = repr(data_version_get())
    digest = hashlib.sha256(
        "\x00".join((endpoint, translation.get_language() or "", version, body)).encode()
    ).hexdigest()
    return f"answer:v{ANSWER_MEMO_VERSION}:{endpoint}:{digest}"


def memoised(endpoint: str, request: Request, compute: Callable[[], dict[str, Any]]) -> Response:
    """``compute()``'s body for this request, from the cache when it was computed before with
    the same data; an input error raised by ``compute`` is never kept."""
    seconds = settings.ANSWER_CACHE_SECONDS
    key = answer_key(endpoint, request.data) if seconds > 0 else None
    if key is None:
        return Response(compute())
    body = cache.get(key)
    if body is None:
        body = compute()
        cache.set(key, body, seconds)
    return Response(body)
