"""VAT by customer country: the rates table, VAT-number formats and the reverse-charge rule."""

from decimal import Decimal

import pytest

from quotes.engine.vat import (
    EU_MEMBER_STATES,
    EU_STANDARD_VAT_RATES_PCT,
    SELLER_COUNTRY,
    VAT_NUMBER_FORMATS,
    VAT_NUMBER_PREFIXES,
    VatError,
    VatRegime,
    normalize_vat_number,
    standard_rate_pct,
    vat_number_looks_valid,
    vat_treatment,
)

EU_27 = {
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
    "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
}  # fmt: skip

REVERSE_CHARGE_SERVICES = (
    "Autoliquidation / Reverse charge: the VAT is due by the customer (article 196 of "
    "Council Directive 2006/112/EC)."
)


def treatment(country, *, business=True, number=None, goods=False, services=True):
    return vat_treatment(
        customer_country=country,
        is_business=business,
        vat_number=number,
        supplies_goods=goods,
        supplies_services=services,
    )


# --- The data -----------------------------------------------------------------------------------


def test_the_table_covers_exactly_the_27_member_states_and_each_has_a_number_format():
    assert EU_MEMBER_STATES == EU_27
    assert set(VAT_NUMBER_FORMATS) == EU_27
    assert SELLER_COUNTRY == "FR"


@pytest.mark.parametrize(
    ("country", "rate"),
    [
        ("FR", "20"),
        ("DE", "19"),
        ("ES", "21"),
        ("HU", "27"),  # the highest
        ("LU", "17"),  # the lowest
        ("FI", "25.5"),  # since 1 September 2024
        ("SK", "23"),  # since 1 January 2025
        ("EE", "24"),  # since 1 July 2025
        ("RO", "21"),  # since 1 August 2025
        ("GR", "24"),  # ISO code, not the VAT prefix EL
        ("US", "0"),  # outside the EU: no EU VAT
        ("GB", "0"),
        ("CH", "0"),
    ],
)
def test_standard_rates(country, rate):
    assert standard_rate_pct(country) == Decimal(rate)


def test_every_rate_is_a_legal_standard_rate():
    # Article 97 of the VAT Directive: a standard rate is at least 15 percent.
    assert all(Decimal(15) <= rate <= Decimal(27) for rate in EU_STANDARD_VAT_RATES_PCT.values())


# --- VAT numbers --------------------------------------------------------------------------------

# One example per format line of the VIES structure table, and a near miss for each.
VALID_NUMBERS = [
    ("AT", "ATU12345678"),
    ("BE", "BE0123456789"),
    ("BE", "BE1234567890"),
    ("BG", "BG123456789"),
    ("BG", "BG1234567890"),
    ("CY", "CY12345678X"),
    ("CZ", "CZ12345678"),
    ("CZ", "CZ123456789"),
    ("CZ", "CZ1234567890"),
    ("DE", "DE123456789"),
    ("DK", "DK12 34 56 78"),
    ("EE", "EE123456789"),
    ("ES", "ESX1234567X"),
    ("ES", "ESA12345678"),
    ("ES", "ES12345678Z"),
    ("FI", "FI12345678"),
    ("FR", "FRXX123456789"),
    ("FR", "FR12123456789"),
    ("GR", "EL123456789"),
    ("HR", "HR12345678901"),
    ("HU", "HU12345678"),
    ("IE", "IE1S23456L"),
    ("IE", "IE1+23456L"),
    ("IE", "IE1234567WI"),
    ("IT", "IT12345678901"),
    ("LT", "LT123456789"),
    ("LT", "LT123456789012"),
    ("LU", "LU12345678"),
    ("LV", "LV12345678901"),
    ("MT", "MT12345678"),
    ("NL", "NL123456789B01"),
    ("PL", "PL1234567890"),
    ("PT", "PT123456789"),
    ("RO", "RO12"),
    ("RO", "RO1234567890"),
    ("SE", "SE123456789001"),
    ("SI", "SI12345678"),
    ("SK", "SK1234567890"),
]
INVALID_NUMBERS = [
    ("AT", "AT12345678"),  # the U is missing
    ("BE", "BE2123456789"),  # starts with 0 or 1
    ("BG", "BG12345678"),
    ("CY", "CY123456789"),  # ends with a letter
    ("CZ", "CZ1234567"),
    ("DE", "DE12345678"),  # one digit short
    ("DE", "DE1234567890"),  # one digit too many
    ("DE", "123456789"),  # no prefix
    ("DE", "FR12123456789"),  # another country's number
    ("DK", "DK1234567"),
    ("ES", "ES123456789"),  # both ends digits
    ("FI", "FI1234567"),
    ("GR", "GR123456789"),  # Greece's VAT prefix is EL
    ("HR", "HR1234567890"),
    ("IE", "IE12345678"),
    ("IT", "IT1234567890"),
    ("LT", "LT1234567890"),
    ("NL", "NL123456789A01"),  # the tenth character is B
    ("PL", "PL123456789"),
    ("PT", "PT12345678"),
    ("RO", "RO1"),
    ("RO", "RO12345678901"),
    ("SE", "SE12345678901"),
    ("SK", "SK123456789"),
    ("US", "US123456789"),  # no EU format outside the EU
]


