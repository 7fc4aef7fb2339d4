"""The OpenAPI document, generated once per process, language and API version.

Generating it walks every endpoint's serializers: about 100 ms of CPU, which any anonymous
visitor could otherwise ask for again and again. The document is public (``SERVE_PUBLIC``: the
same for every caller) and changes only with the code, so each process keeps the few it has made;
each request still renders its own response (JSON or YAML, as negotiated).
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from gpuquote.core.process_cache import ProcessCache

# Languages x versions x formats' file names: a handful in practice; the bound keeps a caller
# inventing versions from growing the map.
_documents: ProcessCache[tuple[str, str], Any] = ProcessCache(16)


class SchemaView(SpectacularAPIView):
    def _get_schema_response(self, request: Request) -> Response:
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (translation.get_language() or "", str(version or ""))

        def make() -> Any:
            return super(SchemaView, self)._get_schema_response(request).data

        data = _documents.get_or_make(key, make)
        filename = self._get_filename(request, version)  # the negotiated format's suffix
        disposition = f'inline; filename="{filename}"'
        return Response(data=data, headers={"Content-Disposition": disposition})


def schema_cache_clear() -> None:
    """For tests: forget the documents made so far."""
    _documents.clear()
