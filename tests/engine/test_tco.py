"""The TCO model: buy, host or rent, priced by hand and checked exactly."""

import itertools
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.assumptions import region_defaults
from engine.money import Money
from engine.tco import (
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    Option,
    SensitivityParameter,
    TcoConfiguration,
    TcoInput,
    TcoInputError,
    compute_tco,
)

# Every cost driver at zero, so that each test switches on only what it checks.
ZEROED = {
    "electricity_price_per_kwh": 0,
    "pue": 1,
    "idle_power_fraction": 0,
    "colocation_per_kw_month": 0,
    "staff_cost_per_year": 0,
    "staff_fte_per_server": 0,
    "managed_staff_fte_per_server": 0,
    "installation_cost": 0,
    "support_pct_per_year": 0,
    "spares_pct_per_year": 0,
    "insurance_pct_per_year": 0,
    "network_per_server_month": 0,
    "software_per_gpu_year": 0,
    "managed_setup_fee_months": 0,
    "managed_discount_12m_pct": 0,
    "managed_discount_24m_pct": 0,
    "managed_discount_36m_pct": 0,
    "managed_power_included": 1,
    "discount_rate": 0,
    "cloud_reserved_discount_pct": 0,
}


def eur(amount):
    return Money(Decimal(amount), "EUR")


def assumptions(**overrides):
    return region_defaults("FR", "EUR").with_overrides(**{**ZEROED, **overrides})


def configuration(**changes):
    fields = {
        "servers": 1,
        "gpus_per_server": 8,
        "gpu_model": "NVIDIA H100 SXM5 80GB",
        "power_w": 10200,
        "price": eur("300000"),
        "rack_units": 8,
        "managed_monthly_price": None,
    }
    fields.update(changes)
    return TcoConfiguration(**fields)


def tco(config, with_assumptions, *, years=1, utilization="1", sensitivity=False):
    inp = TcoInput(
        configuration=config,
        horizon_years=years,
        utilization=Decimal(utilization),
        region="FR",
        currency="EUR",
        assumptions=with_assumptions,
    )
    return compute_tco(inp, with_sensitivity=sensitivity)


# --------------------------------------------------------------------------------------------
# Worked examples
# --------------------------------------------------------------------------------------------


def test_worked_example_power_and_cooling_of_a_dgx_h100_for_one_year():
    # Given an 8 x H100 SXM server rated 10.2 kW (NVIDIA DGX H100), French business
    # electricity at 0.172 EUR/kWh and the 2024 average PUE of 1.56, at full load
    given = assumptions(
        electricity_price_per_kwh="0.172",
        pue="1.56",
        idle_power_fraction="0.25",
        grid_carbon_kg_per_kwh="0.032",
    )

    result = tco(configuration(), given, years=1, utilization="1")

    # 10.2 kW x 8,760 h = 89,352 kWh a year
    assert result.it_energy_kwh_per_year == Decimal("89352")
    # 89,352 kWh x 0.172 EUR = 15,368.544 EUR
    assert result.on_premises.by_category["power"] == eur("15368.54")
    # 89,352 kWh x (1.56 - 1) x 0.172 EUR = 8,606.38464 EUR
    assert result.on_premises.by_category["cooling"] == eur("8606.38")
    # 89,352 x 1.56 = 139,389.12 kWh at the meter; x 0.032 kg = 4,460.45184 kg CO2e
    assert result.facility_energy_kwh_per_year == Decimal("139389.12")
    assert result.co2e_kg_per_year == Decimal("4460.45184")


def hand_priced():
    # 2 servers of 4 GPUs, 5 kW each, 100,000 EUR each; 3 years at 50% utilisation.
    config = configuration(
        servers=2, gpus_per_server=4, power_w=5000, price=eur("100000"),
        managed_monthly_price=eur("3000"),
    )  # fmt: skip
    given = assumptions(
        electricity_price_per_kwh="0.2",
        pue="1.5",
        idle_power_fraction="0.2",
        colocation_per_kw_month="150",
        staff_cost_per_year="120000",
        staff_fte_per_server="0.05",
        managed_staff_fte_per_server="0.02",
        installation_cost="2000",
        support_pct_per_year="0.1",
        spares_pct_per_year="0.02",
        insurance_pct_per_year="0.01",
        network_per_server_month="100",
        software_per_gpu_year="1200",
        managed_setup_fee_months="1",
        managed_discount_36m_pct="0.10",
        cloud_price_per_gpu_hour="2",
        cloud_reserved_discount_pct="0.3",
    )
    return tco(config, given, years=3, utilization="0.5")


