"""The API's own exceptions, kept apart from the error handler: the JSON parser raises them and
DRF imports the parser while its views module loads, so this module must not import that module."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import APIException


class InputError(APIException):
    """A request whose content the core rejected; ``errors`` maps field paths to messages."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, errors: dict[str, list[str]], message: str | None = None) -> None:
        self.errors = errors
        super().__init__(detail=message or _("The request has invalid fields."))


class PayloadTooLarge(APIException):
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (the JSON parser, or Django itself)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self, limit: int | None = None) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE if limit is None else limit
        super().__init__(
            detail=_("The request body is larger than %(max)s bytes.") % {"max": limit}
        )
