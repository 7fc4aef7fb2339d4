"""Engine results <-> JSON-ready values, exactly, driven by the dataclasses' type hints.

A stored result (a wizard result, a partner quote's source) is the engine's own objects written
as numbers, enum values and untranslated messages (template + parameters), so it can be read
back into the same objects and rendered in any language later. ``decode(T, encode(x)) == x`` for
every engine result; nothing is rounded or translated here.

Encoding: a dataclass -> an object of its init fields; ``Decimal`` -> a string (no float drift);
an enum -> its value; a date -> ISO 8601; a tuple -> a list; a mapping -> an object (keys as
strings); a ``Message`` -> ``{"template", "params"}`` (and ``"plural"``, ``"count"`` for a counted
sentence), its parameters tagged when plain JSON would not bring them back as they were (a
``Decimal``, a float, ``Money``, a nested message).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import types
import typing
from collections.abc import Callable, Mapping
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from ..i18n import Message
from ..money import Money

T = TypeVar("T")

_DECIMAL_TAG = "$decimal"
_FLOAT_TAG = "$float"
_MESSAGE_TAG = "$message"
_MONEY_TAG = "$money"


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
    encoded = {
        "template": message.template,
        "params": {name: _param_encode(value) for name, value in message.params.items()},
    }
    if message.plural:  # a counted sentence; results stored before plurals have neither key
        encoded |= {"plural": message.plural, "count": message.count}
    return encoded


def _param_encode(value: Any) -> Any:
    if isinstance(value, Message):
        return {_MESSAGE_TAG: _message_encode(value)}
    if isinstance(value, Decimal):
        return {_DECIMAL_TAG: str(value)}
    if isinstance(value, Money):
        return {_MONEY_TAG: [str(value.amount), value.currency]}
    if isinstance(value, float):
        # Tagged: PostgreSQL's jsonb returns 4.86e+19 as the integer 48600000000000000000, and
        # a message renders an int and a float differently ("%s").
        return {_FLOAT_TAG: repr(value)}
    if value is None or isinstance(value, bool | int | str):
        return value
    raise CodecError(f"cannot encode a message parameter of type {type(value).__name__}")


# --- Decoding ----------------------------------------------------------------------------------
#
# A decoder is compiled once per type (its hints read, its members' decoders found) and cached:
# reading a stored result is then one call per value, not a walk of the type at every value.

Decoder = Callable[[Any], Any]


def decode(kind: type[T], data: Any) -> T:
    """``data`` (from ``encode``) read back as ``kind``."""
    return typing.cast(T, _decoder(typing.cast(Any, kind))(data))


@functools.cache
def _decoder(kind: Any) -> Decoder:  # one branch per kind of type
    if kind is Any:
        return _identity
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(kind)
    if origin is not None:
        return _generic_decoder(kind, origin)
    if kind is type(None):
        return _null
    if kind is Message:
        return _message_decode
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind
    if kind is Decimal:
        return Decimal
    if kind is float:
        return float  # a JSON integer (PostgreSQL's jsonb drops ".0") is still a float here
    if kind is bool or kind is int or kind is str:
        return functools.partial(_exactly, kind)
    if kind is dt.date:
        return dt.date.fromisoformat
    if dataclasses.is_dataclass(kind):
        return _dataclass_decoder(kind)
    raise CodecError(f"cannot decode {kind!r}")


def _identity(data: Any) -> Any:
    return data


def _null(data: Any) -> None:
    if data is not None:
        raise CodecError("expected null")


def _exactly(kind: type, data: Any) -> Any:
    if type(data) is not kind:
        raise CodecError(f"expected {kind.__name__}, got {type(data).__name__}")
    return data


def _union_decoder(kind: Any) -> Decoder:
    members = typing.get_args(kind)
    others = [member for member in members if member is not type(None)]
    if len(others) != 1:
        raise CodecError(f"ambiguous union {kind!r}")
    inner = _decoder(others[0])
    if type(None) not in members:
        return inner
    return lambda data: None if data is None else inner(data)


def _generic_decoder(kind: Any, origin: Any) -> Decoder:
    args = typing.get_args(kind)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda data: tuple(item(value) for value in _sequence(data))
        items = [_decoder(arg) for arg in args]
        return lambda data: tuple(
            one(value) for one, value in zip(items, _sequence(data), strict=True)
        )
    if origin is list:
        item = _decoder(args[0])
        return lambda data: [item(value) for value in _sequence(data)]
    if origin is dict or origin is Mapping:
        key, value = _decoder(args[0]), _decoder(args[1])
        # A read-only view where the type promises only a Mapping, as the engine builds them.
        wrap: Callable[[dict[Any, Any]], Any] = dict if origin is dict else types.MappingProxyType
        return lambda data: wrap({key(k): value(v) for k, v in _object(data).items()})
    raise CodecError(f"cannot decode {kind!r}")


def _sequence(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise CodecError(f"expected a list, got {type(data).__name__}")
    return data


def _object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise CodecError(f"expected an object, got {type(data).__name__}")
    return data


def _dataclass_decoder(kind: Any) -> Decoder:
    hints = typing.get_type_hints(kind)
    fields = [
        (field.name, _decoder(hints[field.name]))
        for field in dataclasses.fields(kind)
        if field.init
    ]

    def decode_fields(data: Any) -> Any:
        found = _object(data)
        return kind(**{name: one(found[name]) for name, one in fields if name in found})

    return decode_fields


def _message_decode(data: Any) -> Message:
    found = _object(data)
    params = {name: _param_decode(value) for name, value in found["params"].items()}
    return Message(
        found["template"],
        types.MappingProxyType(params),
        found.get("plural", ""),
        found.get("count", ""),
    )


def _param_decode(value: Any) -> Any:
    if isinstance(value, dict):
        if _MESSAGE_TAG in value:
            return _message_decode(value[_MESSAGE_TAG])
        if _DECIMAL_TAG in value:
            return Decimal(value[_DECIMAL_TAG])
        if _MONEY_TAG in value:
            amount, currency = value[_MONEY_TAG]
            return Money(Decimal(amount), currency)
        if _FLOAT_TAG in value:
            return float(value[_FLOAT_TAG])
        raise CodecError("unknown message parameter")
    return value
