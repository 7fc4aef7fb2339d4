"""The API's JSON parser: a body that would exhaust the server is refused before validation.

- larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes: 413 (only that many bytes are read);
- more than ``MAX_KEYS`` object keys in all: 400 as soon as the parser meets the excess;
- nested deeper than ``MAX_DEPTH`` (Python's decoder would otherwise hit its recursion limit
  and answer 500): 400;
- a lone UTF-16 surrogate (``"\\ud800"``), which no database or e-mail can encode, or an integer
  literal longer than the number rules allow: 400 naming the field.

Every refusal is an ``APIException``, so ``problem_exception_handler`` renders it.
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from gpuquote.api.exceptions import InputError, PayloadTooLarge
from gpuquote.core.numbers import MAX_NUMBER_CHARS
from gpuquote.core.text import surrogate_find
from gpuquote.core.validators import number_message

MAX_DEPTH = 32  # the deepest legitimate body (a TCO option's parts) is 4 levels deep
MAX_KEYS = 1_000  # object keys in the whole body; the largest legitimate body has about 100
_BIG_INT_BITS = MAX_NUMBER_CHARS * 4  # ints of more than ~40 digits


class _TooManyKeys(Exception):
    pass


def _key_counter() -> Any:
    count = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal count
        count += len(pairs)
        if count > MAX_KEYS:
            raise _TooManyKeys
        return dict(pairs)

    return hook


def _refuse_constant(name: str) -> None:
    raise ParseError(_("JSON parse error: %(name)s is not a number JSON allows.") % {"name": name})


def _too_deep() -> InputError:
    return InputError(
        {}, _("The JSON body is nested more than %(max)s levels deep.") % {"max": MAX_DEPTH}
    )


def json_body_check(data: Any) -> None:
    """Depth, lone surrogates and huge integers, walked without recursion."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise _too_deep()
            if isinstance(value, dict):
                for key, item in value.items():
                    if surrogate_find(key):
                        _refuse_surrogate(path)
                    stack.append((item, f"{path}.{key}" if path else key, depth + 1))
            else:
                stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str) and surrogate_find(value):
            _refuse_surrogate(path)
        elif isinstance(value, int) and value.bit_length() > _BIG_INT_BITS:
            raise InputError({path or "non_field_errors": [number_message("too_long")]})


def _refuse_surrogate(path: str) -> None:
    message = _("Contains an invalid character (a lone UTF-16 surrogate).")
    raise InputError({path or "non_field_errors": [message]})


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge(limit)
        try:
            text = codecs.decode(raw, encoding)
            data = json.loads(
                text, parse_constant=_refuse_constant, object_pairs_hook=_key_counter()
            )
        except _TooManyKeys:
            raise InputError(
                {}, _("The JSON body has more than %(max)s keys.") % {"max": MAX_KEYS}
            ) from None
        except RecursionError:
            raise _too_deep() from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digits limit
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        json_body_check(data)
        return data
