"""Conversions with dated euro reference rates (engine.commerce.exchange): EUR -> X, X -> EUR, X ->
Y through the euro, exact until rounded; the rates are illustrative."""

import datetime as dt
from decimal import Decimal

import pytest

from engine.commerce.exchange import (
    DatedRate,
    MissingRateError,
    convert,
    eur_to,
    inverse_published,
    rate_between,
    rate_rounded,
    rates_oldest_date,
    to_eur,
)
from engine.money import Money

DAY = dt.date(2026, 12, 4)
USD = DatedRate("USD", Decimal("1.0853"), DAY, "ECB euro reference rate of 2026-12-04")
GBP = DatedRate("GBP", Decimal("0.84215"), dt.date(2026, 12, 3), "ECB euro reference rate")
RATES = {"USD": USD, "GBP": GBP}


def test_eur_to_multiplies_by_the_rate():
    assert eur_to(Money(Decimal("1000.00"), "EUR"), USD) == Money(Decimal("1085.300000"), "USD")


def test_to_eur_divides_by_the_rate():
    assert to_eur(Money(Decimal("1085.30"), "USD"), USD) == Money(Decimal("1000"), "EUR")


def test_a_cross_rate_goes_through_the_euro():
    assert rate_between("USD", "GBP", RATES) == Decimal("0.84215") / Decimal("1.0853")
    assert convert(Money(Decimal("100"), "USD"), "GBP", RATES).rounded() == Money(
        Decimal("77.60"), "GBP"
    )


def test_the_same_currency_is_not_converted():
    amount = Money(Decimal("12.34"), "USD")
    assert convert(amount, "USD", {}) is amount
    assert rate_between("EUR", "EUR", {}) == 1


def test_a_quote_rate_is_rounded_to_six_places_half_up():
    assert rate_rounded(rate_between("USD", "EUR", RATES)) == Decimal("0.921404")
    assert rate_rounded(rate_between("EUR", "USD", RATES)) == Decimal("1.085300")


def test_a_missing_rate_is_named():
    with pytest.raises(MissingRateError, match="CHF"):
        convert(Money(Decimal(1), "EUR"), "CHF", RATES)


def test_the_wrong_currency_is_refused():
    with pytest.raises(ValueError, match="expected an amount in EUR"):
        eur_to(Money(Decimal(1), "USD"), USD)
    with pytest.raises(ValueError, match="expected an amount in USD"):
        to_eur(Money(Decimal(1), "GBP"), USD)


def test_a_rate_must_be_a_positive_decimal():
    with pytest.raises(ValueError, match="above zero"):
        DatedRate("USD", Decimal(0), DAY, "")


def test_a_conversion_is_as_of_its_oldest_rate():
    assert rates_oldest_date(RATES, "USD", "GBP") == dt.date(2026, 12, 3)
    assert rates_oldest_date(RATES, "EUR") is None


# The quote currencies' rates (USD about 1): 6 stored places keep 5 significant digits of the
# inverse up to rates of about 10.
@pytest.mark.parametrize("published", ["1.0853", "0.84215", "1.5036", "0.9387", "7.4612"])
def test_a_stored_inverse_gives_back_the_published_rate(published):
    stored = rate_rounded(1 / Decimal(published))

    assert inverse_published(stored) == Decimal(published)
