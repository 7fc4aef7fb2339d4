"""The TCO model priced by hand and checked exactly: buy, host or rent, and the month buying
breaks even.
"""

from decimal import Decimal

from engine.tco import Way
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco

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
        managed_monthly_price=eur("4000"),
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
        host_setup_cost_per_server="200",
        host_setup_cost_per_gpu="50",
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
        "setup": eur("800.00"),  # installation: (200 + 4 GPUs x 50) x 2 servers
        # 4,000 set by sales x (1 - 10% for 36 months) = 3,600, above the floor of
        # 100,000 / 60 = 1,666.67 (its 5-year life, no cost of capital); x 2 servers x 36
        "hosting_fees": eur("259200.00"),
        "staff": eur("14400.00"),  # 120,000 x 0.02 FTE x 2 x 3 years
        "software": eur("28800.00"),
    }
    assert result.managed.total == eur("303200.00")
    assert dict(result.cloud.by_category) == {
        "cloud": eur("210240.00"),  # 8 GPUs x 730 h x 50% x 36 months x 2 EUR
        "staff": eur("14400.00"),
        "software": eur("28800.00"),
    }
    assert result.cloud.total == eur("253440.00")
    # reserved capacity is billed for every hour: 8 x 730 x 36 x 2 EUR x (1 - 30%) = 294,336
    assert result.cloud_reserved.by_category["cloud"] == eur("294336.00")
    assert result.cloud_reserved.total == eur("337536.00")
    assert result.cheapest is Way.CLOUD


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
        gpus_per_server=1, power_w=1000, price=eur("100000"), managed_monthly_price=eur("9000")
    )
    given = assumptions(network_per_server_month="1000", discount_rate=rate)

    result = tco(config, given, years=1)

    # sum of 1 / 1.01^k for k = 1..12 = 11.2550775 (annuity table, 12 periods at 1%)
    factor = sum((Decimal(1) / Decimal("1.01") ** k for k in range(1, 13)), Decimal(0))
    assert factor.quantize(Decimal("0.0000001")) == Decimal("11.2550775")
    assert result.on_premises.npv == eur("111255.08")  # 100,000 + 1,000 x 11.2550775
    assert result.managed.npv == eur("101295.70")  # 9,000 x 11.2550775
    assert result.on_premises.total == eur("112000.00")  # cash stays undiscounted
    assert crossing_case().on_premises.npv is None
