"""One error shape for the whole API: {"message": ..., "errors": {field: [...]}}.

Every DRF exception, and every engine error translated at the edge, goes through
``problem_exception_handler`` so that a partner parses one format.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler


class InputError(APIException):
    """A request whose content the core rejected; ``errors`` maps field paths to messages."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, errors: dict[str, list[str]], message: str | None = None) -> None:
        self.errors = errors
        super().__init__(detail=message or _("The request has invalid fields."))


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


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, InputError):
        body = {"message": str(exc.detail), "errors": exc.errors}
    elif isinstance(exc, ValidationError):
        body = {"message": _("The request has invalid fields."), "errors": _flatten(exc.detail)}
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else ""
        body = {"message": str(detail), "errors": {}}
    response.data = body
    return response
