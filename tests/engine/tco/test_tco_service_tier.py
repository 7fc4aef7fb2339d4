"""The managed offer's service tier in the TCO: the managed option's support line."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from types import MappingProxyType

import pytest

from engine.advice.codec import decode, encode
from engine.commerce.service_tiers import Coverage, ServiceTier
from engine.money import Money
from engine.tco import TcoInputError, job_cost, managed_offer
from engine.tco.results import TcoResult
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco


def tier(monthly: str = "450", currency: str = "EUR", **changes) -> ServiceTier:
    fields = {
        "code": "24x7",
        "names": MappingProxyType({"en": "Around the clock", "fr": "24 h sur 24"}),
        "coverage": Coverage.ALWAYS,
        "response_minutes": 30,
        "replacement_hours": 4,
        "os_driver_upkeep": True,
        "monitoring": True,
        "backups": True,
        "monthly": Money(Decimal(monthly), currency),
    }
    return ServiceTier(**{**fields, **changes})


def test_the_tier_is_the_managed_options_support_line_per_server_and_month():
    config = configuration(servers=2)
    a = assumptions(electricity_price_per_kwh="0.2", staff_cost_per_year=90000)
    without = tco(config, a, years=3)
    chosen = tco(config, a, years=3, service_tier=tier("450"))

    assert chosen.managed.by_category["support"] == eur("32400.00")  # 450 x 2 x 36
    assert chosen.managed.total.amount - without.managed.total.amount == Decimal("32400.00")
    assert chosen.on_premises == without.on_premises  # the tier is the host's offer only
    assert chosen.service_tier == tier("450")


def test_a_tier_the_fee_includes_adds_no_line():
    config = configuration()
    a = assumptions(electricity_price_per_kwh="0.2")
    free = tco(config, a, years=2, service_tier=tier("0", code="standard"))

    assert "support" not in free.managed.by_category
    assert free.managed.total == tco(config, a, years=2).managed.total


def test_a_dearer_tier_brings_the_break_even_against_managed_hosting_forward():
    config = configuration(price=eur("150000"))
    # The host's own inputs set to the buyer's: the same power price, PUE and space rent, a
    # 3-year hardware life, its fleet fully let
    a = assumptions(
        electricity_price_per_kwh="0.2",
        colocation_per_kw_month=150,
        host_electricity_price_per_kwh="0.2",
        host_pue=1,
        host_space_per_kw_month=150,
        host_hardware_life_years=3,
    )
    plain = tco(config, a, years=3)
    dearer = tco(config, a, years=3, service_tier=tier("3000"))

    # Over 3 years the host's 36-month fee applies: at zero margin and cost of capital it is the
    # 150,000 EUR paid back over the 36 months of its life plus the running costs the buyer pays
    # too, power (10.2 kW x 730 h x 0.20 EUR = 1,489.20) and space (10.2 kW x 150 = 1,530.00).
    running = Decimal("1489.20") + Decimal("1530.00")
    fee = round(Decimal(150000) / 36, 2) + running
    assert plain.managed.monthly[0] == eur(fee) == eur("7185.87")
    assert plain.on_premises.monthly[1] == eur(running)
    # Buying costs 150,000 EUR in month 1 and saves fee - running each month: the first month
    # from which buying stays cheaper is ceil(150,000 / saving).
    assert plain.break_even_month.vs_managed == math.ceil(150000 / (fee - running)) == 36
    # The tier adds 3,000 EUR to each managed month only, so the saving grows by as much.
    saving = fee + 3000 - running
    assert dearer.break_even_month.vs_managed == math.ceil(150000 / saving) == 21


def test_the_sensitivity_table_prices_the_tier_too():
    config = configuration()
    a = assumptions(electricity_price_per_kwh="0.2")
    plain = tco(config, a, years=3, sensitivity=True)
    chosen = tco(config, a, years=3, sensitivity=True, service_tier=tier("1000"))

    for before, after in zip(plain.sensitivity, chosen.sensitivity, strict=True):
        if before.parameter.value == "horizon_years":
            continue  # each row its own horizon
        managed = after.totals["managed"].amount - before.totals["managed"].amount
        assert managed == Decimal("36000.00")


def test_a_tier_priced_in_another_currency_is_refused_naming_the_field():
    with pytest.raises(TcoInputError) as refused:
        tco(configuration(), assumptions(), service_tier=tier("450", currency="USD"))
    assert refused.value.field == "service_tier"


def test_a_result_with_its_tier_is_stored_and_read_back_exactly():
    result = tco(configuration(), assumptions(electricity_price_per_kwh="0.2"), service_tier=tier())

    assert decode(TcoResult, encode(result)) == result


def test_the_managed_explanations_name_the_tier_and_its_price():
    result = tco(configuration(), assumptions(), service_tier=tier("450"))

    said = [message.render() for message in result.explanations]
    tier_line = (
        "Managed hosting with the 24x7 service tier: 450 EUR per server and month on top of the "
        "hosting fee, the managed option's support line."
    )
    assert said.count(tier_line) == 1
    assert result.managed.by_category["support"] == eur("5400.00")  # 450 x 12 months


# --- The tier itself -----------------------------------------------------------------------


def test_a_tier_says_what_the_host_does_for_the_customer():
    always = [m.render() for m in tier().included_operations()]
    office = [
        m.render()
        for m in tier(
            code="standard",
            coverage=Coverage.BUSINESS_HOURS,
            response_minutes=90,
            replacement_hours=24,
            os_driver_upkeep=False,
            backups=False,
        ).included_operations()
    ]

    assert always == [  # support, replacement, upkeep, monitoring, backups
        "24×7 (every hour of every day) support: a first answer within 30\xa0min",
        "A failed part replaced within 4\xa0h",
        "Operating system, GPU driver and CUDA or ROCm kept up to date",
        "The GPUs watched by the host, which acts on the alerts",
        "The system disks backed up every day",
    ]
    assert office == [  # support, replacement, monitoring; 90 min is not written 1 h 30 min
        "Business hours (working days) support: a first answer within 90\xa0min",
        "A failed part replaced within 24\xa0h",
        "The GPUs watched by the host, which acts on the alerts",
    ]


def test_a_tiers_name_follows_the_language_with_english_as_fallback():
    chosen = tier()
    assert chosen.name("fr") == "24 h sur 24"
    assert chosen.name("fr-be") == "24 h sur 24"
    assert chosen.name("de") == "Around the clock"
    assert chosen.name(None) == "Around the clock"


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"code": ""}, "a code and an English name"),
        ({"names": MappingProxyType({"fr": "Seulement en français"})}, "an English name"),
        ({"response_minutes": 0}, "at least 1"),
        ({"replacement_hours": 0}, "at least 1"),
        ({"monthly": Money(Decimal("-1"), "EUR")}, "cannot be negative"),
    ],
)
def test_a_tier_that_cannot_be_offered_is_refused(changes, reason):
    with pytest.raises(ValueError, match=reason):
        dataclasses.replace(tier(), **changes)


def test_a_hosted_training_run_pays_the_tier_for_each_month_it_runs():
    config = configuration(servers=2)
    a = assumptions(electricity_price_per_kwh="0.2")
    offer = managed_offer(config, a)
    plain = job_cost(1000.0, config, a, offer)  # 1,000 h: 2 months started

    supported = job_cost(1000.0, config, a, offer, tier("450"))

    assert supported.managed_months == plain.managed_months == 2
    assert supported.managed.amount - plain.managed.amount == Decimal("1800.00")  # 450 x 2 x 2
    assert supported.buy == plain.buy