def test_on_premises_costs_by_hand():
    result = hand_priced()
    own = result.on_premises

    # IT power: 10 kW x (0.2 + 0.8 x 0.5) = 6 kW; 6 kW x 730 h x 36 months = 157,680 kWh
    assert dict(own.by_category) == {
        "capital": eur("200000.00"),  # 2 x 100,000
        "installation": eur("4000.00"),  # 2 x 2,000
        "power": eur("31536.00"),  # 157,680 kWh x 0.2
        "cooling": eur("15768.00"),  # 157,680 kWh x 0.5 x 0.2
        "space": eur("54000.00"),  # 150 EUR x 10 kW provisioned x 36 months
        "staff": eur("36000.00"),  # 120,000 x 0.05 FTE x 2 servers x 3 years
        "support": eur("60000.00"),  # 200,000 x 10% x 3 years
        "spares": eur("12000.00"),  # 200,000 x 2% x 3 years
        "insurance": eur("6000.00"),  # 200,000 x 1% x 3 years
        "network": eur("7200.00"),  # 100 x 2 servers x 36 months
        "software": eur("28800.00"),  # 1,200 x 8 GPUs x 3 years
    }
    assert own.total == eur("455304.00")
    # GPU-hours used: 8 GPUs x 730 h x 36 months x 0.5 = 105,120; 455,304 / 105,120 = 4.3313
    assert own.cost_per_gpu_hour == eur("4.33")
    # one-offs 204,000 in month 1; running costs 251,304 / 36 = 6,980.666... a month
    assert own.monthly[0] == eur("210980.67")
    assert own.monthly[1] == eur("6980.67")
    assert own.yearly == (eur("287768.00"), eur("83768.00"), eur("83768.00"))
    assert own.monthly_cumulative[-1] == eur("455304.00")
    assert len(own.monthly) == len(own.monthly_cumulative) == 36
    # 6 kW x 8,760 h = 52,560 kWh; x 1.5 = 78,840 kWh
    assert result.it_energy_kwh_per_year == Decimal("52560")
    assert result.facility_energy_kwh_per_year == Decimal("78840")


def test_managed_hosting_and_cloud_costs_by_hand():
    result = hand_priced()

    assert dict(result.managed.by_category) == {
        "setup": eur("6000.00"),  # one month of 3,000 x 2 servers
        "hosting_fees": eur("194400.00"),  # 6,000 x (1 - 10% for 36 months) x 36
        "staff": eur("14400.00"),  # 120,000 x 0.02 FTE x 2 x 3 years
        "software": eur("28800.00"),
    }
    assert result.managed.total == eur("243600.00")
    assert dict(result.cloud.by_category) == {
        "cloud": eur("210240.00"),  # 8 GPUs x 730 h x 50% x 36 months x 2 EUR
        "staff": eur("14400.00"),
        "software": eur("28800.00"),
    }
    assert result.cloud.total == eur("253440.00")
    # reserved capacity is billed for every hour: 8 x 730 x 36 x 2 EUR x (1 - 30%) = 294,336
    assert result.cloud_reserved.by_category["cloud"] == eur("294336.00")
    assert result.cloud_reserved.total == eur("337536.00")
    assert result.cheapest is Option.MANAGED


# --------------------------------------------------------------------------------------------
# Break-even
# --------------------------------------------------------------------------------------------


def crossing_case(*, years=3, price="100000"):
    # Buying: `price` in month 1, then 1,000 EUR a month (network only).
    # Hosting: 5,000 EUR a month. Cloud: 1 GPU x 730 h x 10 EUR = 7,300 EUR a month.
    config = configuration(
        gpus_per_server=1, power_w=1000, price=eur(price), managed_monthly_price=eur("5000")
    )
    given = assumptions(network_per_server_month="1000", cloud_price_per_gpu_hour="10")
    return tco(config, given, years=years)


