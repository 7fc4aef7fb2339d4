"""The sensitivity table: the total of each option as one input moves."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from ..i18n import Message, gettext_noop, ngettext_noop
from ..money import Money
from .inputs import (
    MONTHS_PER_YEAR,
    ONE,
    SENSITIVITY_ELECTRICITY,
    SENSITIVITY_HORIZON_YEARS,
    SENSITIVITY_UTILIZATION,
    SensitivityParameter,
    TcoInput,
    make_message,
)
from .model import Values, cost_plan, rounded_total
from .options import break_evens
from .results import SensitivityRow


def sensitivity_table(v: Values, inp: TcoInput) -> tuple[SensitivityRow, ...]:
    months = inp.horizon_years * MONTHS_PER_YEAR
    currency = inp.assumptions.currency
    cases: list[tuple[SensitivityParameter, Decimal, Message, Decimal, Decimal, int]] = []
    for change in SENSITIVITY_ELECTRICITY:
        label = make_message(
            gettext_noop("Electricity price %(change)s%%"), change=_signed_percent(change)
        )
        cases.append(
            (
                SensitivityParameter.ELECTRICITY_PRICE,
                change,
                label,
                v.electricity * (ONE + change),
                inp.utilization,
                months,
            )
        )
    for utilization in SENSITIVITY_UTILIZATION:
        label = make_message(
            gettext_noop("Utilisation %(percent)s%%"), percent=_percent(utilization)
        )
        cases.append(
            (
                SensitivityParameter.UTILIZATION,
                utilization,
                label,
                v.electricity,
                utilization,
                months,
            )
        )
    for years in SENSITIVITY_HORIZON_YEARS:
        label = Message.counted(
            ngettext_noop("Horizon %(years)s year", "Horizon %(years)s years"), "years", years=years
        )
        cases.append(
            (
                SensitivityParameter.HORIZON_YEARS,
                Decimal(years),
                label,
                v.electricity,
                inp.utilization,
                years * MONTHS_PER_YEAR,
            )
        )
    rows = []
    for parameter, value, label, electricity, utilization, horizon in cases:
        plan = cost_plan(v, utilization, horizon, electricity)
        totals = {
            str(option): Money(rounded_total(lines, horizon), currency)
            for option, lines in plan.items()
        }
        rows.append(
            SensitivityRow(
                parameter=parameter,
                value=value,
                label=label,
                totals=MappingProxyType(totals),
                break_even=break_evens(plan, horizon),
            )
        )
    return tuple(rows)


def _percent(fraction: Decimal) -> str:
    return str((fraction * 100).normalize().quantize(ONE))


def _signed_percent(fraction: Decimal) -> str:
    text = _percent(fraction)
    return text if fraction < 0 else "+" + text
