"""Content negotiation with a shortcut for the common case.

Clients of the API send no ``Accept`` header, ``*/*`` or ``application/json``. When a view's
first renderer is JSON, DRF's negotiation would still parse the header and rank its media types
on every request (8 % of a memoised calculator answer's time): those three answers
are known, and given at once. Every other request is negotiated by DRF, unchanged (another
type, parameters such as ``indent``, ``?format=``, a 406)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

JSON = "application/json"
_PLAIN_ACCEPT = frozenset({"", "*/*", JSON})


class JsonFirstNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: Any = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        accept = request.META.get("HTTP_ACCEPT", "").strip()
        if (
            accept in _PLAIN_ACCEPT
            and format_suffix is None
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
            and renderers
            and renderers[0].media_type == JSON
        ):
            return renderers[0], JSON
        return super().select_renderer(request, renderers, format_suffix)
