"""Quote pricing: worked examples checked to the cent by hand, the VAT cases, validation, and the
properties every quote keeps (figures add up, nothing negative, more discount never costs more)."""

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.commerce.pricing import (
    LineKind,
    PricingError,
    QuoteLine,
    Recurrence,
    effective_discount_pct,
    price_quote,
)
from engine.commerce.vat import VatRegime
from engine.money import Money, round_money

PART, SERVICE = LineKind.PART, LineKind.SERVICE
ONE_OFF, MONTHLY = Recurrence.ONE_OFF, Recurrence.MONTHLY


def money(amount, currency="EUR"):
    return Money(Decimal(amount), currency)


def line(unit_price, quantity="1", discount="0", *, kind=PART, recurrence=ONE_OFF, **more):
    return QuoteLine(
        kind=kind,
        description=more.pop("description", "GPU server"),
        quantity=Decimal(quantity),
        unit_price=unit_price if isinstance(unit_price, Money) else money(unit_price),
        discount_pct=Decimal(discount),
        recurrence=recurrence,
        **more,
    )


def quote(lines, **options):
    arguments: dict[str, Any] = {
        "currency": "EUR",
        "quote_discount_pct": Decimal(0),
        "customer_country": "FR",
        "vat_number": None,
        "is_business": True,
        "contract_months": 0,
    }
    arguments.update(options)
    return price_quote(lines, **arguments)


def figures_of(amounts):
    """gross, line discounts, lines net, quote discount, net, VAT, total."""
    return (
        amounts.gross,
        amounts.line_discounts,
        amounts.lines_net,
        amounts.quote_discount,
        amounts.net,
        amounts.vat,
        amounts.total,
    )


def figures(amounts):
    """The same, as strings (so that the exponent, cents, is compared too)."""
    return tuple(str(m.amount) for m in figures_of(amounts))


# --- Worked examples ------------------------------------------------------------------------------


def test_line_discount_then_quote_discount_then_french_vat():
    # 3 x 1,234.565 = 3,703.695            -> gross 3,703.70 (half up)
    # 3,703.695 x (1 - 0.075) = 3,425.917875 -> line net 3,425.92; line discount 277.78
    # quote discount 5 % of 3,425.92 = 171.296 -> 171.30
    # net 3,425.92 - 171.30 = 3,254.62
    # VAT 20 % of 3,254.62 = 650.924      -> 650.92
    # total 3,254.62 + 650.92 = 3,905.54
    # effective discount 1 - 3,254.62 / 3,703.70 = 12.1251..% -> 12.13 (rounded up)
    totals = quote([line("1234.565", "3", "7.5")], quote_discount_pct=Decimal(5))

    (priced,) = totals.lines
    assert (priced.gross, priced.discount, priced.net) == (
        money("3703.70"),
        money("277.78"),
        money("3425.92"),
    )
    assert figures(totals.one_off) == (
        "3703.70",
        "277.78",
        "3425.92",
        "171.30",
        "3254.62",
        "650.92",
        "3905.54",
    )
    assert totals.vat_rate_pct == Decimal(20)
    assert totals.vat_regime == VatRegime.DOMESTIC
    assert totals.vat_note is None
    assert totals.effective_discount_pct == Decimal("12.13")
    # No monthly lines: the contract is the one-off part, the monthly part is all zeros.
    assert totals.contract == totals.first_invoice == totals.one_off
    assert set(figures(totals.monthly)) == {"0.00"}


