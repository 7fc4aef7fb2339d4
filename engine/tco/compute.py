"""``compute_tco``: the three ways of getting the GPUs priced over the horizon."""

from __future__ import annotations

from decimal import Decimal

from ..i18n import Message, gettext_noop
from .inputs import _HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR, Option, TcoInput, _msg
from .model import _it_kw, _plan, _values
from .options import _INCLUDES, _MANAGED_WITHOUT_POWER, _book_values, _break_evens, _option_cost
from .results import OptionCost, TcoResult
from .sensitivity import _sensitivity


def compute_tco(inp: TcoInput, *, with_sensitivity: bool = True) -> TcoResult:
    """Price the three ways of getting the GPUs over the horizon; pure, no I/O."""
    config = inp.configuration
    assumptions = inp.assumptions.for_gpu_model(config.gpu_model)
    currency = assumptions.currency
    v = _values(inp, assumptions)
    months = inp.horizon_years * MONTHS_PER_YEAR
    plan = _plan(v, inp.utilization, months, v.electricity)
    gpu_hours_used = v.gpus * _HOURS_PER_MONTH * months * inp.utilization

    costs: dict[Option, OptionCost] = {}
    for option, lines in plan.items():
        includes = _INCLUDES[option]
        if option is Option.MANAGED and not v.power_included:
            includes = _MANAGED_WITHOUT_POWER
        costs[option] = _option_cost(
            option, lines, months, currency, gpu_hours_used, v.discount_rate, Message(includes)
        )
    order = list(Option)
    cheapest = min(costs, key=lambda option: (costs[option].total.amount, order.index(option)))

    it_kwh_year = _it_kw(v, inp.utilization) * HOURS_PER_YEAR
    facility_kwh_year = it_kwh_year * v.pue

    explanations = [
        Message(
            gettext_noop(
                "Break-even is the first month from which buying stays cheaper in cumulative "
                "cash, with the purchase paid in month 1; depreciation is shown as book value "
                "and never counted as a cost."
            )
        )
    ]
    if Option.CLOUD in costs:
        explanations.append(
            Message(
                gettext_noop(
                    "Cloud GPUs are billed for every hour: an always-on service keeps them "
                    "running whatever their utilisation."
                )
            )
            if inp.always_on
            else _msg(
                gettext_noop(
                    "Cloud GPUs are billed for the hours they run: %(percent)s %% of the time, "
                    "the utilisation given."
                ),
                percent=(inp.utilization * 100).normalize().quantize(Decimal(1)),
            )
        )
    explanations.append(
        _msg(
            gettext_noop(
                "Colocation rent is paid on the %(kw)s kW provisioned for the servers' supplies; "
                "energy on their measured draw (%(draw)s kW at full load)."
            ),
            kw=v.provisioned_kw.quantize(Decimal("0.1")),
            draw=v.full_kw.quantize(Decimal("0.1")),
        )
    )
    if Option.MANAGED not in costs:
        explanations.append(
            Message(
                gettext_noop(
                    "No managed-hosting price is known for this configuration; set "
                    "managed_monthly_price to compare."
                )
            )
        )
    if Option.CLOUD not in costs:
        explanations.append(
            _msg(
                gettext_noop(
                    "No dated cloud price is known for %(gpu)s; set cloud_price_per_gpu_hour "
                    "to compare."
                ),
                gpu=config.gpu_model or "-",
            )
        )

    return TcoResult(
        currency=currency,
        horizon_months=months,
        utilization=inp.utilization,
        on_premises=costs[Option.ON_PREMISES],
        managed=costs.get(Option.MANAGED),
        cloud=costs.get(Option.CLOUD),
        cloud_reserved=costs.get(Option.CLOUD_RESERVED),
        break_even_month=_break_evens(plan, months),
        cheapest=cheapest,
        sensitivity=_sensitivity(v, inp) if with_sensitivity else (),
        it_energy_kwh_per_year=it_kwh_year,
        facility_energy_kwh_per_year=facility_kwh_year,
        co2e_kg_per_year=facility_kwh_year * v.grid_carbon,
        book_values=_book_values(
            v,
            inp.horizon_years,
            assumptions.value("depreciation_years"),
            assumptions.value("residual_value_pct"),
            currency,
        ),
        assumptions=tuple(assumptions.values()),
        explanations=tuple(explanations),
    )
