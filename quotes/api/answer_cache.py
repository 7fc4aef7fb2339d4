"""The calculators' answers, cached: users pick from the model registry and the wizard's
defaults, so the same request recurs. An answer goes into the shared cache (Redis in
production, local memory embedded) under a hash of the endpoint, the request body as canonical
JSON, the language, and the version of the data it was computed from (``data_version_get``):
a price applied by a feed, a quarantined price approved, an admin edit or an assumption edit
changes the version, so the next request computes again, in every process. Each process also
caches the last answers it gave in front of the shared cache. What is cached is the rendered JSON
body: a hit is a cache read and the bytes written back, byte for byte what the
computation gave (answers asked for in another format, the browsable API's HTML, are computed
each time)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase
from django.utils import translation
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.selectors import per_version_cache
from gpuquote.core.metrics import ANSWER_CACHE_LOOKUPS
from gpuquote.core.process_cache import ProcessCache
from quotes.advice.selectors import data_version_get

# Bump when an answer's shape or its computation changes without a data change.
# 2: the rendered bytes, keyed by media type too; 3: software stack; 4: service tiers;
# 5: upper tiers ranked by what the job gets
ANSWER_CACHE_VERSION = 5


def answer_key(endpoint: str, data: Any, media_type: str = "") -> str | None:
    """The cache key of a request (``media_type``: the one negotiated, whose parameters such as
    ``indent`` shape the bytes), or None when its body is not plain JSON (not cached)."""
    try:
        body = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    version = repr(data_version_get())
    digest = hashlib.sha256(
        "\x00".join(
            (endpoint, translation.get_language() or "", version, media_type, body)
        ).encode()
    ).hexdigest()
    return f"answer:v{ANSWER_CACHE_VERSION}:{endpoint}:{digest}"


def cached_answer(
    endpoint: str, request: Request, compute: Callable[[], dict[str, Any]]
) -> HttpResponseBase:
    """``compute()``'s body for this request, rendered, from the cache when it was computed
    before with the same data; an input error raised by ``compute`` is never cached."""
    seconds = settings.ANSWER_CACHE_SECONDS
    renderer = getattr(request, "accepted_renderer", None)
    if seconds <= 0 or not isinstance(renderer, JSONRenderer):
        ANSWER_CACHE_LOOKUPS.labels(endpoint, "uncached").inc()
        return Response(compute())
    media_type = request.accepted_media_type
    key = answer_key(endpoint, request.data, media_type)
    if key is None:
        ANSWER_CACHE_LOOKUPS.labels(endpoint, "uncached").inc()
        return Response(compute())
    found = "process"  # unless this process must ask the shared cache

    def shared() -> bytes:
        nonlocal found
        content = cache.get(key)
        found = "shared"
        if content is None:
            content = renderer.render(compute(), media_type, {"request": request})
            cache.set(key, content, seconds)
            found = "computed"
        return cast(bytes, content)

    content = _recent.get_or_make(key, shared)
    ANSWER_CACHE_LOOKUPS.labels(endpoint, found).inc()
    return HttpResponse(content, content_type=renderer.media_type)


# Per process, in front of the shared cache: the last answers given. An answer never changes
# under its key (the key holds the data version), so a hit here saves the round trip to Redis.
RECENT_ANSWERS = 256  # 18-36 KB each
_recent: ProcessCache[str, bytes] = ProcessCache(RECENT_ANSWERS)
per_version_cache(_recent.clear)
