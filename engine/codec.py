"""Engine results <-> JSON-ready values, exactly, driven by the dataclasses' type hints.

A stored result (a wizard result, a partner quote's source) is the engine's own objects written
as numbers, enum values and untranslated messages (template + parameters), so it can be read
back into the same objects and rendered in any language later. ``decode(T, encode(x)) == x`` for
every engine result; nothing is rounded or translated here.

Encoding: a dataclass -> an object of its init fields; ``Decimal`` -> a string (no float drift);
an enum -> its value; a date -> ISO 8601; a tuple -> a list; a mapping -> an object (keys as
strings); a ``Message`` -> ``{"template", "params"}``, its parameters tagged when they are not
plain JSON (a ``Decimal`` or a nested message).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import types
import typing
from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from .i18n import Message

T = TypeVar("T")

_DECIMAL_TAG = "$decimal"
_MESSAGE_TAG = "$message"


class CodecError(ValueError):
    """Stored data that does not match the type it is read as."""


# --- Encoding ----------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data (dicts, lists, strings, numbers, booleans, None)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Message):
        return _message_encode(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: encode(getattr(value, field.name))
            for field in dataclasses.fields(value)
            if field.init
        }
    if isinstance(value, Mapping):
        return {_key(key): encode(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    raise CodecError(f"cannot encode {type(value).__name__}")


def _key(key: Any) -> str:
    if isinstance(key, Enum):
        return str(key.value)
    if isinstance(key, str):
        return key
    raise CodecError(f"mapping keys must be strings or enums, not {type(key).__name__}")


def _message_encode(message: Message) -> dict[str, Any]:
    return {
        "template": message.template,
        "params": {name: _param_encode(value) for name, value in message.params.items()},
    }


def _param_encode(value: Any) -> Any:
    if isinstance(value, Message):
        return {_MESSAGE_TAG: _message_encode(value)}
    if isinstance(value, Decimal):
        return {_DECIMAL_TAG: str(value)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise CodecError(f"cannot encode a message parameter of type {type(value).__name__}")


# --- Decoding ----------------------------------------------------------------------------------


def decode(kind: type[T], data: Any) -> T:
    """``data`` (from ``encode``) read back as ``kind``."""
    return typing.cast(T, _decode(kind, data))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(kind: Any, data: Any) -> Any:  # one branch per kind of type
    if kind is Any:
        return data
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return _union_decode(kind, data)
    if origin is not None:
        return _generic_decode(kind, origin, data)
    if kind is type(None):
        if data is not None:
            raise CodecError("expected null")
        return None
    if kind is Message:
        return _message_decode(data)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    if kind is Decimal:
        return Decimal(data)
    if kind is float:
        return float(data)  # a JSON integer (PostgreSQL's jsonb drops ".0") is still a float here
    if kind is bool or kind is int or kind is str:
        if type(data) is not kind:
            raise CodecError(f"expected {kind.__name__}, got {type(data).__name__}")
        return data
    if kind is dt.date:
        return dt.date.fromisoformat(data)
    if dataclasses.is_dataclass(kind):
        return _dataclass_decode(kind, data)
    raise CodecError(f"cannot decode {kind!r}")


def _union_decode(kind: Any, data: Any) -> Any:
    members = typing.get_args(kind)
    if data is None and type(None) in members:
        return None
    others = [member for member in members if member is not type(None)]
    if len(others) != 1:
        raise CodecError(f"ambiguous union {kind!r}")
    return _decode(others[0], data)


def _generic_decode(kind: Any, origin: Any, data: Any) -> Any:
    args = typing.get_args(kind)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item) for item in data)
        return tuple(_decode(arg, item) for arg, item in zip(args, data, strict=True))
    if origin is list:
        return [_decode(args[0], item) for item in data]
    if origin is dict or origin is Mapping:
        key_kind, value_kind = args
        decoded = {
            _decode(key_kind, key): _decode(value_kind, value) for key, value in data.items()
        }
        # A read-only view where the type promises only a Mapping, as the engine builds them.
        return decoded if origin is dict else types.MappingProxyType(decoded)
    raise CodecError(f"cannot decode {kind!r}")


def _dataclass_decode(kind: Any, data: Any) -> Any:
    if not isinstance(data, dict):
        raise CodecError(f"expected an object for {kind.__name__}")
    hints = _hints(kind)
    values = {
        field.name: _decode(hints[field.name], data[field.name])
        for field in dataclasses.fields(kind)
        if field.init and field.name in data
    }
    return kind(**values)


def _message_decode(data: Any) -> Message:
    params = {name: _param_decode(value) for name, value in data["params"].items()}
    return Message(data["template"], types.MappingProxyType(params))


def _param_decode(value: Any) -> Any:
    if isinstance(value, dict):
        if _MESSAGE_TAG in value:
            return _message_decode(value[_MESSAGE_TAG])
        if _DECIMAL_TAG in value:
            return Decimal(value[_DECIMAL_TAG])
        raise CodecError("unknown message parameter")
    return value
