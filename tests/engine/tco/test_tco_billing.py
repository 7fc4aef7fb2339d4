"""How the TCO bills what the customer does not own: cloud GPUs by the hour they run (every hour
for an always-on service), colocation rent on the power the site provisions and energy on the
measured draw. Figures worked out by hand in each test."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.advice.pipeline import power_per_server, tco_configuration
from engine.assumptions import region_defaults
from engine.build.configuration import BuiltOption, PartLine, Tier, Totals
from engine.money import Money
from engine.tco import TcoInputError
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco

CLOUD_AT_2 = assumptions(cloud_price_per_gpu_hour="2")


def test_an_always_on_service_pays_cloud_gpus_for_every_hour_whatever_their_utilisation():
    # 8 GPUs x 730 h x 12 months x 2 EUR = 140,160 EUR a year when billed for every hour; a job
    # that keeps them busy 50 % of the time pays for those hours only: 70,080 EUR.
    always_on = tco(configuration(), CLOUD_AT_2, utilization="0.5", always_on=True)
    by_use = tco(configuration(), CLOUD_AT_2, utilization="0.5")

    assert always_on.cloud is not None
    assert by_use.cloud is not None
    assert always_on.cloud.by_category["cloud"] == eur("140160.00")
    assert by_use.cloud.by_category["cloud"] == eur("70080.00")
    # Owning does not depend on how the cloud is billed.
    assert always_on.on_premises.total == by_use.on_premises.total


def test_the_answer_says_how_the_cloud_is_billed():
    always_on = tco(configuration(), CLOUD_AT_2, utilization="0.5", always_on=True)
    by_use = tco(configuration(), CLOUD_AT_2, utilization="0.5")

    always_on_text = [message.render() for message in always_on.explanations]
    by_use_text = [message.render() for message in by_use.explanations]
    assert any("billed for every hour" in line for line in always_on_text)
    assert any("50 % of the time" in line for line in by_use_text)
    assert not any("billed for every hour" in line for line in by_use_text)


def test_rent_is_paid_on_the_provisioned_power_and_energy_on_the_draw():
    given = assumptions(colocation_per_kw_month="150", electricity_price_per_kwh="0.2")
    measured = configuration(power_w=10200)
    provisioned = configuration(power_w=10200, provisioned_w=14300)

    base = tco(measured, given)
    rented = tco(provisioned, given)

    # Rent: 150 EUR x 10.2 kW x 12 = 18,360 EUR on the draw alone; x 14.3 kW = 25,740 EUR.
    assert base.on_premises.by_category["space"] == eur("18360.00")
    assert rented.on_premises.by_category["space"] == eur("25740.00")
    # Energy stays on the draw: 10.2 kW x 8,760 h x 0.2 EUR = 17,870.40 EUR either way.
    assert rented.on_premises.by_category["power"] == eur("17870.40")
    assert base.on_premises.by_category["power"] == rented.on_premises.by_category["power"]
    assert any("14.3 kW provisioned" in message.render() for message in rented.explanations)


def test_provisioned_power_below_the_draw_is_refused_naming_the_field():
    with pytest.raises(TcoInputError) as refused:
        configuration(power_w=10200, provisioned_w=9000)

    assert refused.value.field == "provisioned_w"


def test_a_built_option_shares_the_cluster_power_between_its_servers():
    # 2 servers drawing 5,000 W each, supplies sized for 6,250 W; the fabric and storage
    # draw 1,001 W: 501 W more per server (rounded up), on the draw and on the provisioned power.
    assert power_per_server(5000, 6250, 1001, 2) == (5501, 6751)
    totals = Totals(
        gpus=8,
        vram_gb=640.0,
        ram_gb=2048,
        storage_gb=7680.0,
        power_w=5000,
        power_sized_w=6250,
        price=Money(Decimal("200000"), "EUR"),
        currency="EUR",
        rack_units=10,
        managed_monthly_price=None,
        cluster_power_w=1001,
    )
    gpus = PartLine("gpu", "GPU-H100", "NVIDIA H100 SXM 80GB", 4, Money(Decimal("25000"), "EUR"))
    option = BuiltOption(tier=Tier.BUDGET, servers=2, parts=(gpus,), totals=totals, checks=())

    config = tco_configuration(option)

    assert (config.power_w, config.provisioned_w) == (5501, 6751)
    assert config.gpu_model == "NVIDIA H100 SXM 80GB"


def _shown(config, years: int) -> set[str]:
    """The names shown for the French defaults as published (no override)."""
    result = tco(config, region_defaults("FR", "EUR"), years=years)
    return {assumption.name for assumption in result.assumptions}


def test_only_the_assumptions_that_entered_the_figures_are_shown():
    # A fee set by sales for the servers: the host's margin is not shown (the fee does not use
    # it); a computed fee shows the margin and the cost of capital.
    # 3 years: the 36-month discount only, 2 years the 24-month one. An H100's cloud price is
    # published in USD: the dollar rate is shown, the pound's is not; a GPU without a cloud
    # price shows no cloud figure.
    h100 = "NVIDIA H100 PCIe 80GB"
    with_fee = _shown(configuration(gpu_model=h100, managed_monthly_price=eur("9000")), 3)
    per_gpu = _shown(configuration(gpu_model=h100), 3)
    two_years = _shown(configuration(gpu_model=h100), 2)
    unknown = _shown(configuration(gpu_model="Unknown accelerator"), 3)

    assert "provider_margin_pct" not in with_fee
    assert "provider_cost_of_capital" in with_fee  # the floor of the fee set by sales
    assert {"provider_margin_pct", "provider_cost_of_capital"} <= per_gpu
    assert "managed_monthly_price" not in per_gpu
    assert {n for n in per_gpu if n.startswith("managed_discount_")} == {"managed_discount_36m_pct"}
    assert {n for n in two_years if n.startswith("managed_discount_")} == {
        "managed_discount_24m_pct"
    }
    assert {"cloud_price_per_gpu_hour", "usd_per_eur"} <= per_gpu
    assert "gbp_per_eur" not in per_gpu
    assert not any(name.startswith("cloud_") for name in unknown)
    assert {"electricity_price_per_kwh", "pue", "colocation_per_kw_month"} <= per_gpu
