"""The API's JSON parser: a body that would exhaust the server is refused before validation.

- larger than the view's limit (``body_limit``: a key of ``API_BODY_LIMITS``, "default" when
  the view names none) or ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes: 413, for JSON, form and
  multipart bodies alike (a JSON body: only that many bytes are read; a form: refused on its
  declared length before reading);
- a JSON body that is not an object at the top: 400 before ``json.loads`` runs;
- more than ``API_JSON_MAX_NODES`` keys and array items in all, or an array longer than
  ``API_JSON_MAX_ARRAY``: 400 while parsing (counted as each object closes);
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
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from gpuquote.api.exceptions import InputError, PayloadTooLarge
from gpuquote.core.numbers import MAX_NUMBER_CHARS
from gpuquote.core.text import surrogate_find
from gpuquote.core.validators import number_message

MAX_DEPTH = 32  # the deepest legitimate body (a TCO option's parts) is 4 levels deep
MAX_KEYS = 1_000  # object keys in the whole body; the largest legitimate body has about 100
_BIG_INT_BITS = MAX_NUMBER_CHARS * 4  # ints of more than ~40 digits


class _TooManyKeys(Exception):
    pass


class _TooManyNodes(Exception):
    pass


class _ArrayTooLong(Exception):
    pass


def _key_counter() -> Any:
    """An ``object_pairs_hook`` counting keys, and the items of the arrays directly under each
    object (arrays in arrays too; an object inside counts its own), as each object closes."""
    keys = 0
    nodes = 0
    max_nodes = settings.API_JSON_MAX_NODES
    max_array = settings.API_JSON_MAX_ARRAY

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal keys, nodes
        keys += len(pairs)
        if keys > MAX_KEYS:
            raise _TooManyKeys
        nodes += len(pairs)
        arrays = [value for _key, value in pairs if isinstance(value, list)]
        while arrays:
            array = arrays.pop()
            if len(array) > max_array:
                raise _ArrayTooLong
            nodes += len(array)
            if nodes > max_nodes:
                raise _TooManyNodes
            arrays.extend(item for item in array if isinstance(item, list))
        if nodes > max_nodes:
            raise _TooManyNodes
        return dict(pairs)

    return hook


def body_limit(parser_context: Any) -> int:
    """The body size allowed for the view parsing this request: its ``body_limit`` entry of
    ``API_BODY_LIMITS``, never over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""
    view = (parser_context or {}).get("view")
    limits = settings.API_BODY_LIMITS
    limit = int(limits[getattr(view, "body_limit", "default")])
    upload = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit if upload is None else min(limit, upload)


def _declared_length_check(parser_context: Any) -> None:
    limit = body_limit(parser_context)
    request = (parser_context or {}).get("request")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
    except ValueError:
        length = 0
    if length > limit:
        raise PayloadTooLarge(limit)


def _object_at_top(raw: bytes) -> bool:
    start = raw.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
    return start == b"{"


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
        limit = body_limit(parser_context)
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(limit)
        if not _object_at_top(raw):
            if not raw.strip():
                raise ParseError(_("JSON parse error - the body is empty."))
            raise InputError({"non_field_errors": [_("Expected a JSON object.")]})
        try:
            text = codecs.decode(raw, encoding)
            data = json.loads(
                text, parse_constant=_refuse_constant, object_pairs_hook=_key_counter()
            )
        except _TooManyKeys:
            raise InputError(
                {}, _("The JSON body has more than %(max)s keys.") % {"max": MAX_KEYS}
            ) from None
        except _TooManyNodes:
            raise InputError(
                {},
                _("The JSON body has more than %(max)s keys and array items.")
                % {"max": settings.API_JSON_MAX_NODES},
            ) from None
        except _ArrayTooLong:
            raise InputError(
                {},
                _("The JSON body has an array of more than %(max)s items.")
                % {"max": settings.API_JSON_MAX_ARRAY},
            ) from None
        except RecursionError:
            raise _too_deep() from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digits limit
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        json_body_check(data)
        return data


class LimitedFormParser(FormParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        _declared_length_check(parser_context)
        return super().parse(stream, media_type, parser_context)


class LimitedMultiPartParser(MultiPartParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        _declared_length_check(parser_context)
        return super().parse(stream, media_type, parser_context)
