"""How engine messages and figures are written for people and for JSON: the active language,
the locale's numbers (pages, PDFs) or Python's (the API), money as a decimal string."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from engine.i18n import Message
from engine.money import Money, round_money
from gpuquote.core.formatting import money_format, number_localized
from gpuquote.core.translated import gettext, ngettext

Render = Callable[[Message], str]


def text(message: Message) -> str:
    """An engine message in the active language, its numbers as Python writes them (the API's
    sentences); a counted sentence in the form its count asks for."""
    return message.render(gettext, ngettext)


def localized_text(message: Message) -> str:
    """An engine message in the active language, its numbers and money in the locale's format
    (``24,6``, ``5 000 €`` in French): what pages and PDFs show."""
    params = {key: _localized_param(value) for key, value in message.params.items()}
    template = message.template_for(gettext, ngettext)
    return template % params if params else template


def _localized_param(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Money):
        return money_format(value.amount, value.currency, places=0)
    if isinstance(value, Message):
        return localized_text(value)
    if isinstance(value, tuple | list):
        return ", ".join(_localized_param(item) for item in value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float | Decimal):
        return number_localized(value)
    return str(value)


def amount(money: Money | None) -> str | None:
    return None if money is None else str(round_money(money.amount))


def cents(money: Money) -> Decimal:
    """An engine amount rounded to the cent: the figure ``amount`` writes for the API, as a
    number for pages and PDFs to format."""
    return round_money(money.amount)


def cents_or_none(money: Money | None) -> Decimal | None:
    return None if money is None else cents(money)


def number(value: float | Decimal, places: int = 2) -> float:
    """A physical quantity for JSON: rounded for people, never money."""
    return round(float(value), places)


def fraction(value: Decimal) -> str:
    """A share as a plain decimal string ("0.2"), however many places it was stored with."""
    return format(value.normalize(), "f")
