"""The result's options and costs as a CSV file for a spreadsheet: one row per configuration,
with the stored figures (the ones the page, the PDF and the API show), headers in the result's
language.

A French spreadsheet reads "27384,00" separated by ";", an English one "27384.00" separated by
",": the file follows the active language, so that each opens it as numbers without an import
dialog. Text cells that a spreadsheet would run as a formula are quoted with an apostrophe.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.formats import get_format
from django.utils.translation import gettext, ngettext

from engine.build.builder import BuiltOption, Tier
from engine.tco import Way
from quotes.advice.labels import TIER_LABELS, WAY_LABELS
from quotes.advice.presenters import cents, number
from quotes.advice.result import AdviceResult

# The characters that start a formula in Excel, LibreOffice and Google Sheets (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any, decimal_separator: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, int | float | Decimal):
        return str(value).replace(".", decimal_separator)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _header(years: int | None) -> list[str]:
    header = [
        gettext("Configuration"),
        gettext("Recommended"),
        gettext("Servers"),
        gettext("GPUs"),
        gettext("GPU model"),
        gettext("GPU memory (GB, 10^9 bytes)"),
        gettext("RAM (GB, 10^9 bytes)"),
        gettext("NVMe storage (GB, 10^9 bytes)"),
        gettext("Power draw per server (W)"),
        gettext("Rule checks passed"),
        gettext("Rule checks"),
        gettext("Currency"),
        gettext("Purchase price"),
        gettext("Managed hosting per month"),
        gettext("Managed-hosting contract (months)"),
    ]
    if years is not None:
        header += [
            ngettext(
                "%(way)s: total over %(years)s year", "%(way)s: total over %(years)s years", years
            )
            % {"way": label, "years": years}
            for label in WAY_LABELS.values()
        ]
    return header


def _row(
    option: BuiltOption,
    advice: AdviceResult,
    recommended: Tier | None,
    ways: Sequence[Decimal | None],
) -> list[Any]:
    totals = option.totals
    gpu = option.gpu_line.name
    offer = advice.managed_offers.get(option.tier)
    term = None if offer is None else offer.term(advice.inputs.horizon_years * 12)
    row: list[Any] = [
        str(TIER_LABELS.get(option.tier, str(option.tier))),
        option.tier == recommended,
        option.servers,
        totals.gpus,
        gpu,
        Decimal(str(number(totals.vram_gb))),  # GB to two places, as the API states them
        totals.ram_gb,
        Decimal(str(number(totals.storage_gb))),
        totals.power_w,
        sum(1 for check in option.checks if check.passed),
        len(option.checks),
        advice.inputs.currency,
        cents(totals.price),
        None if term is None else term.monthly.amount * option.servers,
        None if term is None else term.months,
    ]
    if ways:
        # The cost comparison is computed for the configuration the costs use.
        used = option.tier == advice.chosen_tier
        row += [total if used else None for total in ways]
    return row


def options_csv(advice: AdviceResult) -> str:
    """Every configuration of ``advice``, one row each, in the active language: read from the
    engine's objects, amounts rounded to the cent as the API states them."""
    tco = advice.tco
    years = None if tco is None else tco.horizon_months // 12
    ways: list[Decimal | None] = []
    if tco is not None:  # in the header's order
        options = tco.options
        ways = [cents(options[Way(key)].total) if key in options else None for key in WAY_LABELS]
    recommendation = advice.recommendation
    recommended = None if recommendation is None else recommendation.tier
    separator = str(get_format("DECIMAL_SEPARATOR"))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if separator == "," else ",", lineterminator="\r\n")
    writer.writerow(_header(years))
    for option in advice.build.options:
        values = _row(option, advice, recommended, ways)
        writer.writerow([_cell(value, separator) for value in values])
    return out.getvalue()
