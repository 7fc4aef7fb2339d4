"""A quote event's details as a salesperson reads them ("Quote discount: 0 % → 15 %"), from the
data the services record (``quotes.sales.services``), in the active language."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext

from gpuquote.core.formatting import figure_format
from quotes.models import QUOTE_STATUS_CHOICES, QuoteEvent


def _percent(value: Any) -> str:
    return gettext("%(value)s %%") % {"value": figure_format(value)}


def _months(value: Any) -> str:
    months = int(value)
    return ngettext("%(n)s month", "%(n)s months", months) % {"n": months}


def _date(value: Any) -> str:
    return date_format(dt.date.fromisoformat(str(value)), "SHORT_DATE_FORMAT")


# A change recorded as [before, after]: its name and how each side reads.
_CHANGES: dict[str, tuple[Callable[[], str], Callable[[Any], str]]] = {
    "discount_pct": (lambda: gettext("Quote discount"), _percent),
    "contract_months": (lambda: gettext("Contract length"), _months),
    "valid_until": (lambda: gettext("Valid until"), _date),
}


def status_label(value: str) -> str:
    """A status as staff read it ("sent", "envoyé"); "—" for none."""
    if not value:
        return "—"
    return str(dict(QUOTE_STATUS_CHOICES).get(value, value))


def event_details(event: QuoteEvent) -> str:
    """The event's reason and what changed, in sentences; unknown data as it was recorded."""
    data = dict(event.data or {})
    parts = [event.reason] if event.reason else []
    for name, (label, show) in _CHANGES.items():
        pair = data.pop(name, None)
        if isinstance(pair, list) and len(pair) == 2:
            parts.append(
                gettext("%(what)s: %(before)s → %(after)s")
                % {"what": label(), "before": show(pair[0]), "after": show(pair[1])}
            )
        elif pair is not None:  # a line's discount, recorded alone
            parts.append(gettext("line discount %(value)s") % {"value": _percent(pair)})
    if "description" in data:
        parts.append(
            gettext("%(description)s × %(quantity)s")
            % {
                "description": data.pop("description"),
                "quantity": figure_format(data.pop("quantity", "1")),
            }
        )
        data.pop("sku", None)
    if "position" in data:
        position = data.pop("position")
        if "quantity" in data:
            parts.append(
                gettext("line %(position)s: quantity %(quantity)s")
                % {"position": position, "quantity": figure_format(data.pop("quantity"))}
            )
        else:
            parts.append(gettext("line %(position)s") % {"position": position})
    if "approved_discount_pct" in data:
        parts.append(_percent(data.pop("approved_discount_pct")))
    if "from" in data and "to" in data and event.kind == "revised":
        parts.append(
            gettext("revision %(before)s → %(after)s")
            % {"before": data.pop("from"), "after": data.pop("to")}
        )
    if "attachment" in data:
        parts.append(
            gettext("to %(to)s, with %(attachment)s")
            % {"to": data.pop("to", ""), "attachment": data.pop("attachment")}
        )
    if "tier" in data:
        parts.append(
            ngettext(
                "%(tier)s configuration, %(n)s server",
                "%(tier)s configuration, %(n)s servers",
                int(data.get("servers") or 0),
            )
            % {"tier": data.pop("tier"), "n": data.pop("servers", 0)}
        )
    if data.pop("sent_with_failed_checks", None):
        parts.append(gettext("sent with failed server checks"))
    data.pop("workload", None)  # shown in full in the workload panel
    parts.extend(f"{key}: {value}" for key, value in data.items())
    return "; ".join(part for part in parts if part)
