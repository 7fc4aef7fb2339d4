"""Hosting offers: a price source in GPUQuote's reference format of dated
managed-hosting offers, whose offers the market band of managed hosting is drawn from.

The sample (catalog/feeds/samples/hosting-offers.csv) is 14 rows copied as they are from
GPUQuote's reference data of public offers: 12 the band counts, one of "low" confidence
(a Hetzner auction) and one dated by its month only (DigitalOcean), both skipped.
"""

import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

import pytest
from django.urls import reverse

from catalog.feeds import FeedFormatError, FeedKind, RowError
from catalog.feeds.hosting_offers import HostingOfferRow, hosting_offer_rows
from catalog.feeds.parse import FeedSpec
from catalog.models import HostingOffer, PriceSource, RunStatus
from catalog.selectors.hosting_offers import hosting_offers_current_get
from catalog.selectors.versions import hosting_offers_version_get, versions_forget
from engine.money import Money
from engine.tco.market import (
    REFERENCE_ORIGIN,
    hosting_offers,
    market_band,
    per_gpu_month_price,
)
from quotes.advice.selectors import managed_offer_get
from tests.catalog.price_feeds import counts, refresh
from tests.engine.tco.tco_cases import configuration, eur
from tests.quotes.wizard.wizard_cases import wizard_result_make

SAMPLE = (
    Path(__file__).resolve().parents[2] / "catalog" / "feeds" / "samples" / "hosting-offers.csv"
)
TODAY = dt.date(2026, 12, 5)
SPEC = FeedSpec(
    kind=FeedKind.HOSTING_OFFERS,
    format="csv",
    default_currency="EUR",
    currencies=frozenset({"EUR", "USD"}),
    today=TODAY,
)
HEADER = (
    "provider,product,gpu_model,gpu_count,gpu_memory_gb,cpu,ram_gb,storage,price,currency,"
    "period,term,setup_fee,includes,location,source_url,date_seen,confidence\n"
)
RATES = {"usd_per_eur": Decimal("1.0824"), "gbp_per_eur": Decimal("0.84662")}


def line(**changes: str) -> str:
    """One offer in the reference format (an OVHcloud L4 by default), with ``changes``."""
    cells = {
        "provider": "OVHcloud",
        "product": "Public Cloud l4-90 (monthly plan)",
        "gpu_model": "NVIDIA L4",
        "gpu_count": "1",
        "gpu_memory_gb": "24",
        "cpu": "22 vCore",
        "ram_gb": "90",
        "storage": "400 GB NVMe",
        "price": "540",
        "currency": "EUR",
        "period": "month",
        "term": "monthly",
        "setup_fee": "0",
        "includes": "public cloud instance",
        "location": "Gravelines FR (GRA)",
        "source_url": "https://www.ovhcloud.com/fr/public-cloud/prices/ [read 2026-10-08]",
        "date_seen": "2026-10-08",
        "confidence": "high",
    } | changes
    return ",".join(f'"{value}"' if "," in value else value for value in cells.values()) + "\n"


def read(text: str | bytes) -> list[HostingOfferRow | RowError]:
    data = text.encode() if isinstance(text, str) else text
    return list(hosting_offer_rows(io.BytesIO(data), SPEC))


# --- The reader ---------------------------------------------------------------------------------


