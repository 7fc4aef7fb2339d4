"""VAT by customer country: the rates table, VAT numbers (check digits: python-stdnum) and the
reverse-charge rule."""

from decimal import Decimal

import pytest

from engine.commerce.vat import (
    EU_MEMBER_STATES,
    EU_STANDARD_VAT_RATES_PCT,
    SELLER_COUNTRY,
    VAT_NUMBER_PREFIXES,
    VatError,
    VatRegime,
    normalize_vat_number,
    standard_rate_pct,
    vat_number_is_valid,
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


def test_the_table_covers_exactly_the_27_member_states_and_each_has_a_vat_prefix():
    assert EU_MEMBER_STATES == EU_27
    assert set(VAT_NUMBER_PREFIXES) == EU_27
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

# Real numbers with right check digits: the examples of python-stdnum's own documentation (one
# module per member state, e.g. ``stdnum.de.vat``), several formats where a state has them.
VALID_NUMBERS = [
    ("AT", "ATU13585627"),
    ("BE", "BE0403019261"),
    ("BG", "BG175074752"),
    ("CY", "CY10259033P"),
    ("CZ", "CZ25123891"),
    ("CZ", "CZ7103192745"),
    ("DE", "DE136695976"),
    ("DK", "DK13 58 56 28"),
    ("EE", "EE100931558"),
    ("ES", "ESB58378431"),
    ("ES", "ESA13585625"),
    ("FI", "FI20774740"),
    ("FR", "FR40303265045"),
    ("FR", "FR23334175221"),
    ("GR", "EL094259216"),
    ("HR", "HR33392005961"),
    ("HU", "HU12892312"),
    ("IE", "IE6433435F"),
    ("IE", "IE6433435OA"),
    ("IT", "IT00743110157"),
    ("LT", "LT119511515"),
    ("LT", "LT100001919017"),
    ("LU", "LU15027442"),
    ("LV", "LV40003521600"),
    ("MT", "MT11679112"),
    ("NL", "NL004495445B01"),
    ("PL", "PL8567346215"),
    ("PT", "PT501964843"),
    ("RO", "RO18547290"),
    ("SE", "SE123456789701"),
    ("SI", "SI50223054"),
    ("SK", "SK2022749619"),
]
# The same numbers with one check digit (or check letter) changed: the right format, the wrong
# arithmetic. The regex alone accepted every one of them.
WRONG_CHECK_DIGITS = [
    ("AT", "ATU13585620"),
    ("BE", "BE0403019260"),
    ("BG", "BG175074750"),
    ("CY", "CY10259033X"),
    ("CZ", "CZ25123890"),
    ("DE", "DE136695978"),  # stdnum.de.vat's own example of a bad check digit
    ("DE", "DE123456789"),  # the placeholder the old tests took for valid
    ("DK", "DK13585620"),
    ("EE", "EE100931550"),
    ("ES", "ESB58378430"),
    ("FI", "FI20774741"),
    ("FR", "FR40303265040"),
    ("FR", "FR12123456789"),
    ("GR", "EL094259210"),
    ("HR", "HR33392005960"),
    ("HU", "HU12892310"),
    ("IE", "IE6433435E"),
    ("IT", "IT00743110150"),
    ("LT", "LT119511510"),
    ("LU", "LU15027440"),
    ("LV", "LV40003521601"),
    ("MT", "MT11679110"),
    ("NL", "NL004495446B01"),
    ("PL", "PL8567346210"),
    ("PT", "PT501964840"),
    ("RO", "RO18547291"),
    ("SE", "SE123456789801"),
    ("SI", "SI50223050"),
    ("SK", "SK2022749610"),
]
INVALID_NUMBERS = [
    ("AT", "AT13585627"),  # the U is missing
    ("BE", "BE2403019261"),  # starts with 0 or 1
    ("CY", "CY102590331"),  # ends with a letter
    ("DE", "DE13669597"),  # one digit short
    ("DE", "DE1366959760"),  # one digit too many
    ("DE", "136695976"),  # no prefix
    ("DE", "FR40303265045"),  # another country's number, valid there
    ("ES", "ES123456789"),  # both ends digits
    ("GR", "GR094259216"),  # Greece's VAT prefix is EL
    ("NL", "NL004495445A01"),  # the tenth character is B
    ("US", "US123456789"),  # no EU number outside the EU
]


@pytest.mark.parametrize(("country", "number"), VALID_NUMBERS)
def test_numbers_with_right_check_digits_are_valid(country, number):
    assert vat_number_is_valid(number, country)


@pytest.mark.parametrize(("country", "number"), WRONG_CHECK_DIGITS)
def test_numbers_with_a_wrong_check_digit_are_not(country, number):
    assert not vat_number_is_valid(number, country)


@pytest.mark.parametrize(("country", "number"), INVALID_NUMBERS)
def test_numbers_out_of_format_are_not(country, number):
    assert not vat_number_is_valid(number, country)


def test_every_member_state_has_a_valid_and_a_wrong_example():
    assert {country for country, _number in VALID_NUMBERS} == EU_27
    assert {country for country, _number in WRONG_CHECK_DIGITS} == EU_27


def test_a_number_is_read_without_separators_and_in_any_case():
    assert normalize_vat_number(" de 136.695-976 ") == "DE136695976"
    assert vat_number_is_valid("nl 0044.95445.b01", "NL")
    assert not vat_number_is_valid(None, "DE")
    assert not vat_number_is_valid("", "DE")


def test_every_member_state_but_greece_uses_its_iso_code_as_prefix():
    assert {c for c, prefix in VAT_NUMBER_PREFIXES.items() if c != prefix} == {"GR"}
    assert VAT_NUMBER_PREFIXES["GR"] == "EL"


# --- The rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("business", "number"), [(True, "FR40303265045"), (True, None), (False, None)]
)
def test_french_customers_pay_french_vat_without_a_mention(business, number):
    result = treatment("FR", business=business, number=number)
    assert (result.regime, result.rate_pct, result.note) == (VatRegime.DOMESTIC, Decimal(20), None)


def test_an_eu_business_with_a_valid_number_is_reverse_charged():
    result = treatment("DE", number="DE136695976")
    assert result.regime == VatRegime.REVERSE_CHARGE
    assert result.rate_pct == Decimal(0)
    assert result.note.render() == REVERSE_CHARGE_SERVICES


def test_greek_businesses_give_an_el_number():
    assert treatment("GR", number="EL 094 259 216").regime == VatRegime.REVERSE_CHARGE
    assert treatment("GR", number="GR094259216").regime == VatRegime.EU_FRENCH_VAT


@pytest.mark.parametrize(
    "number", ["DE13669597", "DE12345678X", "DE136695978", None, "", "FR40303265045"]
)
def test_an_eu_business_without_a_valid_number_pays_french_vat(number):
    result = treatment("DE", number=number)
    assert (result.regime, result.rate_pct) == (VatRegime.EU_FRENCH_VAT, Decimal(20))
    assert result.note.render() == (
        "French VAT is charged: the reverse charge needs the customer's VAT number of DE "
        "(prefix DE followed by the national number)."
    )


@pytest.mark.parametrize("number", [None, "ESA13585625"])
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
    note = treatment("IT", number="IT00743110157", goods=goods, services=services).note.render()
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