@pytest.mark.parametrize(("country", "number"), VALID_NUMBERS)
def test_numbers_in_the_official_format_look_valid(country, number):
    assert vat_number_looks_valid(number, country)


@pytest.mark.parametrize(("country", "number"), INVALID_NUMBERS)
def test_numbers_out_of_format_do_not(country, number):
    assert not vat_number_looks_valid(number, country)


def test_a_number_is_read_without_separators_and_in_any_case():
    assert normalize_vat_number(" de 123.456-789 ") == "DE123456789"
    assert vat_number_looks_valid("nl 1234.56789.b01", "NL")
    assert not vat_number_looks_valid(None, "DE")
    assert not vat_number_looks_valid("", "DE")


def test_every_member_state_but_greece_uses_its_iso_code_as_prefix():
    assert {c for c, prefix in VAT_NUMBER_PREFIXES.items() if c != prefix} == {"GR"}
    assert VAT_NUMBER_PREFIXES["GR"] == "EL"


# --- The rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("business", "number"), [(True, "FR12123456789"), (True, None), (False, None)]
)
def test_french_customers_pay_french_vat_without_a_mention(business, number):
    result = treatment("FR", business=business, number=number)
    assert (result.regime, result.rate_pct, result.note) == (VatRegime.DOMESTIC, Decimal(20), None)


def test_an_eu_business_with_a_valid_looking_number_is_reverse_charged():
    result = treatment("DE", number="DE123456789")
    assert result.regime == VatRegime.REVERSE_CHARGE
    assert result.rate_pct == Decimal(0)
    assert result.note.render() == REVERSE_CHARGE_SERVICES


def test_greek_businesses_give_an_el_number():
    assert treatment("GR", number="EL 123 456 789").regime == VatRegime.REVERSE_CHARGE
    assert treatment("GR", number="GR123456789").regime == VatRegime.EU_FRENCH_VAT


@pytest.mark.parametrize("number", ["DE12345678", "DE12345678X", None, "", "FR12123456789"])
def test_an_eu_business_without_a_valid_looking_number_pays_french_vat(number):
    result = treatment("DE", number=number)
    assert (result.regime, result.rate_pct) == (VatRegime.EU_FRENCH_VAT, Decimal(20))
    assert result.note.render() == (
        "French VAT is charged: the reverse charge needs the customer's VAT number of DE "
        "(prefix DE followed by the national number)."
    )


@pytest.mark.parametrize("number", [None, "ESX1234567X"])
def test_eu_consumers_pay_french_vat_not_their_countrys(number):
    # Spain's rate is 21; the module's simplification charges the seller's 20 (see vat.py).
    result = treatment("ES", business=False, number=number)
    assert (result.regime, result.rate_pct, result.note) == (
        VatRegime.EU_FRENCH_VAT,
        Decimal(20),
        None,
    )


@pytest.mark.parametrize("country", ["GB", "US", "CH", "NO", "JP"])
@pytest.mark.parametrize("business", [True, False])
def test_customers_outside_the_eu_pay_no_vat_and_the_quote_says_export(country, business):
    result = treatment(country, business=business, number="GB123456789")
    assert (result.regime, result.rate_pct) == (VatRegime.EXPORT, Decimal(0))
    assert result.note.render() == (
        "Export: customer established outside the European Union, services outside the scope "
        "of EU VAT. No VAT charged."
    )


@pytest.mark.parametrize(
    ("goods", "services", "cited"),
    [
        (False, True, ("article 196",)),
        (True, False, ("article 138",)),
        (True, True, ("article 196", "article 138")),
        (False, False, ("article 196",)),  # an empty quote reads as services
    ],
)
def test_the_reverse_charge_mention_cites_the_article_for_what_is_sold(goods, services, cited):
    note = treatment("IT", number="IT12345678901", goods=goods, services=services).note.render()
    assert all(article in note for article in cited)
    assert "2006/112/EC" in note


def test_exported_goods_cite_the_export_exemption():
    note = treatment("US", goods=True, services=False).note.render()
    assert "article 146" in note
    assert "No VAT charged." in note


@pytest.mark.parametrize(
    ("country", "expected"),
    [
        ("de", "two-letter ISO 3166-1 code"),
        ("DEU", "two-letter ISO 3166-1 code"),
        ("", "two-letter ISO 3166-1 code"),
        ("EL", "EL is not an ISO 3166-1 country code; use GR."),
        ("UK", "UK is not an ISO 3166-1 country code; use GB."),
    ],
)
def test_a_malformed_country_is_refused_naming_the_field(country, expected):
    with pytest.raises(VatError) as refused:
        treatment(country)
    assert refused.value.field == "customer_country"
    assert expected in refused.value.message.render()
