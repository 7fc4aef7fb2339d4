"""The TCO defaults: one place, per region, each value with unit, source and label."""

from decimal import Decimal
from types import MappingProxyType

import pytest

from engine.assumptions import (
    OVERRIDE_SOURCE,
    REGIONS,
    AssumptionError,
    Assumptions,
    UnknownRegionError,
    gpu_model_key,
    known_gpu_models,
    region_defaults,
)
from engine.assumptions.facts import OFFERS
from engine.i18n import Message
from engine.money import Money

CORE_NAMES = (
    "electricity_price_per_kwh",
    "pue",
    "staff_cost_per_year",
    "staff_fte_per_server",
    "depreciation_years",
    "residual_value_pct",
    "discount_rate",
    "colocation_per_kw_month",
    "support_pct_per_year",
    "idle_power_fraction",
    "installation_cost",
    "grid_carbon_kg_per_kwh",
    "cloud_reserved_discount_pct",
    "insurance_pct_per_year",
    "spares_pct_per_year",
    "network_per_server_month",
    "software_per_gpu_year",
    "managed_staff_fte_per_server",
    "usd_per_eur",
    "gbp_per_eur",
)
MONEY_NAMES = (
    "electricity_price_per_kwh",
    "staff_cost_per_year",
    "colocation_per_kw_month",
    "installation_cost",
    "network_per_server_month",
    "software_per_gpu_year",
    "cloud_price_per_gpu_hour",
    "managed_monthly_price",
)


@pytest.mark.parametrize("region", REGIONS)
@pytest.mark.parametrize("currency", ["EUR", "USD"])
def test_every_region_has_every_core_assumption_with_unit_source_and_label(region, currency):
    assumptions = region_defaults(region, currency, gpu_model="NVIDIA H100 SXM5 80GB")

    assert set(CORE_NAMES) <= set(assumptions)
    assert "cloud_price_per_gpu_hour" in assumptions
    for assumption in assumptions.values():
        assert isinstance(assumption.value, Decimal)
        assert assumption.unit
        assert assumption.source
        assert assumption.source != OVERRIDE_SOURCE
        assert not assumption.overridden
        assert isinstance(assumption.label, Message)
        assert assumption.label.render()
    for name in MONEY_NAMES:
        if name in assumptions:
            assert assumptions[name].unit.startswith(currency + "/")


def test_unknown_region_names_the_allowed_codes():
    with pytest.raises(UnknownRegionError) as caught:
        region_defaults("ES", "EUR")

    assert caught.value.field == "region"
    assert "DE, FR, GB, US" in str(caught.value)
    assert caught.value.message.params["allowed"] == "DE, FR, GB, US"


def test_unsupported_currency_is_refused():
    with pytest.raises(AssumptionError) as caught:
        region_defaults("FR", "GBP")

    assert caught.value.field == "currency"


def test_region_codes_are_case_insensitive():
    assert region_defaults("fr", "EUR").region == "FR"


def test_cited_defaults_hold_the_published_figures():
    fr = region_defaults("FR", "EUR")
    us = region_defaults("US", "USD")
    de = region_defaults("DE", "EUR")
    gb = region_defaults("GB", "EUR")

    assert fr.value("electricity_price_per_kwh") == Decimal("0.172")  # SDES, H1 2024
    assert fr.value("pue") == Decimal("1.56")  # Uptime Institute 2024
    assert fr.value("grid_carbon_kg_per_kwh") == Decimal("0.032")  # RTE 2023
    assert de.value("grid_carbon_kg_per_kwh") == Decimal("0.380")  # UBA 2023
    assert gb.value("grid_carbon_kg_per_kwh") == Decimal("0.20705")  # DESNZ 2024
    # EIA: 0.86 lb/kWh x 0.45359237 kg/lb
    assert us.value("grid_carbon_kg_per_kwh") == Decimal("0.3900894382")
    assert us.value("electricity_price_per_kwh") == Decimal("0.13")
    assert us.value("colocation_per_kw_month") == Decimal("184.06")  # CBRE H2 2024
    # 96,800 / 0.705 = 137,304.9645... -> 137,304.96
    assert us.value("staff_cost_per_year") == Decimal("137304.96")
    # 51,000 / 0.678 = 75,221.2389... -> 75,221.24
    assert fr.value("staff_cost_per_year") == Decimal("75221.24")
    # 5,331 x 12 = 63,972; x 1.27 = 81,244.44
    assert de.value("staff_cost_per_year") == Decimal("81244.44")
    assert us.value("usd_per_eur") == Decimal("1.0824")
    assert us.value("cloud_reserved_discount_pct") == Decimal("0.30")