def test_the_sample_gives_the_offers_the_band_counts_and_skips_the_others():
    rows = read(SAMPLE.read_bytes())

    assert all(isinstance(row, HostingOfferRow) for row in rows)
    # Lines 5 (confidence "low") and 15 ("2026-05 (month only)") are skipped, not errors
    assert [row.row for row in rows] == [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    hourly = rows[1]
    assert hourly == HostingOfferRow(
        row=3,
        provider="Hetzner",
        product="GEX45 (hourly rate)",
        gpu_model="NVIDIA RTX PRO 4000 Blackwell SFF",
        gpu_count=1,
        price=Decimal("0.3402"),
        currency="EUR",
        period="hour",
        price_per="offer",
        date_seen=dt.date(2026, 10, 8),
        confidence="medium-high",
        source_url="https://www.hetzner.com/_resources/app/data/app/live_data_prices.json",
        location="FSN1/NBG1/HEL1",
    )
    by_provider = {row.provider: row for row in rows if isinstance(row, HostingOfferRow)}
    assert (by_provider["Lambda"].price_per, by_provider["Lambda"].gpu_count) == ("gpu", 8)
    assert (by_provider["CoreWeave"].price_per, by_provider["CoreWeave"].gpu_count) == (
        "offer",
        8,
    )  # "hour (per 8-GPU node)": the node's price
    # The reference data's notes after the price page are left out
    assert by_provider["Nebius"].source_url == "https://nebius.com/prices"


def test_the_sample_prices_per_gpu_month_are_the_engines_reference_offers():
    reference = {(o.provider, o.product): o.per_gpu_month for o in hosting_offers()}
    rows = [row for row in read(SAMPLE.read_bytes()) if isinstance(row, HostingOfferRow)]

    for row in rows:
        price = per_gpu_month_price(
            row.price, period=row.period, price_per=row.price_per, gpu_count=row.gpu_count
        )
        assert reference[row.provider, row.product] == Money(price, row.currency), row.product


@pytest.mark.parametrize(
    ("changes", "field", "message", "value"),
    [
        ({"price": "1.234,5"}, "price", "is not a number", "1.234,5"),
        ({"price": "0"}, "price", "must be greater than zero", "0"),
        ({"price": "0.12345"}, "price", "has more than 4 decimal places", "0.12345"),
        ({"price": "100000000"}, "price", "must be below 100,000,000", "100000000"),
        ({"currency": "CHF"}, "currency", "is not a known currency (known: EUR, USD)", "CHF"),
        ({"period": "week"}, "period", 'must be "month" or "hour"', "week"),
        ({"gpu_count": "0"}, "gpu_count", "must be a whole number from 1 to 1024", "0"),
        ({"gpu_count": ""}, "gpu_count", "must be a whole number from 1 to 1024", ""),
        ({"date_seen": "2026-12-07"}, "date_seen", "is in the future (today is 2026-12-05)", ""),
        ({"confidence": "sure"}, "confidence", "must be one of high, medium-high", "sure"),
        ({"provider": ""}, "provider", "is missing", ""),
        ({"product": "x" * 201}, "product", "is longer than 200 characters", ""),
        ({"includes": "x" * 2001}, "includes", "is longer than 2000 characters", ""),
        ({"source_url": "see the price list"}, "source_url", "must start with", ""),
    ],
)
def test_a_bad_value_is_a_row_error_naming_its_line_and_field(changes, field, message, value):
    [error] = read(HEADER + line(**changes))

    assert isinstance(error, RowError)
    assert (error.row, error.field) == (2, field)
    assert error.message.startswith(message)
    # Short values (a price, a code) are shown; free text never is
    assert error.value == value or (field == "date_seen" and error.value == "2026-12-07")


def test_a_repeated_offer_or_a_short_line_is_a_row_error_and_the_rest_is_read():
    rows = read(HEADER + line() + line() + "Hetzner,GEX44\n" + line(product="other"))

    assert [(type(row).__name__, row.row) for row in rows] == [
        ("HostingOfferRow", 2),
        ("RowError", 3),
        ("RowError", 4),
        ("HostingOfferRow", 5),
    ]
    assert str(rows[1]) == "row 3, row: repeats the offer of row 2 (provider, product, GPU)"
    assert str(rows[2]) == "row 4, row: has 2 fields; the header has 18"


def test_undated_and_low_confidence_offers_are_skipped_by_the_bands_rule():
    rows = read(
        HEADER
        + line(date_seen="2026-05 (month only)")
        + line(date_seen="unknown (catalog v8 snapshot)", product="b")
        + line(confidence="low", product="c")
        + line(confidence="low-medium", product="d")
    )

    assert [row.row for row in rows] == [5]  # "low-medium" counts, as it always did


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (
            HEADER.replace(",confidence", "").encode(),
            "line 1: the header lacks the column(s) confidence",
        ),
        (HEADER.replace("cpu", "provider").encode(), "line 1: two columns have the same name"),
        (b"provider\xff\xfe,product\n", "the file is not UTF-8 text"),
        ((HEADER + line(product='unterminated "quote')).encode(), None),
    ],
)
def test_an_unreadable_file_is_a_feed_error_that_does_not_quote_it(data, message):
    if message is None:  # a quote inside an unquoted cell is read as text by csv: not an error
        assert len(read(data)) == 1
        return
    with pytest.raises(FeedFormatError) as raised:
        read(data)

    assert str(raised.value).startswith(message)


def test_a_partial_file_ends_in_a_row_error():
    whole = SAMPLE.read_text(encoding="utf-8")
    cut = whole[: whole.index("Unmanaged dedicated root server") + 10]  # inside line 2's quotes

    [error] = read(cut)

    assert isinstance(error, RowError)
    assert (error.row, error.field) == (2, "row")
    assert error.message.startswith("has 14 fields; the header has 18")