def test_buying_and_hosting_cross_at_the_reported_break_even_month():
    result = crossing_case()
    own = [money.amount for money in result.on_premises.monthly_cumulative]
    hosted = [money.amount for money in result.managed.monthly_cumulative]
    cloud = [money.amount for money in result.cloud.monthly_cumulative]

    # 100,000 + 1,000 m <= 5,000 m from m = 25 on (equal at 125,000)
    assert result.break_even_month.vs_managed == 25
    assert own[24] == hosted[24] == Decimal("125000")
    assert own[23] > hosted[23]  # month 24: 124,000 > 120,000
    assert all(own[k] <= hosted[k] for k in range(24, 36))
    # 100,000 + 1,000 m <= 7,300 m from m = 100,000 / 6,300 = 15.87 -> 16
    assert result.break_even_month.vs_cloud == 16
    assert own[15] <= cloud[15]  # 116,000 <= 116,800
    assert own[14] > cloud[14]  # 115,000 > 109,500
    assert result.break_even_month.vs_cloud_reserved == 16


def test_no_break_even_within_the_horizon_is_none_and_immediate_is_month_one():
    assert crossing_case(years=1).break_even_month.vs_managed is None  # 112,000 > 60,000
    assert crossing_case(years=2).break_even_month.vs_managed is None  # 124,000 > 120,000
    assert crossing_case(price="0").break_even_month.vs_managed == 1  # 1,000 <= 5,000


def test_break_even_and_totals_are_cash_depreciation_is_only_reported():
    short = crossing_case().on_premises
    config = configuration(
        gpus_per_server=1, power_w=1000, price=eur("100000"), managed_monthly_price=eur("5000")
    )
    for depreciation_years, residual in (("1", "0"), ("2", "0.2"), ("7", "0.5")):
        given = assumptions(
            network_per_server_month="1000",
            cloud_price_per_gpu_hour="10",
            depreciation_years=depreciation_years,
            residual_value_pct=residual,
        )
        result = tco(config, given, years=3)
        assert result.on_premises.total == short.total
        assert result.break_even_month.vs_managed == 25

    given = assumptions(network_per_server_month="1000", depreciation_years="2",
                        residual_value_pct="0.2")  # fmt: skip
    book = tco(config, given, years=3).book_values
    # (100,000 - 20,000 residual) / 2 years = 40,000 a year, then nothing below the residual
    assert [(row.year, row.depreciation, row.book_value) for row in book] == [
        (1, eur("40000.00"), eur("60000.00")),
        (2, eur("40000.00"), eur("20000.00")),
        (3, eur("0.00"), eur("20000.00")),
    ]


def test_net_present_value_discounts_each_month_and_is_absent_without_a_rate():
    # (1 + r) = 1.01^12, so the monthly rate is exactly 1%
    rate = Decimal("1.01") ** 12 - 1
    config = configuration(
        gpus_per_server=1, power_w=1000, price=eur("100000"), managed_monthly_price=eur("5000")
    )
    given = assumptions(network_per_server_month="1000", discount_rate=rate)

    result = tco(config, given, years=1)

    # sum of 1 / 1.01^k for k = 1..12 = 11.2550775 (annuity table, 12 periods at 1%)
    factor = sum(Decimal(1) / Decimal("1.01") ** k for k in range(1, 13))
    assert factor.quantize(Decimal("0.0000001")) == Decimal("11.2550775")
    assert result.on_premises.npv == eur("111255.08")  # 100,000 + 1,000 x 11.2550775
    assert result.managed.npv == eur("56275.39")  # 5,000 x 11.2550775
    assert result.on_premises.total == eur("112000.00")  # cash stays undiscounted
    assert crossing_case().on_premises.npv is None


# --------------------------------------------------------------------------------------------
# What an override touches
# --------------------------------------------------------------------------------------------