def test_money_published_in_another_currency_is_converted_at_the_stated_rate():
    fr_usd = region_defaults("FR", "USD")
    us_eur = region_defaults("US", "EUR")
    gb_eur = region_defaults("GB", "EUR")
    gb_usd = region_defaults("GB", "USD")

    # 0.172 EUR x 1.0824 USD/EUR = 0.1861728 USD
    assert fr_usd.value("electricity_price_per_kwh") == Decimal("0.1861728")
    conversion = fr_usd["electricity_price_per_kwh"].conversion
    assert conversion is not None
    assert conversion.render() == "published in EUR, converted at 1.0824 USD/EUR"
    # 0.13 USD / 1.0824 = 0.12010347...
    assert us_eur.value("electricity_price_per_kwh").quantize(Decimal("0.00000001")) == Decimal(
        "0.12010347"
    )
    # 20.77 p = 0.2077 GBP / 0.84662 GBP/EUR = 0.24532848... EUR
    assert gb_eur.value("electricity_price_per_kwh").quantize(Decimal("0.00000001")) == Decimal(
        "0.24532848"
    )
    # GBP -> USD goes through the euro: 0.2077 / 0.84662 x 1.0824 = 0.26554355...
    assert gb_usd.value("electricity_price_per_kwh").quantize(Decimal("0.00000001")) == Decimal(
        "0.26554355"
    )
    conversion = gb_usd["electricity_price_per_kwh"].conversion
    assert conversion is not None
    assert conversion.render() == (
        "published in GBP, converted at 0.84662 GBP/EUR and 1.0824 USD/EUR"
    )
    assert us_eur["electricity_price_per_kwh"].conversion == Message(
        "published in %(published)s, converted at %(rate)s %(published)s/EUR",
        MappingProxyType({"published": "USD", "rate": Decimal("1.0824")}),
    )
    assert gb_eur["pue"].conversion is None  # not money


def test_overriding_an_exchange_rate_reconverts_the_converted_defaults():
    fr_usd = region_defaults("FR", "USD").with_overrides(usd_per_eur="1.2")

    # 0.172 x 1.2 = 0.2064
    assert fr_usd.value("electricity_price_per_kwh") == Decimal("0.2064")
    assert fr_usd["usd_per_eur"].overridden
    assert not fr_usd["electricity_price_per_kwh"].overridden


def test_with_overrides_records_the_override_and_leaves_the_original_alone():
    defaults = region_defaults("FR", "EUR")

    changed = defaults.with_overrides(pue=Decimal("1.2"), staff_fte_per_server=1)

    assert changed["pue"].value == Decimal("1.2")
    assert changed["pue"].source == OVERRIDE_SOURCE
    assert changed["pue"].overridden
    assert changed["staff_fte_per_server"].value == Decimal(1)
    assert changed["electricity_price_per_kwh"] == defaults["electricity_price_per_kwh"]
    assert dict(changed.overrides) == {"pue": Decimal("1.2"), "staff_fte_per_server": Decimal(1)}
    assert defaults.value("pue") == Decimal("1.56")
    assert dict(defaults.overrides) == {}


def test_overrides_accumulate_and_accept_money_in_the_same_currency():
    assumptions = (
        region_defaults("US", "USD")
        .with_overrides(pue="1.3")
        .with_overrides(electricity_price_per_kwh=Money(Decimal("0.08"), "USD"))
    )

    assert dict(assumptions.overrides) == {
        "pue": Decimal("1.3"),
        "electricity_price_per_kwh": Decimal("0.08"),
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("pue", 1.3),  # float: money and ratios stay Decimal
        ("pue", Decimal("0.9")),  # below 1
        ("support_pct_per_year", 10),  # shares are fractions, 10 is not 10%
        ("electricity_price_per_kwh", Decimal("-0.1")),
        ("electricity_price_per_kwh", Money(Decimal("0.1"), "EUR")),  # wrong currency
        ("managed_power_included", Decimal("0.5")),
        ("no_such_thing", 1),
        ("discount_rate", "eight percent"),
        ("pue", True),
    ],
)
def test_invalid_overrides_are_refused_with_the_field_named(name, value):
    with pytest.raises(AssumptionError) as caught:
        region_defaults("US", "USD").with_overrides(**{name: value})

    assert caught.value.field == name


def test_per_model_defaults_follow_the_gpu_and_keep_overrides():
    fr = region_defaults("FR", "EUR")
    assert "cloud_price_per_gpu_hour" not in fr

    h100 = fr.for_gpu_model("NVIDIA H100 SXM5 80GB")
    l4 = h100.for_gpu_model("NVIDIA L4")
    custom = h100.with_overrides(cloud_price_per_gpu_hour="2.5").for_gpu_model("NVIDIA L4")

    # Scaleway, Paris: 25.3308 EUR/h for 8 GPUs -> 3.16635 EUR per GPU-hour
    assert h100.value("cloud_price_per_gpu_hour") == Decimal("3.16635")
    assert h100.gpu_model == "H100_SXM"
    assert h100["cloud_price_per_gpu_hour"].label.params == {"gpu": "H100 SXM"}
    assert l4.value("cloud_price_per_gpu_hour") == Decimal("0.75")  # OVHcloud l4-90
    # The managed fee is the host's own computed price, never a per-model default
    assert "managed_monthly_price" not in l4
    assert custom.value("cloud_price_per_gpu_hour") == Decimal("2.5")
    assert custom["cloud_price_per_gpu_hour"].overridden


