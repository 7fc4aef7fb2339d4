"""The managed-hosting fee a staff quote was built from, as the quote page shows it: how it was
set, its floor, where it sits in the market, and the host's cost next to the customer's."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from quotes.advice.labels import MARKET_LABELS
from quotes.models import Quote


def managed_context(quote: Quote) -> dict[str, Any] | None:
    """The host's fee the quote was built from (the wizard result's TCO), for the sales team:
    how it was set, its floor and where it sits in the market."""
    tco = (quote.snapshot or {}).get("tco") or {}
    offer = tco.get("managed_offer")
    if not offer:
        return None
    contract = next(
        (term for term in offer["terms"] if term["months"] == offer["contract_months"]), None
    )
    if contract is None:
        return None
    return {
        "basis": offer["basis"],
        "contract": contract,
        "band": offer["market_band"],
        "override_below_floor": offer["override_below_floor"],
        "market_label": MARKET_LABELS.get(contract["market"], contract["market"]),
        "cost_lines": _cost_lines(contract),
    }


# The lines of one server's monthly cost, as the managed offer records them (host and customer).
COST_LINES = (
    ("amortisation", gettext_lazy("Hardware paid back")),
    ("power", gettext_lazy("Power and cooling")),
    ("space", gettext_lazy("Space")),
    ("staff", gettext_lazy("Operations staff")),
    ("support", gettext_lazy("Spares and hardware support")),
    ("network", gettext_lazy("Network")),
    ("total", gettext_lazy("Total")),
)


def _cost_lines(contract: dict[str, Any]) -> list[dict[str, Any]]:
    """The contract's cost per server and month, line by line: the host's own cost next to what
    the same server costs the customer on premises, so staff see where the margin comes from.
    Empty for offers stored before the host had its own cost base."""
    host, customer = contract.get("cost"), contract.get("customer")
    if not host or not customer:
        return []
    return [
        {"label": label, "host": host[key], "customer": customer[key]} for key, label in COST_LINES
    ]