FULL = {
    "electricity_price_per_kwh": "0.2",
    "pue": "1.5",
    "idle_power_fraction": "0.25",
    "colocation_per_kw_month": "150",
    "staff_cost_per_year": "100000",
    "staff_fte_per_server": "0.05",
    "support_pct_per_year": "0.1",
    "cloud_price_per_gpu_hour": "3",
}


def full_case(*, years=3, utilization="0.6", sensitivity=False, **overrides):
    config = configuration(managed_monthly_price=eur("20000"))
    given = assumptions(**{**FULL, **overrides})
    return tco(config, given, years=years, utilization=utilization, sensitivity=sensitivity)


def test_overriding_pue_changes_cooling_and_totals_only():
    base = full_case()
    changed = full_case(pue="1.2")

    for category, amount in base.on_premises.by_category.items():
        if category == "cooling":
            assert changed.on_premises.by_category[category] != amount
        else:
            assert changed.on_premises.by_category[category] == amount
    assert changed.on_premises.total != base.on_premises.total
    assert changed.managed.total == base.managed.total  # the fee includes power and cooling
    assert changed.cloud.total == base.cloud.total
    assert changed.it_energy_kwh_per_year == base.it_energy_kwh_per_year
    assert changed.facility_energy_kwh_per_year != base.facility_energy_kwh_per_year


def test_overriding_the_electricity_price_touches_power_and_cooling_only():
    base = full_case()
    changed = full_case(electricity_price_per_kwh="0.3")

    differs = {
        category
        for category, amount in base.on_premises.by_category.items()
        if changed.on_premises.by_category[category] != amount
    }
    assert differs == {"power", "cooling"}
    assert changed.managed.total == base.managed.total
    assert changed.cloud.total == base.cloud.total


def test_power_is_billed_to_managed_hosting_when_the_fee_excludes_it():
    excluded = full_case(managed_power_included=0)

    assert excluded.managed.by_category["power"] == excluded.on_premises.by_category["power"]
    assert excluded.managed.by_category["cooling"] == excluded.on_premises.by_category["cooling"]
    assert "power" not in full_case().managed.by_category
    assert "billed at your electricity price" in excluded.managed.includes.template
    assert "includes power" in full_case().managed.includes.template


def test_the_configured_managed_price_wins_over_the_per_gpu_default():
    given = assumptions()
    default = tco(configuration(gpu_model="NVIDIA H100 PCIe", gpus_per_server=4), given)
    configured = tco(
        configuration(
            gpu_model="NVIDIA H100 PCIe", gpus_per_server=4, managed_monthly_price=eur("10000")
        ),
        given,
    )

    # OVHcloud h100-1520: 7,770 EUR / 4 GPUs = 1,942.50 EUR per GPU-month; x 4 GPUs x 12
    assert default.managed.by_category["hosting_fees"] == eur("93240.00")
    assert configured.managed.by_category["hosting_fees"] == eur("120000.00")


def test_options_without_a_known_price_are_left_out_and_explained():
    result = tco(configuration(gpu_model="NVIDIA GeForce RTX 4090"), assumptions())

    assert result.managed is None
    assert result.cloud is None
    assert result.cloud_reserved is None
    assert result.break_even_month.vs_managed is None
    assert result.break_even_month.vs_cloud is None
    assert result.cheapest is Option.ON_PREMISES
    assert set(result.options) == {Option.ON_PREMISES}
    templates = " ".join(message.template for message in result.explanations)
    assert "managed_monthly_price" in templates
    assert "cloud_price_per_gpu_hour" in templates

    priced = tco(
        configuration(gpu_model="NVIDIA GeForce RTX 4090"),
        assumptions(cloud_price_per_gpu_hour="0.7"),
    )
    assert priced.cloud.total == eur("49056.00")  # 8 GPUs x 8,760 h x 0.70 EUR


def test_the_result_lists_the_assumptions_used_and_marks_overrides():
    result = full_case()
    used = {assumption.name: assumption for assumption in result.assumptions}

    assert used["pue"].overridden
    assert used["pue"].source == "override"
    assert not used["usd_per_eur"].overridden
    assert used["grid_carbon_kg_per_kwh"].value == Decimal("0.032")


# --------------------------------------------------------------------------------------------
# Sensitivity
# --------------------------------------------------------------------------------------------