def test_regions_without_a_local_cloud_price_use_the_dated_global_one():
    us = region_defaults("US", "USD", gpu_model="H100 SXM")
    de = region_defaults("DE", "EUR", gpu_model="H100 SXM")

    assert us.value("cloud_price_per_gpu_hour") == Decimal("3.99")
    # 3.99 USD / 1.0824 = 3.68625... EUR
    assert de.value("cloud_price_per_gpu_hour").quantize(Decimal("0.00001")) == Decimal("3.68625")
    assert "runpod" in us["cloud_price_per_gpu_hour"].source.lower()
    assert "2026-11-09" in us["cloud_price_per_gpu_hour"].source


def test_a_gpu_without_a_dated_price_gets_no_default():
    assumptions = region_defaults("US", "USD", gpu_model="NVIDIA GeForce RTX 4090")

    assert assumptions.gpu_model is None
    assert "cloud_price_per_gpu_hour" not in assumptions
    assert "managed_monthly_price" not in assumptions
    assert "cloud_price_per_gpu_hour" in assumptions.with_overrides(cloud_price_per_gpu_hour=1)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("NVIDIA H100 SXM5 80GB", "H100_SXM"),
        ("h100-sxm", "H100_SXM"),
        ("NVIDIA H100 PCIe", "H100_PCIE"),
        ("NVIDIA H100 NVL", "H100_NVL"),
        ("NVIDIA H200 SXM", "H200"),
        ("NVIDIA B200 (HGX)", "B200"),
        ("NVIDIA GB200", None),
        ("NVIDIA A100 80GB SXM", "A100_SXM"),
        ("NVIDIA A100 40GB PCIe", "A100_PCIE"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA L40", None),
        ("NVIDIA L4", "L4"),
        ("AMD Instinct MI300X", "MI300X"),
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q", "RTX_PRO_6000"),
        ("", None),
        (None, None),
    ],
)
def test_gpu_model_key(name, key):
    assert gpu_model_key(name) == key


def test_known_models_cover_the_main_datacenter_gpus():
    assert {"H100_SXM", "H200", "A100_SXM", "L40S", "L4", "B200", "MI300X"} <= set(
        known_gpu_models()
    )


def test_assumptions_is_a_read_only_mapping_in_a_stable_order():
    assumptions = region_defaults("DE", "EUR")

    assert isinstance(assumptions, Assumptions)
    assert list(assumptions)[:2] == ["electricity_price_per_kwh", "pue"]
    assert len(assumptions) == len(list(assumptions.values()))
    with pytest.raises(KeyError):
        assumptions["cloud_price_per_gpu_hour"]
    assert assumptions.money("staff_cost_per_year") == Money(Decimal("81244.44"), "EUR")


def test_staff_edited_facts_replace_the_builtin_default_with_their_source():
    from engine.assumptions import Fact, builtin_facts

    edited = {"pue": Fact(Decimal("1.35"), None, "Our Paris site, measured 2026")}
    fr = region_defaults("FR", "EUR", edited=edited)
    assert fr["pue"].value == Decimal("1.35")
    assert fr["pue"].source == "Our Paris site, measured 2026"
    assert fr["pue"].overridden is False
    # Everything else still comes from the built-in facts, and survives a per-quote override.
    builtin = builtin_facts("FR")
    assert fr["electricity_price_per_kwh"].value == builtin["electricity_price_per_kwh"].value
    overridden = fr.with_overrides(electricity_price_per_kwh=Decimal("0.2"))
    assert overridden["pue"].value == Decimal("1.35")


def test_staff_edited_money_fact_is_converted_to_the_quote_currency():
    from engine.assumptions import Fact

    edited = {"staff_cost_per_year": Fact(Decimal("100000"), "EUR", "HR 2026")}
    usd = region_defaults("FR", "USD", edited=edited)
    assert usd["staff_cost_per_year"].value == Decimal("100000") * usd.value("usd_per_eur")
    assert usd["staff_cost_per_year"].source.startswith("HR 2026")


def test_no_source_shown_to_a_customer_is_a_placeholder_or_a_repository_path():
    # Public sources (a URL and a date for a price), never "confirm with the host" nor a path
    # inside the project.
    for region in REGIONS:
        for assumption in region_defaults(region, "EUR", gpu_model="H100 PCIe").values():
            source = assumption.source
            assert "placeholder" not in source, (region, assumption.name)
            assert "confirm with" not in source, (region, assumption.name)
            assert "shared/" not in source, (region, assumption.name)
            assert ".csv)" not in source or "github.com" in source, (region, assumption.name)
            if source.startswith(OFFERS):
                assert "https://" in source, (region, assumption.name)
                assert "seen 20" in source, (region, assumption.name)
    per_model = region_defaults("FR", "EUR", gpu_model="NVIDIA A100 80GB PCIe").values()
    labels = [assumption.label.render() for assumption in per_model]
    assert any("(A100 PCIe)" in label for label in labels)
    assert not any("_" in label for label in labels)
