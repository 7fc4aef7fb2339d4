"""Quotes and TCO figures converted with the ECB's dated reference rates.

The rates come from the committed sample catalog/feeds/samples/ecb-eurofxref-hist-90d.xml (the
ECB's structure, illustrative rates: USD 1.0839 on 2026-12-02, 1.0853 on 2026-12-04), applied
through the price refresh service as the daily task applies the real file.
"""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from engine.commerce.exchange import rate_rounded
from quotes.advice import computed_cache
from quotes.advice.selectors import assumptions_get, priced_assumptions_get
from quotes.models import QuoteOrigin, WizardResult
from quotes.sales import services
from tests.factories import advice_inputs_make, ecb_rates_load, gpu_make, price_make
from tests.quotes.sales.test_quote_pdf_seller import _text
from tests.quotes.sales.test_quote_services import TODAY, _user, quote_make

pytestmark = pytest.mark.django_db

RATE_2026_12_02 = "ECB euro reference rate of 2026-12-02"


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def ecb_rates():
    return ecb_rates_load()


@pytest.fixture
def gpu():
    part = gpu_make(sku="GPU-H100")
    price_make(part, amount=Decimal("25000.00"), observed_on=dt.date(2026, 11, 1))
    return part


# --- Quotes ----------------------------------------------------------------------------------


def test_a_dollar_quote_takes_the_ecb_rate_of_its_day_and_converts_euro_prices(rep, gpu, ecb_rates):
    quote = quote_make(rep, lines=[], currency="USD")

    line = services.quote_line_add_part(user=rep, quote=quote, sku="GPU-H100", quantity=Decimal(1))

    quote.refresh_from_db()
    assert (quote.exchange_rate, quote.exchange_rate_date, quote.exchange_rate_source) == (
        Decimal("1.083900"),
        TODAY,
        RATE_2026_12_02,
    )
    assert (line.unit_price, line.source_currency, line.exchange_rate) == (
        Decimal("27097.50"),
        "EUR",
        Decimal("1.083900"),
    )
    assert (quote.exchange_rate_per_eur, quote.exchange_rate_currency) == (
        Decimal("1.0839"),
        "USD",
    )


def test_a_euro_quote_stores_euros_per_dollar_and_shows_the_published_rate(rep, ecb_rates):
    quote = quote_make(rep, currency="EUR")

    quote.refresh_from_db()
    assert quote.exchange_rate == Decimal("0.922594")  # 1 / 1.0839, 6 places
    assert (quote.exchange_rate_per_eur, quote.exchange_rate_currency) == (
        Decimal("1.0839"),
        "USD",
    )


def test_a_weekend_quote_takes_the_last_published_rate(rep, ecb_rates):
    quote = services.quote_create(
        user=rep,
        origin="staff",
        company="Acme",
        contact_name="Ada",
        email="ada@example.com",
        country="FR",
        currency="USD",
        today=dt.date(2026, 12, 6),
    )

    assert (quote.exchange_rate, quote.exchange_rate_date) == (
        Decimal("1.085300"),
        dt.date(2026, 12, 4),
    )


def test_without_recorded_rates_the_quote_takes_the_built_in_annual_average_and_says_so(
    client, rep
):
    quote = quote_make(rep, currency="USD")
    client.force_login(rep)

    quote.refresh_from_db()
    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()
    pdf = _text(quote)

    assert (quote.exchange_rate, quote.exchange_rate_date) == (
        Decimal("1.082400"),
        dt.date(2024, 12, 31),
    )
    assert quote.exchange_rate_source.startswith("ECB euro reference exchange rate, 2024 annual")
    assert quote.exchange_rate_built_in
    said = "1 EUR = 1.0824 USD, ECB euro reference exchange rate, 2024 annual average"
    assert said in page
    assert said in " ".join(pdf.split())
    assert "ECB reference rate of" not in page  # not the rate of a day


def test_a_rate_typed_by_staff_wins_and_has_no_ecb_date(rep, ecb_rates):
    quote = quote_make(rep, currency="USD", exchange_rate=Decimal("1.1"))

    quote.refresh_from_db()
    assert (quote.exchange_rate, quote.exchange_rate_date, quote.exchange_rate_source) == (
        Decimal("1.100000"),
        None,
        "",
    )
    assert quote.exchange_rate_per_eur is None


def test_editing_the_rate_drops_the_ecb_date_and_emptying_it_takes_the_ecb_rate_again(
    rep, ecb_rates
):
    quote = quote_make(rep, currency="USD")

    services.quote_customer_update(user=rep, quote=quote, today=TODAY, exchange_rate=Decimal("1.2"))
    quote.refresh_from_db()
    typed = (quote.exchange_rate, quote.exchange_rate_date, quote.exchange_rate_source)
    services.quote_customer_update(user=rep, quote=quote, today=TODAY, exchange_rate=None)
    quote.refresh_from_db()

    assert typed == (Decimal("1.200000"), None, "")
    assert (quote.exchange_rate, quote.exchange_rate_date) == (Decimal("1.083900"), TODAY)


def test_an_unchanged_rate_keeps_its_ecb_date(rep, ecb_rates):
    quote = quote_make(rep, currency="USD")
    quote.refresh_from_db()

    services.quote_customer_update(
        user=rep, quote=quote, today=TODAY, exchange_rate=quote.exchange_rate, company="Acme SA"
    )
    quote.refresh_from_db()

    assert (quote.exchange_rate_date, quote.exchange_rate_source) == (TODAY, RATE_2026_12_02)