def test_managed_hosting_one_off_and_monthly_totals():
    # One-off
    #   2 x 48,250.00 at 3 %: gross 96,500.00, net 96,500.00 x 0.97 = 93,605.00, discount 2,895.00
    #   1 x 1,490.00 installation:                                        1,490.00
    #   lines net 95,095.00; quote discount 2.5 % = 2,377.375 -> 2,377.38; net 92,717.62
    #   VAT 20 % = 18,543.524 -> 18,543.52; total 111,261.14
    # Monthly
    #   2 x 1,899.99 at 7.25 %: gross 3,799.98, net 3,799.98 x 0.9275 = 3,524.48145 -> 3,524.48,
    #                           discount 275.50
    #   1 x 149.90 backup:                                                 149.90
    #   lines net 3,674.38; quote discount 2.5 % = 91.8595 -> 91.86; net 3,582.52
    #   VAT 20 % = 716.504 -> 716.50; total 4,299.02
    # First invoice = one-off + one month; contract = one-off + 24 x monthly
    #   gross 97,990.00 + 24 x 3,949.88 = 192,787.12; net 92,717.62 + 24 x 3,582.52 = 178,698.10
    #   VAT 18,543.52 + 24 x 716.50 = 35,739.52; total 111,261.14 + 24 x 4,299.02 = 214,437.62
    # Effective discount 1 - 178,698.10 / 192,787.12 = 7.3080..% -> 7.31
    lines = [
        line("48250.00", "2", "3"),
        line("1490.00", kind=SERVICE, description="Installation"),
        line("1899.99", "2", "7.25", kind=SERVICE, recurrence=MONTHLY, description="Hosting"),
        line("149.90", kind=SERVICE, recurrence=MONTHLY, description="Backup 10 TB"),
    ]
    totals = quote(lines, quote_discount_pct=Decimal("2.5"), contract_months=24)

    assert figures(totals.one_off) == (
        "97990.00",
        "2895.00",
        "95095.00",
        "2377.38",
        "92717.62",
        "18543.52",
        "111261.14",
    )
    assert figures(totals.monthly) == (
        "3949.88",
        "275.50",
        "3674.38",
        "91.86",
        "3582.52",
        "716.50",
        "4299.02",
    )
    assert figures(totals.first_invoice) == (
        "101939.88",
        "3170.50",
        "98769.38",
        "2469.24",
        "96300.14",
        "19260.02",
        "115560.16",
    )
    assert figures(totals.contract) == (
        "192787.12",
        "9507.00",
        "183280.12",
        "4582.02",
        "178698.10",
        "35739.52",
        "214437.62",
    )
    assert totals.effective_discount_pct == Decimal("7.31")
    assert totals.contract_months == 24
    assert totals.has_monthly_lines


def test_a_usd_quote_keeps_the_exchange_rate_of_a_line_priced_in_eur():
    # Catalog 1,000.00 EUR x 1.0825 USD/EUR = 1,082.50 USD (converted by the caller);
    # 4 x 1,082.50 = 4,330.00; a US customer is outside the EU: no VAT.
    converted = line(
        money("1082.50", "USD"), "4", exchange_rate=Decimal("1.0825"), source_currency="EUR"
    )
    totals = quote([converted], currency="USD", customer_country="US")

    assert totals.currency == "USD"
    assert figures(totals.contract) == (
        "4330.00",
        "0.00",
        "4330.00",
        "0.00",
        "4330.00",
        "0.00",
        "4330.00",
    )
    assert totals.contract.total == money("4330.00", "USD")
    assert totals.lines[0].line.exchange_rate == Decimal("1.0825")
    assert totals.vat_regime == VatRegime.EXPORT
    assert "article 146" in totals.vat_note.render()


def test_an_empty_quote_prices_to_zero():
    totals = quote([])
    assert set(figures(totals.contract)) == {"0.00"}
    assert totals.effective_discount_pct == Decimal("0.00")
    assert totals.lines == ()


def test_a_full_discount_leaves_nothing_to_pay():
    totals = quote([line("999.99", "2", "100")])
    assert figures(totals.one_off)[4:] == ("0.00", "0.00", "0.00")
    assert totals.effective_discount_pct == Decimal("100.00")


def test_the_effective_discount_is_rounded_up_never_understated():
    # 3.00 at 33.33 %: net 3 x 0.6667 = 2.0001 -> 2.00; 1.00 / 3.00 = 33.333..% -> 33.34
    totals = quote([line("3.00", "1", "33.33")])
    assert totals.effective_discount_pct == Decimal("33.34")
    assert effective_discount_pct(totals.contract) == totals.effective_discount_pct


# --- VAT cases through the whole quote ------------------------------------------------------------

