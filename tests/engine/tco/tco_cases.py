"""TCO test cases: the French defaults with overrides (``assumptions``), one 8-GPU server
(``configuration``), and ``tco(...)`` to price them; shared by the TCO tests.
"""

from decimal import Decimal

from engine.assumptions import region_defaults
from engine.money import Money
from engine.tco import TcoConfiguration, TcoInput, compute_tco

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
    "host_electricity_price_per_kwh": 0,
    "host_space_per_kw_month": 0,
    "host_support_pct_per_year": 0,
    "host_staff_fte_per_server": 0,
    "host_network_per_server_month": 0,
    "host_residual_value_pct": 0,
    "host_fleet_occupancy": 1,
    "host_setup_cost_per_server": 0,
    "host_setup_cost_per_gpu": 0,
    "managed_discount_12m_pct": 0,
    "managed_discount_24m_pct": 0,
    "managed_discount_36m_pct": 0,
    "managed_power_included": 1,
    "discount_rate": 0,
    "cloud_reserved_discount_pct": 0,
    "provider_margin_pct": 0,
    "provider_cost_of_capital": 0,
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


def tco(
    config,
    with_assumptions,
    *,
    years=1,
    utilization="1",
    sensitivity=False,
    always_on=False,
    service_tier=None,
):
    inp = TcoInput(
        configuration=config,
        horizon_years=years,
        utilization=Decimal(utilization),
        region="FR",
        currency="EUR",
        assumptions=with_assumptions,
        always_on=always_on,
        service_tier=service_tier,
    )
    return compute_tco(inp, with_sensitivity=sensitivity)
