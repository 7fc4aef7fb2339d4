"""What the result page adds around the options for choosing: where the options differ, the
customer's own GPU choice (re-pricing) and, when the budget buys nothing sound, the rental."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quotes.advice.result import AdviceResult
from quotes.advice.selectors import catalog_gpu_get

# The facts compared across the options, as the cards show them.
_COMPARED = {
    "servers": lambda option: option["servers"],
    "gpus": lambda option: (option["totals"]["gpus"], option["gpu"] and option["gpu"]["sku"]),
    "vram": lambda option: round(option["totals"]["vram_gb"]),
    "ram": lambda option: option["totals"]["ram_gb"],
    "storage": lambda option: round(option["totals"]["storage_gb"]),
    "power": lambda option: option["totals"]["power_w"],
}

# The contract the rental is shown on, besides no commitment: the longest the host signs.
RENTAL_TERM_MONTHS = 36


def differences(options: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    """Which facts differ between the options side by side (none with a single option)."""
    if len(options) < 2:
        return dict.fromkeys(_COMPARED, False)
    return {
        key: len({repr(value(option)) for option in options}) > 1
        for key, value in _COMPARED.items()
    }


def preference_view(advice: AdviceResult) -> dict[str, Any] | None:
    """The GPU model and count the customer asked for on the result page, and whether the work
    needed more GPUs than asked (the count was raised)."""
    inputs = advice.inputs
    if not inputs.gpu_sku and not inputs.gpu_count:
        return None
    chosen = advice.chosen
    gpu_name: str | None = ""
    if inputs.gpu_sku:
        gpu_name = next(
            (
                line.name
                for option in advice.build.options
                for line in option.parts
                if line.sku == inputs.gpu_sku
            ),
            None,
        )
        if gpu_name is None:
            known = catalog_gpu_get(sku=inputs.gpu_sku)
            gpu_name = inputs.gpu_sku if known is None else known.name
    return {
        "gpu": gpu_name,
        "count": inputs.gpu_count,
        "raised_to": (
            chosen.totals.gpus
            if chosen is not None and inputs.gpu_count and chosen.totals.gpus > inputs.gpu_count
            else None
        ),
        "nothing_fits": chosen is None,
    }


def rental_view(advice: AdviceResult) -> dict[str, Any] | None:
    rental = advice.rental
    if rental is None:
        return None
    return {
        "servers": rental.servers,
        "gpus": rental.gpus,
        "gpu": rental.gpu_name,
        "monthly": rental.monthly(0).amount,
        "term_monthly": rental.monthly(RENTAL_TERM_MONTHS).amount,
        "term_months": RENTAL_TERM_MONTHS,
        "setup": rental.offer.term(RENTAL_TERM_MONTHS).setup.amount * rental.servers,
    }


def shared_performance(options: Sequence[dict[str, Any]]) -> list[str]:
    """The performance lines every option shares (the software stack, as a rule), taken out of
    the cards to be said once under them; a single option keeps all of its own."""
    performances: list[dict[str, Any]] = [
        option["performance"] for option in options if option.get("performance")
    ]
    if len(options) < 2 or len(performances) < len(options):
        return []
    first = performances[0]["lines"]
    shared = [line for line in first if all(line in p["lines"] for p in performances[1:])]
    for performance in performances:
        performance["lines"] = [line for line in performance["lines"] if line not in shared]
    return shared
