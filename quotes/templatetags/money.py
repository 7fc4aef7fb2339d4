"""Template filters for money and numbers (``{% load money %}``); the formatting itself is
``gpuquote.core.formatting``, shared with services and PDFs."""

from __future__ import annotations

from typing import Any

from django import template

from gpuquote.core.formatting import figure_format, money_format, number_localized, percent_format

register = template.Library()


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
    return percent_format(value, int(places))


@register.filter
def figure(value: Any) -> str:
    """``{{ assumption.value|figure }}``: at most 2 decimals from 10 up, 4 below, no trailing
    zeros (``0.172``, ``170.05``, ``1.6537``)."""
    return figure_format(value)
