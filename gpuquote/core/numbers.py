"""Numbers read from people and programs, refused *before* any costly conversion.

``Decimal("1e1000000")`` is cheap to build and to compare, but ``int()`` of it, formatting it or
quantizing it takes minutes: so a number is first checked as text (at most
``MAX_NUMBER_CHARS`` characters, digits and one point only, no exponent), then compared with its
range, and only then converted. Form fields (``gpuquote.core.fields``) and API fields
(``gpuquote.api.fields``) both apply these rules, and the JSON parser applies the length rule
to every number literal. Pure Python: no Django here.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

# The longest number any field accepts, signs and separators included: budgets reach
# 999 999 999 999,99 and the longest fractions 6 places; 40 leaves room for spacing.
MAX_NUMBER_CHARS = 40
# "Digits" are the ASCII 0-9: Python's ``\d``, ``int()`` and ``Decimal()`` also read every other
# Unicode decimal digit ("５１２" fullwidth, "١٢" Arabic-Indic) as a number, which a reader of the
# stored value or of the staff screens would not see as one.
_PLAIN = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$")
_EXPONENT = re.compile(r"\d\s*[eE]")


class NumberRejected(ValueError):
    """Why a number was refused: ``too_long``, ``digits`` (a digit other than ASCII 0-9),
    ``exponent``, ``invalid``, ``below``, ``above`` or ``whole`` (a fraction where a whole number
    is wanted)."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


def number_text_check(text: str, *, max_chars: int = MAX_NUMBER_CHARS) -> str:
    """``text`` stripped, once it is short, has no digit but ASCII 0-9 and no exponent (nothing
    converted yet)."""
    text = text.strip()
    if len(text) > max_chars:
        raise NumberRejected("too_long")
    if not text.isascii() and any(char.isdecimal() and not char.isascii() for char in text):
        raise NumberRejected("digits")
    if _EXPONENT.search(text):
        raise NumberRejected("exponent")
    return text


def decimal_from_text(text: str, *, max_chars: int = MAX_NUMBER_CHARS) -> Decimal:
    """A plain decimal numeral (``-12.5``, no grouping, no exponent) as a Decimal."""
    text = number_text_check(text, max_chars=max_chars)
    if not _PLAIN.match(text):
        raise NumberRejected("invalid")
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only numerals
        raise NumberRejected("invalid") from exc


def decimal_of(value: int | float | Decimal) -> Decimal:
    """A number already typed (JSON, Python) as a finite Decimal; huge ints are refused by
    their digit count, which costs nothing, before any conversion."""
    if isinstance(value, bool):
        raise NumberRejected("invalid")
    if isinstance(value, int):
        if value.bit_length() > MAX_NUMBER_CHARS * 4:  # more than ~40 decimal digits
            raise NumberRejected("too_long")
        return Decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NumberRejected("invalid")
        return Decimal(repr(value))
    if not value.is_finite():
        raise NumberRejected("invalid")
    return value


def decimal_in_range(
    number: Decimal,
    *,
    minimum: int | float | Decimal | None = None,
    maximum: int | float | Decimal | None = None,
    whole: bool = False,
) -> Decimal:
    """``number`` once it lies in ``[minimum, maximum]`` (comparisons only, never a
    conversion) and, with ``whole``, has no fractional part."""
    if minimum is not None and number < Decimal(str(minimum)):
        raise NumberRejected("below")
    if maximum is not None and number > Decimal(str(maximum)):
        raise NumberRejected("above")
    if whole and number != number.to_integral_value():
        raise NumberRejected("whole")
    return number


def int_bounded(
    number: Decimal,
    *,
    minimum: int | float | Decimal | None = None,
    maximum: int | float | Decimal | None = None,
) -> int:
    """A whole number in range, converted to ``int`` only after the range was checked."""
    decimal_in_range(number, minimum=minimum, maximum=maximum, whole=True)
    if number.adjusted() > MAX_NUMBER_CHARS:  # no upper bound: still no 1e1000000
        raise NumberRejected("too_long")
    return int(number)