# 2 x 500.00 (goods) + 1 x 250.00 (service) at 10 % quote discount: net 1,125.00
MIXED = [line("500.00", "2"), line("250.00", kind=SERVICE, description="Setup")]


@pytest.mark.parametrize(
    ("options", "regime", "rate", "vat"),
    [
        ({"customer_country": "FR"}, VatRegime.DOMESTIC, "20", "225.00"),
        (
            {"customer_country": "DE", "vat_number": "DE136695976"},
            VatRegime.REVERSE_CHARGE,
            "0",
            "0.00",
        ),
        (
            {"customer_country": "DE", "vat_number": "DE 1234 5678"},
            VatRegime.EU_FRENCH_VAT,
            "20",
            "225.00",
        ),
        (
            {"customer_country": "DE", "vat_number": "DE136695978"},
            VatRegime.EU_FRENCH_VAT,
            "20",
            "225.00",
        ),
        (
            {"customer_country": "ES", "is_business": False},
            VatRegime.EU_FRENCH_VAT,
            "20",
            "225.00",
        ),
        ({"customer_country": "GB"}, VatRegime.EXPORT, "0", "0.00"),
        ({"customer_country": "US", "is_business": False}, VatRegime.EXPORT, "0", "0.00"),
    ],
    ids=[
        "FR",
        "DE-B2B-valid",
        "DE-B2B-malformed",
        "DE-B2B-wrong-check-digit",
        "ES-B2C",
        "GB",
        "US",
    ],
)
def test_vat_by_customer(options, regime, rate, vat):
    totals = quote(MIXED, quote_discount_pct=Decimal(10), **options)
    assert totals.one_off.net == money("1125.00")
    assert (totals.vat_regime, totals.vat_rate_pct) == (regime, Decimal(rate))
    assert totals.one_off.vat == money(vat)
    assert totals.one_off.total == money("1125.00") + money(vat)


def test_reverse_charge_on_goods_and_services_cites_both_articles():
    totals = quote(MIXED, customer_country="DE", vat_number="DE136695976")
    note = totals.vat_note.render()
    assert note.startswith("Autoliquidation / Reverse charge")
    assert "article 196" in note
    assert "article 138" in note


# --- Validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "options", "field", "says"),
    [
        ([], {"currency": "GBP"}, "currency", "one of EUR, USD"),
        ([], {"quote_discount_pct": Decimal("100.01")}, "quote_discount_pct", "from 0 to 100"),
        ([], {"quote_discount_pct": Decimal(-1)}, "quote_discount_pct", "from 0 to 100"),
        ([], {"quote_discount_pct": Decimal("9.995")}, "quote_discount_pct", "two decimals"),
        ([], {"quote_discount_pct": Decimal("NaN")}, "quote_discount_pct", "Enter a number"),
        ([], {"contract_months": 121}, "contract_months", "from 0 to 120 months"),
        (
            [line("10", recurrence=MONTHLY)],
            {"contract_months": 0},
            "contract_months",
            "monthly lines needs a contract length from 1 to 120 months",
        ),
        ([], {"customer_country": "de"}, "customer_country", "ISO 3166-1"),
        ([line("10", "0")], {}, "lines[0].quantity", "above 0 and at most 1000000"),
        ([line("10"), line("10", "-2")], {}, "lines[1].quantity", "above 0"),
        ([line("10", discount="100.5")], {}, "lines[0].discount_pct", "from 0 to 100"),
        ([line("-0.01")], {}, "lines[0].unit_price", "from 0 to 1000000000 EUR"),
        ([line(money("10", "USD"))], {}, "lines[0].unit_price", "quote's currency, EUR"),
        ([line("10", description="  ")], {}, "lines[0].description", "Describe"),
        ([line("10", sku="")], {}, "lines[0].sku", "SKU"),
        (
            [line("10", exchange_rate=Decimal("0.92"))],
            {},
            "lines[0].source_currency",
            "one of USD",
        ),
        (
            [line("10", exchange_rate=Decimal(1), source_currency="EUR")],
            {},
            "lines[0].source_currency",
            "one of USD",
        ),
        (
            [line("10", exchange_rate=Decimal(0), source_currency="USD")],
            {},
            "lines[0].exchange_rate",
            "above 0 (EUR per USD)",
        ),
        ([line("10", source_currency="USD")], {}, "lines[0].exchange_rate", "exchange rate"),
        ([line("10", kind="hardware")], {}, "lines[0].kind", "part or a service"),
        ([line("10", recurrence="yearly")], {}, "lines[0].recurrence", "one-off or monthly"),
    ],
)
def test_invalid_input_is_refused_naming_the_field_and_what_is_allowed(lines, options, field, says):
    with pytest.raises(PricingError) as refused:
        quote(lines, **options)
    assert refused.value.field == field
    assert says in refused.value.message.render()