def test_sensitivity_table_reruns_the_model_per_row():
    result = full_case()
    table = full_case(sensitivity=True).sensitivity

    assert [(row.parameter, row.value) for row in table] == [
        (SensitivityParameter.ELECTRICITY_PRICE, Decimal("-0.5")),
        (SensitivityParameter.ELECTRICITY_PRICE, Decimal("-0.25")),
        (SensitivityParameter.ELECTRICITY_PRICE, Decimal(0)),
        (SensitivityParameter.ELECTRICITY_PRICE, Decimal("0.5")),
        (SensitivityParameter.ELECTRICITY_PRICE, Decimal(1)),
        (SensitivityParameter.UTILIZATION, Decimal("0.2")),
        (SensitivityParameter.UTILIZATION, Decimal("0.5")),
        (SensitivityParameter.UTILIZATION, Decimal("0.8")),
        (SensitivityParameter.UTILIZATION, Decimal(1)),
        *[(SensitivityParameter.HORIZON_YEARS, Decimal(years)) for years in range(1, 8)],
    ]
    assert [row.label.render() for row in table[:2]] == [
        "Electricity price -50%",
        "Electricity price -25%",
    ]
    assert table[5].label.render() == "Utilisation 20%"
    assert table[-1].label.render() == "Horizon 7 years"

    unchanged = table[2]
    assert dict(unchanged.totals) == {
        option.value: cost.total for option, cost in result.options.items()
    }
    assert unchanged.break_even == result.break_even_month
    halved = full_case(electricity_price_per_kwh="0.1")
    assert table[0].totals["on_premises"] == halved.on_premises.total
    assert table[0].break_even == halved.break_even_month
    for row in table[5:9]:
        direct = full_case(utilization=row.value)
        assert dict(row.totals) == {o.value: c.total for o, c in direct.options.items()}
        assert row.break_even == direct.break_even_month
    for row in table[9:]:
        direct = full_case(years=int(row.value))
        assert row.totals["managed"] == direct.managed.total
        assert row.totals["on_premises"] == direct.on_premises.total
        assert row.break_even == direct.break_even_month


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"horizon_years": 0}, "horizon_years"),
        ({"horizon_years": 8}, "horizon_years"),
        ({"utilization": Decimal("0.04")}, "utilization"),
        ({"utilization": Decimal("1.01")}, "utilization"),
        ({"utilization": 0.5}, "utilization"),
        ({"region": "DE"}, "region"),
        ({"currency": "USD"}, "currency"),
    ],
)
def test_input_out_of_range_is_refused(changes, field):
    fields = {
        "configuration": configuration(),
        "horizon_years": 3,
        "utilization": Decimal("0.5"),
        "region": "FR",
        "currency": "EUR",
        "assumptions": assumptions(),
    }
    fields.update(changes)

    with pytest.raises(TcoInputError) as caught:
        TcoInput(**fields)

    assert caught.value.field == field


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"servers": 0}, "servers"),
        ({"gpus_per_server": 0}, "gpus_per_server"),
        ({"power_w": -1}, "power_w"),
        ({"price": eur("-1")}, "price"),
    ],
)
def test_a_configuration_that_cannot_exist_is_refused(changes, field):
    with pytest.raises(TcoInputError) as caught:
        configuration(**changes)

    assert caught.value.field == field


def test_a_price_in_another_currency_is_refused():
    with pytest.raises(TcoInputError) as caught:
        tco(configuration(price=Money(Decimal(1), "USD")), assumptions())

    assert caught.value.field == "price"


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


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
        "managed_setup_fee_months": draw(amounts(0, 3)),
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
        # the series are rounded from exact values: within half a cent per category
        slack = Decimal("0.005") * len(lines)
        assert abs(cost.monthly_cumulative[-1].amount - cost.total.amount) <= slack


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

    for shorter, longer in itertools.pairwise(totals):
        for option, cost in shorter.items():
            assert Decimal(0) <= cost.total.amount <= longer[option].total.amount


def test_hours_are_named_constants():
    assert HOURS_PER_YEAR == 8760
    assert HOURS_PER_MONTH * 12 == HOURS_PER_YEAR