def test_the_staff_page_and_the_pdf_say_which_rate_was_used(client, rep, ecb_rates):
    quote = quote_make(rep, currency="USD")
    client.force_login(rep)

    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()
    quote.refresh_from_db()
    pdf = _text(quote)

    assert "1 EUR = 1.0839 USD, ECB reference rate of" in page
    assert "1 EUR = 1.0839 USD, ECB reference rate of" in pdf


def test_the_staff_page_says_when_staff_typed_the_rate(client, rep, ecb_rates):
    quote = quote_make(rep, currency="USD", exchange_rate=Decimal("1.1"))
    client.force_login(rep)

    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()

    assert "Exchange rate typed by staff" in page
    assert "ECB reference rate of" not in page


# --- TCO assumptions -------------------------------------------------------------------------


def test_the_tco_uses_the_latest_ecb_rate_with_its_date(ecb_rates):
    assumptions = assumptions_get(region="FR", currency="EUR")

    usd = assumptions["usd_per_eur"]
    assert (usd.value, usd.source) == (Decimal("1.0853"), "ECB euro reference rate of 2026-12-04")
    assert assumptions["gbp_per_eur"].value == Decimal("0.84215")


def test_without_ecb_rates_the_tco_keeps_the_built_in_annual_average():
    usd = assumptions_get(region="FR", currency="EUR")["usd_per_eur"]

    assert usd.value == Decimal("1.0824")
    assert "2024 annual average" in usd.source


def test_a_callers_override_still_wins_over_the_ecb_rate(ecb_rates):
    assumptions = priced_assumptions_get(
        region="FR", currency="EUR", gpu_model=None, overrides={"usd_per_eur": Decimal("1.2")}
    )

    assert assumptions["usd_per_eur"].value == Decimal("1.2")


def test_figures_published_in_dollars_are_converted_at_the_ecb_rate(ecb_rates):
    converted = [a for a in assumptions_get(region="FR", currency="EUR").values() if a.conversion]

    assert converted
    assert {a.conversion.params["rate"] for a in converted if a.conversion} <= {
        Decimal("1.0853"),
        Decimal("0.84215"),
    }


# --- Catalog prices observed in dollars, in a euro result and its quote ------------------------


@pytest.mark.usefixtures("seed_catalog")
def test_a_quote_from_a_euro_result_prices_each_dollar_part_as_the_result_did_and_says_at_what(
    rep,
):
    computed = computed_cache.computed_get(
        advice_inputs_make(
            workload={"task": "inference", "model": "llama-3.1-8b"}, deployment="on_premises"
        )
    )
    advice = computed.result
    result = WizardResult.objects.create(language="en", answers={}, result=computed.stored)

    quote = services.quote_create_from_result(
        user=None,
        result=result,
        advice=advice,
        customer={
            "company": "Acme",
            "contact_name": "Ada",
            "email": "a@example.com",
            "country": "FR",
        },
        origin=QuoteOrigin.PARTNER_API,
    )

    # The seed is priced in dollars: the result converted at the built-in ECB average...
    assert [(r.currency, r.per_eur) for r in advice.exchange_rates] == [("USD", Decimal("1.0824"))]
    assert {age.observed_in for age in advice.price_ages.values()} == {"USD"}
    # ...and every part line of its quote carries the result's price and that rate
    chosen, revision = advice.chosen, quote.current_revision
    assert chosen is not None
    assert revision is not None
    lines = revision.lines.filter(kind="part").order_by("position")
    assert [(line.sku, line.unit_price) for line in lines] == [
        (part.sku, part.unit_price.rounded().amount) for part in chosen.parts
    ]
    euro_per_dollar = rate_rounded(Decimal(1) / Decimal("1.0824"))
    assert {(line.source_currency, line.exchange_rate) for line in lines} == {
        ("USD", euro_per_dollar)
    }
    assert (quote.exchange_rate, quote.exchange_rate_built_in) == (euro_per_dollar, True)
    # Repricing the quote at its own rate gives the same cents
    repriced = services.quote_reprice(user=rep, quote=quote)
    assert [
        line.unit_price for line in repriced.lines.filter(kind="part").order_by("position")
    ] == [line.unit_price for line in lines]


@pytest.mark.usefixtures("seed_catalog")
def test_the_result_page_and_the_configurations_api_name_the_rate_of_the_conversion(client):
    computed = computed_cache.computed_get(
        advice_inputs_make(workload={"task": "inference", "model": "llama-3.1-8b"})
    )
    result = WizardResult.objects.create(language="en", answers={}, result=computed.stored)

    page = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    assert "Prices observed in USD are converted at 1 EUR = 1.0824 USD (ECB euro reference" in (
        " ".join(page.split())
    )


@pytest.mark.usefixtures("seed_catalog")
def test_a_result_stored_before_conversions_were_recorded_still_renders_and_quotes(client, rep):
    computed = computed_cache.computed_get(
        advice_inputs_make(
            workload={"task": "inference", "model": "llama-3.1-8b"}, deployment="on_premises"
        )
    )
    stored = copy.deepcopy(computed.stored)
    del stored["advice"]["exchange_rates"]
    for age in stored["advice"]["price_ages"].values():
        del age["observed_in"]
    result = WizardResult.objects.create(language="en", answers={}, result=stored)

    page = client.get(reverse("wizard:result", kwargs={"token": result.token}))
    quote = services.quote_create_from_result(
        user=rep,
        result=result,
        customer={"company": "Acme", "contact_name": "Ada", "email": "a@ex.com", "country": "FR"},
        origin=QuoteOrigin.STAFF,
    )

    assert page.status_code == 200
    assert "Prices observed in" not in page.content.decode()  # it recorded no rate: none said
    revision = quote.current_revision
    assert revision is not None
    assert {line.source_currency for line in revision.lines.all()} == {""}