def test_plain_strings_are_accepted_for_kind_and_recurrence():
    totals = quote([line("10", kind="service", recurrence="monthly")], contract_months=1)
    assert totals.monthly.net == money("10.00")


@pytest.mark.parametrize(
    "changes",
    [{"quantity": 1.5}, {"discount_pct": 5.0}],
)
def test_floats_are_a_programming_error(changes):
    fields = {
        "kind": PART,
        "description": "GPU",
        "quantity": Decimal(1),
        "unit_price": money("10"),
        "discount_pct": Decimal(0),
    }
    fields.update(changes)
    with pytest.raises(TypeError):
        quote([QuoteLine(**fields)])


# --- Properties -----------------------------------------------------------------------------------

pcts = st.integers(min_value=0, max_value=10_000).map(lambda n: Decimal(n) / 100)
quote_lines = st.builds(
    QuoteLine,
    kind=st.sampled_from(LineKind),
    description=st.just("Line"),
    quantity=st.integers(min_value=1, max_value=100_000).map(lambda n: Decimal(n) / 100),
    unit_price=st.integers(min_value=0, max_value=50_000_000).map(
        lambda mills: money(Decimal(mills) / 1000)
    ),
    discount_pct=pcts,
    recurrence=st.sampled_from(Recurrence),
)
customers = st.sampled_from(
    [
        {"customer_country": "FR", "is_business": True, "vat_number": None},
        {"customer_country": "DE", "is_business": True, "vat_number": "DE136695976"},
        {"customer_country": "DE", "is_business": True, "vat_number": "DE12"},
        {"customer_country": "ES", "is_business": False, "vat_number": None},
        {"customer_country": "US", "is_business": True, "vat_number": None},
    ]
)
quotes = st.fixed_dictionaries(
    {
        "lines": st.lists(quote_lines, max_size=6),
        "quote_discount_pct": pcts,
        "customer": customers,
        "contract_months": st.integers(min_value=1, max_value=60),
    }
)


def price(drawn, **changes):
    drawn = {**drawn, **changes}
    return quote(
        drawn["lines"],
        quote_discount_pct=drawn["quote_discount_pct"],
        contract_months=drawn["contract_months"],
        **drawn["customer"],
    )


def in_cents(m):
    return m.amount.as_tuple().exponent == -2 and m.amount >= 0 and m.currency == "EUR"


@settings(max_examples=300)
@given(quotes)
def test_the_figures_always_add_up_to_the_cent(drawn):
    totals = price(drawn)
    for priced in totals.lines:
        assert priced.gross - priced.discount == priced.net
        assert all(in_cents(m) for m in (priced.gross, priced.discount, priced.net))
    for recurrence, amounts in ((ONE_OFF, totals.one_off), (MONTHLY, totals.monthly)):
        members = [p for p in totals.lines if p.line.recurrence == recurrence]
        assert sum((p.net.amount for p in members), Decimal(0)) == amounts.lines_net.amount
        assert sum((p.gross.amount for p in members), Decimal(0)) == amounts.gross.amount
        assert amounts.gross - amounts.line_discounts == amounts.lines_net
        assert amounts.lines_net - amounts.quote_discount == amounts.net
        assert amounts.net + amounts.vat == amounts.total
        assert amounts.vat.amount == round_money(amounts.net.amount * totals.vat_rate_pct / 100)
    months = drawn["contract_months"]
    for name in ("gross", "line_discounts", "lines_net", "quote_discount", "net", "vat", "total"):
        one_off, monthly = getattr(totals.one_off, name), getattr(totals.monthly, name)
        assert getattr(totals.first_invoice, name) == one_off + monthly
        assert getattr(totals.contract, name) == one_off + monthly * months
    for amounts in (totals.one_off, totals.monthly, totals.first_invoice, totals.contract):
        assert all(in_cents(m) for m in figures_of(amounts))
        assert amounts.net + amounts.vat == amounts.total