def test_only_csv_is_read():
    with pytest.raises(FeedFormatError, match="hosting offers are read from CSV"):
        list(hosting_offer_rows(io.BytesIO(b"[]"), FeedSpec(**{**SPEC.__dict__, "format": "json"})))


# --- Runs ---------------------------------------------------------------------------------------


def source_make(location: str = "hosting-offers.csv", **overrides) -> PriceSource:
    values = {
        "name": "Hosting offers (reference)",
        "kind": FeedKind.HOSTING_OFFERS,
        "location": location,  # relative to PRICE_FEED_FILE_ROOT: the samples by default
        "format": "csv",
        "currency": "EUR",
    }
    return PriceSource.objects.create(**(values | overrides))


def stored(source: PriceSource) -> dict[int, tuple]:
    return {
        offer.row: (offer.id, offer.product, offer.price)
        for offer in HostingOffer.objects.filter(price_source=source)
    }


@pytest.mark.django_db
def test_the_sample_is_applied_then_applying_it_again_changes_nothing():
    source = source_make()

    run = refresh(source)

    assert run.status == RunStatus.APPLIED, run.message
    assert counts(run) == {
        "read": 12,
        "changed": 12,
        "unchanged": 0,
        "rejected": 0,
        "quarantined": 0,
    }
    offers = stored(source)
    assert sorted(offers) == [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    azure = HostingOffer.objects.get(price_source=source, provider="Azure")
    assert (azure.price, azure.currency, azure.period, azure.run_id) == (
        Decimal("7.7915"),
        "EUR",
        "hour",
        run.pk,
    )

    again = refresh(source)

    assert again.status == RunStatus.APPLIED
    assert counts(again)["changed"] == 0
    assert counts(again)["unchanged"] == 12
    assert stored(source) == offers  # the same rows: nothing rewritten


@pytest.mark.django_db
def test_a_new_file_replaces_the_sources_offers(tmp_path, settings):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    feed = tmp_path / "offers.csv"
    feed.write_text(HEADER + line() + line(product="b", price="600") + line(product="c"))
    source = source_make("offers.csv")
    refresh(source)
    before = stored(source)

    # b's price moves, c is gone, d is new
    feed.write_text(
        HEADER + line() + line(product="b", price="610") + line(product="d", gpu_count="2")
    )
    run = refresh(source)

    assert run.status == RunStatus.APPLIED
    assert counts(run) | {"read": run.rows_read} == {
        "read": 3,
        "changed": 2,
        "unchanged": 1,
        "rejected": 0,
        "quarantined": 0,
    }
    after = stored(source)
    assert after[2] == before[2]  # untouched
    assert after[3][1:] == ("b", Decimal("610"))
    assert after[4][1] == "d"
    assert HostingOffer.objects.filter(price_source=source).count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (
            HEADER + line(price="x") + line(product="b", currency="CHF") + line(product="c"),
            RunStatus.REJECTED,
            "2 of 3 rows",
        ),
        (HEADER, RunStatus.REJECTED, "The feed has no rows"),
        (HEADER + line(confidence="low"), RunStatus.REJECTED, "The feed has no rows"),
        (HEADER.replace(",price,", ",cost,") + line(), RunStatus.REJECTED, "line 1: the header"),
        # A partial file, cut inside a row: that row has too few fields
        (HEADER + line() + line(product="b")[:-30], RunStatus.REJECTED, "1 of 2 rows"),
    ],
)
def test_a_bad_or_partial_file_applies_nothing_and_keeps_the_offers(
    tmp_path, settings, body, status, message
):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    feed = tmp_path / "offers.csv"
    feed.write_text(HEADER + line() + line(product="b"))
    source = source_make("offers.csv")
    refresh(source)
    before = stored(source)

    feed.write_text(body)
    run = refresh(source)

    assert run.status == status
    assert message in run.message
    assert run.rows_changed == 0
    assert stored(source) == before


