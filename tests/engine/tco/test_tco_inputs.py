"""The TCO model's inputs: what overriding one assumption touches, the sensitivity table that
reruns the model per row, and the inputs it refuses.
"""

from decimal import Decimal

import pytest

from engine.money import Money
from engine.tco import SensitivityParameter, TcoInput, TcoInputError, Way
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco

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


def test_a_fee_set_by_sales_wins_over_the_hosts_computed_fee():
    given = assumptions()
    config = configuration(gpu_model="NVIDIA H100 PCIe", gpus_per_server=4)
    computed = tco(config, given)
    configured = tco(
        configuration(
            gpu_model="NVIDIA H100 PCIe", gpus_per_server=4, managed_monthly_price=eur("30000")
        ),
        given,
    )

    # Every running cost and the margin at zero, the fleet fully let: the host's fee is the
    # hardware paid back over its 5-year life, 300,000 / 60 = 5,000 EUR a month
    assert computed.managed.by_category["hosting_fees"] == eur("60000.00")
    assert computed.managed_offer.basis == "cost_plus"
    assert configured.managed.by_category["hosting_fees"] == eur("360000.00")
    assert configured.managed_offer.basis == "override"


def test_a_gpu_without_a_cloud_price_is_left_out_of_the_cloud_and_explained():
    result = tco(configuration(gpu_model="NVIDIA GeForce RTX 4090"), assumptions())

    assert result.managed is not None  # the host prices any server it can hold
    assert result.cloud is None
    assert result.cloud_reserved is None
    assert result.break_even_month.vs_cloud is None
    assert set(result.options) == {Way.ON_PREMISES, Way.MANAGED}
    templates = " ".join(message.template for message in result.explanations)
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
    assert "usd_per_eur" not in used  # every price in euros: no rate entered the figures
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
