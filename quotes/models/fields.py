"""A JSON document stored compressed: the wizard's results.

A stored result is the engine's output written as JSON (``quotes.advice.store``): 100-150 KB of
text, most of it the same keys and part records repeated option after option. Written as
compact JSON and compressed with zlib (RFC 1950), it takes about a sixth of that (measured on a
70B serving result and a training result: docs/security.md). The column is binary; the field
reads it back into the same Python values as the JSON it replaced (``json`` round-trips every
value the codec writes: strings, integers, floats by their shortest repr, booleans, null), so
every page, PDF and quote reads a result exactly as before.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.db import models

# zlib's strongest level: a result is written once and read many times, and decompression
# costs the same whatever the level.
PACK_LEVEL = 9


def json_pack(value: Any) -> bytes:
    """``value`` as compact JSON (UTF-8), zlib-compressed."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return zlib.compress(text.encode(), PACK_LEVEL)


def json_unpack(data: bytes) -> Any:
    return json.loads(zlib.decompress(data).decode())


class PackedJSONField(models.BinaryField):
    """A JSON value in a binary column, compressed (``json_pack``); Python sees the value."""

    description = "JSON, stored compressed"
    # django-stubs: a model's attribute holds the JSON value, as a JSONField's does.
    _pyi_private_set_type: Any
    _pyi_private_get_type: Any

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else json_unpack(bytes(value))

    def to_python(self, value: Any) -> Any:
        if isinstance(value, bytes | bytearray | memoryview):
            return json_unpack(bytes(value))
        if isinstance(value, str):  # a serialized value (``value_to_string``: dumpdata)
            return json.loads(value)
        return value

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None or isinstance(value, bytes | bytearray | memoryview):
            return value
        return json_pack(value)

    def value_to_string(self, obj: models.Model) -> str:
        return json.dumps(self.value_from_object(obj))