# --- The market band ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_band_is_drawn_from_the_sources_offers_once_one_applied():
    assert hosting_offers_current_get() is None  # the engine's reference offers, until a run
    source = source_make()
    version = hosting_offers_version_get()

    refresh(source)

    assert hosting_offers_version_get() != version
    market = hosting_offers_current_get()
    assert market is not None
    assert market.origin == "Hosting offers (reference)"
    assert hosting_offers_current_get() is market  # one set per data version
    band = market_band("NVIDIA H100 SXM5 80GB", "EUR", **RATES, offers=market)
    assert band is not None
    # OVHcloud h100-380 at 2.8 EUR/h x 730 to Azure NC40ads H100 v5 at 7.7915 EUR/h x 730,
    # among 6 offers (OVHcloud, Scaleway, Nebius, Lambda, AWS, Azure)
    assert (band.low, band.high, band.offers) == (eur("2044.00"), eur("5687.80"), 6)
    assert (band.oldest, band.newest) == (dt.date(2026, 9, 20), dt.date(2026, 9, 26))
    assert band.sources[0] == "https://www.ovhcloud.com/fr/public-cloud/prices/"
    assert band.origin == "Hosting offers (reference)"


@pytest.mark.django_db
def test_a_disabled_sources_offers_leave_the_band():
    source = source_make()
    refresh(source)

    PriceSource.objects.filter(pk=source.pk).update(enabled=False)
    versions_forget()

    assert hosting_offers_current_get() is None


@pytest.mark.django_db
def test_the_managed_offer_is_placed_in_the_sources_band():
    h100 = configuration(gpu_model="NVIDIA H100 SXM5 80GB", gpus_per_server=8)
    reference = managed_offer_get(configuration=h100, region="FR", currency="EUR", overrides={})
    assert reference.band is not None
    assert reference.band.origin == REFERENCE_ORIGIN

    refresh(source_make())
    offer = managed_offer_get(configuration=h100, region="FR", currency="EUR", overrides={})

    assert offer.band is not None
    assert offer.band.origin == "Hosting offers (reference)"
    assert offer.band.low == eur("2044.00")


@pytest.mark.django_db
def test_the_tco_api_shows_the_sources_offers_dates_and_pages(client):
    refresh(source_make())
    server = {
        "servers": 1,
        "gpus_per_server": 8,
        "gpu_model": "H100 SXM",
        "power_w": 10200,
        "price": "250000.00",
        "currency": "EUR",
        "rack_units": 8,
    }

    body = client.post(
        reverse("api:tco"), {"configuration": server}, content_type="application/json"
    ).json()

    band = body["managed_offer"]["market_band"]
    assert band["origin"] == "Hosting offers (reference)"
    assert (band["low"], band["high"], band["offers"]) == ("2044.00", "5687.80", 6)
    assert (band["oldest"], band["newest"]) == ("2026-09-20", "2026-09-26")
    assert "https://lambda.ai/instances" in band["sources"]


@pytest.mark.django_db
def test_the_admin_lists_the_offers_read_only(admin_client):
    source = source_make()
    refresh(source)
    offer = HostingOffer.objects.get(price_source=source, provider="Azure")

    listing = admin_client.get(reverse("admin:catalog_hostingoffer_changelist"))
    page = admin_client.get(reverse("admin:catalog_hostingoffer_change", args=[offer.pk]))

    assert listing.status_code == 200
    assert "NC40ads_H100_v5" in listing.content.decode()
    assert page.status_code == 200
    assert admin_client.get(reverse("admin:catalog_hostingoffer_add")).status_code == 403


@pytest.mark.django_db
@pytest.mark.usefixtures("seed_catalog")
def test_the_result_page_shows_where_and_when_the_bands_offers_were_read(client):
    refresh(source_make())

    result = wizard_result_make(client)
    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    # The chosen server's band: its class's offers in the source, their dates and price pages
    assert "Offers seen from 2026-" in body
    assert ", read from Hosting offers (reference):" in body
    assert REFERENCE_ORIGIN not in body


@pytest.mark.django_db
def test_a_file_of_several_chunks_leaves_exactly_its_offers(tmp_path, settings, monkeypatch):
    monkeypatch.setattr("catalog.services.feed_apply.FEED_CHUNK_ROWS", 2)
    settings.PRICE_FEED_MAX_ERROR_PCT = 50  # one bad row in six: let the rest apply
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    feed = tmp_path / "offers.csv"
    feed.write_text(HEADER + "".join(line(product=name) for name in "abcde"))
    source = source_make("offers.csv")
    refresh(source)

    # c is gone (the second chunk), e's line is now a bad one, f is new
    feed.write_text(
        HEADER
        + "".join(line(product=name) for name in "abd")
        + line(product="e", price="x")
        + line(product="f")
    )
    run = refresh(source)

    assert run.status == RunStatus.APPLIED_WITH_ERRORS
    assert [product for _, product, _ in stored(source).values()] == ["a", "b", "d", "f"]
