"""The managed offer's service tier in the TCO: the managed option's support line (issue 18)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from types import MappingProxyType

import pytest

from engine.advice.codec import decode, encode
from engine.commerce.service_tiers import Coverage, ServiceTier
from engine.money import Money
from engine.tco import TcoInputError, Way, job_cost, managed_offer
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


def test_a_dearer_tier_moves_the_break_even_against_managed_hosting_no_later():
    config = configuration(price=eur("150000"))
    a = assumptions(electricity_price_per_kwh="0.2", colocation_per_kw_month=150)
    plain = tco(config, a, years=5).break_even_month.vs_managed
    dearer = tco(config, a, years=5, service_tier=tier("3000")).break_even_month.vs_managed

    assert dearer is not None
    assert plain is None or dearer <= plain


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
    assert any("24x7 service tier: 450 EUR per server and month" in line for line in said)
    assert Way.MANAGED in result.options


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

    assert always[0].startswith("24×7")
    assert "within 30 min" in always[0]
    assert "within 4 h" in always[1]
    assert len(always) == 5  # support, replacement, upkeep, monitoring, backups
    assert office[0].startswith("Business hours")
    assert "within 1 h 30 min" not in office[0]
    assert "within 90 min" in office[0]
    assert len(office) == 3  # support, replacement, monitoring


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
