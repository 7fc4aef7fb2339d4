"""Money and numbers for people: grouped digits, the locale's separators, the currency symbol
where the language puts it (``1 234,56 €`` in French, ``€1,234.56`` in English).

Services, PDFs and the template filters (``quotes.templatetags.money``) all format through here,
so a figure reads the same on the page, in the PDF and in an e-mail. Amounts arrive as the
presenters' decimal strings (or ``Decimal``/``Money``); formatting never changes the stored
figure, only how it reads. Everything follows the active language.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import get_language

from engine.money import Money

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}
NBSP = "\u00a0"
# Languages that write the symbol after the amount, separated by a no-break space.
SYMBOL_AFTER = frozenset({"fr", "de", "es", "it"})


def decimal_or_none(value: Any) -> Decimal | None:
    """``value`` as a ``Decimal`` (a ``Money``'s amount), or ``None`` for nothing or non-numbers."""
    if value is None or value == "":
        return None
    if isinstance(value, Money):
        return value.amount
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def _symbol_after() -> bool:
    return (get_language() or "en").split("-")[0] in SYMBOL_AFTER


def number_localized(value: Any, places: int | None = None) -> str:
    """A number with the active locale's grouping and decimal separator ("" for nothing)."""
    number = decimal_or_none(value)
    if number is None:
        return ""
    if places is not None:
        number = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return number_format(number, decimal_pos=places, use_l10n=True, force_grouping=True)


def money_format(value: Any, currency: str | None = None, places: int = 2) -> str:
    """``1 234,56 €`` / ``€1,234.56``; ``places=0`` rounds to whole units for big totals."""
    if isinstance(value, Money):
        currency = currency or value.currency
    number = decimal_or_none(value)
    if number is None:
        return ""
    symbol = SYMBOLS.get(currency or "", currency or "")
    text = number_localized(abs(number), places)
    sign = "-" if number < 0 else ""
    if _symbol_after():
        return f"{sign}{text}{NBSP}{symbol}"
    return f"{sign}{symbol}{text}"


def percent_format(value: Any, places: int = 0) -> str:
    """A fraction as a percentage: ``0.7`` -> ``70 %`` (fr) / ``70%`` (en)."""
    number = decimal_or_none(value)
    if number is None:
        return ""
    text = number_localized(number * 100, places)
    return f"{text}{NBSP}%" if _symbol_after() else f"{text}%"


def figure_format(value: Any) -> str:
    """An assumption's value for people: at most 2 decimals from 10 up, 4 below, no trailing
    zeros (``0.172``, ``170.05``, ``1.6537``)."""
    number = decimal_or_none(value)
    if number is None:
        return ""
    places = 2 if abs(number) >= 10 else 4
    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP).normalize()
    exponent = rounded.as_tuple().exponent
    shown = max(0, -exponent) if isinstance(exponent, int) else 0
    return number_localized(rounded, shown)
