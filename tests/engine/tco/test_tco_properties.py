"""Properties of the TCO model for any scenario (Hypothesis): categories add up to the total,
costs never fall with more use, dearer power or a longer horizon.
"""

import itertools
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from engine.tco import HOURS_PER_MONTH, HOURS_PER_YEAR, Way
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco


def amounts(low, high, places=2):
    return st.decimals(min_value=Decimal(low), max_value=Decimal(high), places=places)


@st.composite
def scenarios(draw):
    config = configuration(
        servers=draw(st.integers(1, 64)),
        gpus_per_server=draw(st.integers(1, 8)),
        power_w=draw(st.integers(100, 15000)),
        price=eur(draw(amounts(0, 500000))),
        managed_monthly_price=eur(draw(amounts(0, 60000))),
    )
    overrides = {
        "electricity_price_per_kwh": draw(amounts(0, 1, 4)),
        "pue": draw(amounts(1, 3)),
        "idle_power_fraction": draw(amounts(0, 1)),
        "colocation_per_kw_month": draw(amounts(0, 400)),
        "staff_cost_per_year": draw(amounts(0, 200000)),
        "staff_fte_per_server": draw(amounts(0, 1)),
        "managed_staff_fte_per_server": draw(amounts(0, 1)),
        "installation_cost": draw(amounts(0, 5000)),
        "support_pct_per_year": draw(amounts(0, 1)),
        "spares_pct_per_year": draw(amounts(0, 1)),
        "insurance_pct_per_year": draw(amounts(0, 1)),
        "network_per_server_month": draw(amounts(0, 1000)),
        "software_per_gpu_year": draw(amounts(0, 5000)),
        "host_setup_cost_per_server": draw(amounts(0, 2000)),
        "host_setup_cost_per_gpu": draw(amounts(0, 500)),
        # tiers where a longer contract never costs less in total: 36 x (1 - d36) >= 24
        "managed_discount_36m_pct": draw(amounts(0, "0.33")),
        "cloud_price_per_gpu_hour": draw(amounts(0, 20, 4)),
        "cloud_reserved_discount_pct": draw(amounts(0, "0.99")),
        "discount_rate": draw(amounts(0, "0.2")),
    }
    years = draw(st.integers(1, 7))
    utilization = draw(amounts("0.05", 1))
    return config, overrides, years, utilization


@given(scenarios())
def test_categories_add_up_exactly_to_the_total(scenario):
    config, overrides, years, utilization = scenario

    result = tco(config, assumptions(**overrides), years=years, utilization=utilization)

    for cost in result.options.values():
        lines = list(cost.by_category.values())
        assert sum((line.amount for line in lines), Decimal(0)) == cost.total.amount
        assert all(line.amount.as_tuple().exponent == -2 for line in lines)
        assert cost.total.amount >= 0
        assert len(cost.monthly) == len(cost.monthly_cumulative) == years * 12
        assert len(cost.yearly) == years
        # the cumulative series ends on the total itself (a chart's end label reads it); the
        # months before are rounded from exact values, within half a cent per category
        assert cost.monthly_cumulative[-1] == cost.total
        if len(cost.monthly_cumulative) > 1:
            slack = Decimal("0.005") * len(lines)
            step = cost.monthly_cumulative[-1].amount - cost.monthly_cumulative[-2].amount
            assert abs(step - cost.monthly[-1].amount) <= slack + Decimal("0.01")


@given(scenarios(), amounts("0.05", 1), amounts("0.05", 1))
def test_more_utilisation_never_lowers_the_power_cost(scenario, first, second):
    config, overrides, years, _ = scenario
    low, high = sorted((first, second))
    given_assumptions = assumptions(**overrides)

    at_low = tco(config, given_assumptions, years=years, utilization=low).on_premises
    at_high = tco(config, given_assumptions, years=years, utilization=high).on_premises

    assert at_low.by_category["power"].amount <= at_high.by_category["power"].amount


def _never_is_last(month):
    return float("inf") if month is None else month


@given(scenarios(), amounts(0, 1, 4), amounts(0, 1, 4))
def test_dearer_electricity_never_makes_buying_pay_off_sooner_than_hosting(scenario, a, b):
    config, overrides, years, utilization = scenario
    cheap, dear = sorted((a, b))
    overrides = {**overrides, "managed_power_included": 1}

    sooner = tco(
        config, assumptions(**{**overrides, "electricity_price_per_kwh": cheap}),
        years=years, utilization=utilization,
    ).break_even_month  # fmt: skip
    later = tco(
        config, assumptions(**{**overrides, "electricity_price_per_kwh": dear}),
        years=years, utilization=utilization,
    ).break_even_month  # fmt: skip

    assert _never_is_last(later.vs_managed) >= _never_is_last(sooner.vs_managed)


@given(scenarios())
def test_totals_grow_with_the_horizon(scenario):
    config, overrides, _, utilization = scenario
    given_assumptions = assumptions(**overrides)

    totals = [
        tco(config, given_assumptions, years=years, utilization=utilization).options
        for years in range(1, 8)
    ]

    for years, (shorter, longer) in enumerate(itertools.pairwise(totals), start=1):
        for option, cost in shorter.items():
            assert Decimal(0) <= cost.total.amount
            if option is Way.MANAGED and years < 3:
                # A longer stay signs a longer contract, whose fee pays the hardware back over
                # more months: 2 years of a 24-month fee may cost less than 1 year of a
                # 12-month one. From 3 years on every horizon signs 36 months.
                continue
            assert cost.total.amount <= longer[option].total.amount


def test_hours_are_named_constants():
    assert HOURS_PER_YEAR == 8760
    assert HOURS_PER_MONTH * 12 == HOURS_PER_YEAR