@given(quotes)
def test_vat_is_never_negative_and_the_total_never_below_the_net(drawn):
    totals = price(drawn)
    for amounts in (totals.one_off, totals.monthly, totals.first_invoice, totals.contract):
        assert amounts.vat.amount >= 0
        assert amounts.total.amount >= amounts.net.amount >= 0
        assert amounts.net.amount <= amounts.gross.amount


@given(quotes, pcts)
def test_a_larger_quote_discount_never_raises_a_total(drawn, other):
    low, high = sorted((drawn["quote_discount_pct"], other))
    less, more = price(drawn, quote_discount_pct=low), price(drawn, quote_discount_pct=high)
    for name in ("one_off", "monthly", "first_invoice", "contract"):
        assert getattr(more, name).total.amount <= getattr(less, name).total.amount
    assert more.effective_discount_pct >= less.effective_discount_pct


@given(quotes, st.data())
def test_a_larger_line_discount_never_raises_a_total(drawn, data):
    if not drawn["lines"]:
        return
    index = data.draw(st.integers(min_value=0, max_value=len(drawn["lines"]) - 1))
    original = drawn["lines"][index]
    headroom = int((100 - original.discount_pct) * 100)
    raised = original.discount_pct + data.draw(st.integers(0, headroom)) / Decimal(100)
    lines = list(drawn["lines"])
    lines[index] = QuoteLine(
        kind=original.kind,
        description=original.description,
        quantity=original.quantity,
        unit_price=original.unit_price,
        discount_pct=raised,
        recurrence=original.recurrence,
    )
    less, more = price(drawn), price(drawn, lines=lines)
    assert more.contract.total.amount <= less.contract.total.amount
    assert more.first_invoice.total.amount <= less.first_invoice.total.amount


@given(quotes)
def test_the_effective_discount_never_understates_the_discount(drawn):
    contract = price(drawn).contract
    pct = effective_discount_pct(contract)
    assert Decimal(0) <= pct <= Decimal(100)
    given_away = contract.gross.amount - contract.net.amount
    assert contract.gross.amount * pct / 100 >= given_away
    assert contract.gross.amount * (pct - Decimal("0.01")) / 100 < given_away or pct == 0


# --- The effective discount against the catalog's list price ---------------------------------


def test_a_line_below_its_list_price_counts_as_a_discount():
    cheap = line("0.03", "8", list_unit_price=money("27677.82"))

    totals = quote([cheap])

    assert totals.contract.gross == money("0.24")  # the quote's own figures are unchanged
    assert totals.effective_discount_pct == Decimal("100.00")


def test_the_list_measure_counts_monthly_lines_over_the_contract():
    monthly = line("50", recurrence=MONTHLY, list_unit_price=money("100"))
    one_off = line("1000")

    totals = quote([one_off, monthly], contract_months=10)

    # contract net 1000 + 10 x 50 = 1500 against a list of 1000 + 10 x 100 = 2000
    assert totals.effective_discount_pct == Decimal("25.00")


def test_a_line_above_its_list_price_never_hides_a_discount():
    dear = line("120", discount="15", list_unit_price=money("100"))

    assert quote([dear]).effective_discount_pct == Decimal("15.00")


def test_a_list_price_in_another_currency_is_refused():
    with pytest.raises(PricingError) as refused:
        quote([line("10", list_unit_price=money("10", "USD"))])
    assert refused.value.field == "lines[0].list_unit_price"
