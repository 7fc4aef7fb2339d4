"""Money and numbers for people: grouped digits, the locale's separators, the currency symbol
where the language puts it (``1 234,56 €`` in French, ``€1,234.56`` in English).

Amounts arrive as the presenters' decimal strings (or ``Decimal``/``Money``); formatting never
changes the stored figure, only how it reads.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.translation import get_language

from engine.money import Money

register = template.Library()

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}
NBSP = "\u00a0"
# Languages that write the symbol after the amount, separated by a no-break space.
SYMBOL_AFTER = frozenset({"fr", "de", "es", "it"})


def _decimal(value: Any) -> Decimal | None:
    if value is None or value == "":
        return None
    if isinstance(value, Money):
        return value.amount
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def number_localized(value: Any, places: int | None = None) -> str:
    """A number with the active locale's grouping and decimal separator ("" for nothing)."""
    number = _decimal(value)
    if number is None:
        return ""
    if places is not None:
        number = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return number_format(number, decimal_pos=places, use_l10n=True, force_grouping=True)


def money_format(value: Any, currency: str | None = None, places: int = 2) -> str:
    """``1 234,56 €`` / ``€1,234.56``; ``places=0`` rounds to whole units for big totals."""
    if isinstance(value, Money):
        currency = currency or value.currency
    number = _decimal(value)
    if number is None:
        return ""
    symbol = SYMBOLS.get(currency or "", currency or "")
    text = number_localized(abs(number), places)
    sign = "-" if number < 0 else ""
    language = (get_language() or "en").split("-")[0]
    if language in SYMBOL_AFTER:
        return f"{sign}{text}{NBSP}{symbol}"
    return f"{sign}{symbol}{text}"


@register.filter
def money(value: Any, currency: str = "") -> str:
    """``{{ amount|money:currency }}``: two decimals."""
    return money_format(value, currency or None)


@register.filter
def money_whole(value: Any, currency: str = "") -> str:
    """``{{ amount|money_whole:currency }}``: whole units, for totals and charts."""
    return money_format(value, currency or None, places=0)


@register.filter
def number(value: Any, places: int | str | None = None) -> str:
    """``{{ figure|number:1 }}``: grouped, localised, ``places`` decimals (as is when omitted)."""
    return number_localized(value, None if places in (None, "") else int(places))


@register.filter
def percent(value: Any, places: int = 0) -> str:
    """``{{ "0.7"|percent }}`` -> ``70 %`` (fr) / ``70%`` (en)."""
    number = _decimal(value)
    if number is None:
        return ""
    text = number_localized(number * 100, int(places))
    language = (get_language() or "en").split("-")[0]
    return f"{text}{NBSP}%" if language in SYMBOL_AFTER else f"{text}%"


@register.filter
def figure(value: Any) -> str:
    """An assumption's value for people: at most 2 decimals from 10 up, 4 below, no trailing
    zeros (``0.172``, ``170.05``, ``1.6537``)."""
    number = _decimal(value)
    if number is None:
        return ""
    places = 2 if abs(number) >= 10 else 4
    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP).normalize()
    exponent = rounded.as_tuple().exponent
    shown = max(0, -exponent) if isinstance(exponent, int) else 0
    return number_localized(rounded, shown)
