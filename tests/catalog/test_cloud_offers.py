"""Cloud GPU offers in gpuhunt's catalog format: the reader, the refresh run that replaces a
source's offers, the cheapest-offer selector and the data version.

The samples (catalog/feeds/samples/cloud-offers-*) are hand-written in gpuhunt's real catalog
structure (v2 columns, one CSV per provider); their prices are ILLUSTRATIVE, not published
figures. The archive is built from ``SAMPLE_MEMBERS`` by ``sample_archive_write`` (rebuild it
with ``.venv/bin/python -c "from tests.catalog.test_cloud_offers import sample_archive_write;
sample_archive_write()"``); a test checks the committed archive holds exactly those members.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from catalog.feeds import FeedFormatError, FeedLimitError, FeedLimits, FeedSpec, RowError
from catalog.feeds.cloud_offers import CloudOfferRow, iter_cloud_offers
from catalog.models import CloudOffer, CloudPrice, PriceSource, RunStatus
from catalog.selectors.cloud_offers import cheapest_cloud_offers
from catalog.selectors.versions import cloud_prices_version_get, versions_forget
from engine.commerce.exchange import built_in_rates
from engine.money import Money
from quotes.advice.presenters import cloud_market_panel
from quotes.advice.selectors import cloud_market_for_gpu_get
from tests.catalog.price_feeds import refresh

SAMPLES = Path(__file__).resolve().parents[2] / "catalog" / "feeds" / "samples"
SAMPLE_CSV = "cloud-offers-lambdalabs.csv"
SAMPLE_ZIP = "cloud-offers-gpuhunt.zip"
TODAY = dt.date(2026, 12, 5)
HEADER = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,"
    "gpu_vendor,flags,cpu_arch,provider_data\n"
)
AWS_CSV = HEADER + (
    "p5.48xlarge,us-east-1,55.04,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}\n"
    "p5.48xlarge,us-east-1,23.5,192,2048.0,8,H100,80.0,True,,nvidia,,x86,{}\n"
    "p5.48xlarge,eu-west-1,61.2,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}\n"
    "g6e.xlarge,us-east-1,1.861,4,32.0,1,L40S,48.0,False,,nvidia,,x86,{}\n"
    "g6.xlarge,us-east-1,0.8048,4,16.0,1,L4,24.0,False,,nvidia,,x86,{}\n"
    "g4dn.xlarge,us-east-1,0.526,4,16.0,1,T4,16.0,False,,nvidia,,x86,{}\n"
    "m7i.large,us-east-1,0.1008,2,8.0,0,,,False,,,,x86,{}\n"
)
GCP_CSV = HEADER + (
    "a3-highgpu-8g,us-central1,88.49,208,1872.0,8,H100,80.0,False,,nvidia,,x86,{}\n"
    "a3-highgpu-8g,us-central1,29.6,208,1872.0,8,H100,80.0,True,,nvidia,,x86,{}\n"
    "g2-standard-4,us-central1,0.7068,4,16.0,1,L4,24.0,False,,nvidia,,x86,{}\n"
    "a2-ultragpu-1g,us-central1,5.0688,12,170.0,1,A100,80.0,False,,nvidia,,x86,{}\n"
    "v5litepod-1,us-west4,1.2,24,48.0,1,v5litepod,16.0,False,,google,,x86,{}\n"
)
README_TXT = (
    "Sample of gpuhunt's offline catalog format (one <provider>.csv per provider, catalog v2\n"
    "columns), written by hand for GPUQuote's tests. The prices are ILLUSTRATIVE, not\n"
    "published figures. Built by tests/catalog/test_cloud_offers.py::sample_archive_write.\n"
)
FIXED_TIME = (2026, 12, 5, 0, 0, 0)
BAD_ROW = "p5,us,abc,1,1,1,H100,80,False,,nvidia,,x86,{}\n"


def sample_members() -> dict[str, str]:
    """The sample archive's members: AWS and GCP above, Lambda from the committed CSV sample;
    CSV lines end with CRLF, as gpuhunt's ``csv.DictWriter`` writes them."""
    lambda_csv = (SAMPLES / SAMPLE_CSV).read_bytes().decode()
    return {
        "README.txt": README_TXT,
        "aws.csv": AWS_CSV.replace("\n", "\r\n"),
        "gcp.csv": GCP_CSV.replace("\n", "\r\n"),
        "lambdalabs.csv": lambda_csv,
    }


def zip_bytes(members: Mapping[str, str | bytes], comment: bytes = b"") -> bytes:
    """An archive of ``members`` with fixed dates, so building it twice gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.comment = comment
        for name, text in members.items():
            data = text.encode() if isinstance(text, str) else text
            archive.writestr(zipfile.ZipInfo(name, date_time=FIXED_TIME), data)
    return buffer.getvalue()


def sample_archive_write() -> None:
    comment = b"gpuhunt catalog format sample; prices are illustrative, not published figures"
    (SAMPLES / SAMPLE_ZIP).write_bytes(zip_bytes(dict(sample_members()), comment))


def spec(fmt: str) -> FeedSpec:
    return FeedSpec(
        kind="cloud_offers",
        format=fmt,
        default_currency="USD",
        currencies=frozenset({"EUR", "USD"}),
        today=TODAY,
    )


def read(data: bytes, fmt: str = "csv") -> list[CloudOfferRow | RowError]:
    return list(iter_cloud_offers(io.BytesIO(data), spec(fmt)))


# --- The reader ----------------------------------------------------------------------------------


def test_the_csv_sample_reads_modelled_gpu_offers_per_gpu_hour():
    rows = read((SAMPLES / SAMPLE_CSV).read_bytes())

    # The A10 (not modelled) and the GH200 superchip (not an H200 board) are skipped.
    assert rows == [
        CloudOfferRow(2, "", "gpu_8x_h100_sxm5", "us-east-1", "H100_SXM", 8, Decimal("2.9900"),
                      False, "USD", TODAY),
        CloudOfferRow(3, "", "gpu_1x_h100_pcie", "us-west-1", "H100_SXM", 1, Decimal("2.4900"),
                      False, "USD", TODAY),
        CloudOfferRow(4, "", "gpu_8x_a100_80gb_sxm4", "us-east-1", "A100_SXM", 8,
                      Decimal("1.7900"), False, "USD", TODAY),
    ]  # fmt: skip


def test_the_zip_sample_reads_every_provider_file_named_by_its_stem():
    read_rows = read((SAMPLES / SAMPLE_ZIP).read_bytes(), "zip")
    rows = [row for row in read_rows if isinstance(row, CloudOfferRow)]

    assert rows == read_rows
    assert [(r.provider, r.instance, r.spot, r.price_per_gpu_hour) for r in rows] == [
        ("AWS", "p5.48xlarge", False, Decimal("6.8800")),
        ("AWS", "p5.48xlarge", True, Decimal("2.9375")),
        ("AWS", "p5.48xlarge", False, Decimal("7.6500")),
        ("AWS", "g6e.xlarge", False, Decimal("1.8610")),
        ("AWS", "g6.xlarge", False, Decimal("0.8048")),
        ("Google Cloud", "a3-highgpu-8g", False, Decimal("11.0613")),
        ("Google Cloud", "a3-highgpu-8g", True, Decimal("3.7000")),
        ("Google Cloud", "g2-standard-4", False, Decimal("0.7068")),
        ("Google Cloud", "a2-ultragpu-1g", False, Decimal("5.0688")),
        ("Lambda", "gpu_8x_h100_sxm5", False, Decimal("2.9900")),
        ("Lambda", "gpu_1x_h100_pcie", False, Decimal("2.4900")),
        ("Lambda", "gpu_8x_a100_80gb_sxm4", False, Decimal("1.7900")),
    ]
    # Rows are numbered on across the archive's files (aws.csv has 8 lines).
    assert [row.row for row in rows][4:6] == [6, 10]


def test_the_committed_archive_is_built_from_the_documented_members():
    with zipfile.ZipFile(SAMPLES / SAMPLE_ZIP) as archive:
        committed = {name: archive.read(name).decode() for name in archive.namelist()}
        comment = archive.comment

    assert committed == sample_members()
    assert b"illustrative" in comment


def test_bad_rows_are_reported_with_their_line_field_and_message():
    feed = HEADER + (
        "a,us,abc,1,1,1,H100,80,False,,nvidia,,x86,{}\n"
        "b,us,-1,1,1,1,H100,80,False,,nvidia,,x86,{}\n"
        "c,us,1.0,1,1,x,H100,80,False,,nvidia,,x86,{}\n"
        "d,us,1.0,1,1,1,H100,80,maybe,,nvidia,,x86,{}\n"
        "e,,1.0,1,1,1,H100,80,False,,nvidia,,x86,{}\n"
        "f,us,1.0,1,1,1,H100,80,False\n"
        f"{'g' * 129},us,1.0,1,1,1,H100,80,False,,nvidia,,x86,{{}}\n"
    )

    rows = read(feed.encode())

    assert [(r.row, r.field, r.message) for r in rows if isinstance(r, RowError)] == [
        (2, "price", "is not a number (use a dot for decimals)"),
        (3, "price", "must be greater than zero"),
        (4, "gpu_count", "must be a whole number from 0 to 1024"),
        (5, "spot", "must be True or False"),
        (6, "location", "is missing"),
        (7, "row", "has 9 fields; the header has 14"),
        (8, "instance_name", "is longer than 128 characters"),
    ]


@pytest.mark.parametrize(
    ("data", "fmt", "message"),
    [
        (b"", "csv", "the CSV file is empty"),
        (b"instance_name,location,price\nx,y,1\n", "csv", "lacks gpuhunt's column(s) gpu_count"),
        (b"\xff\xfe" + HEADER.encode(), "csv", "not UTF-8"),
        (b"PK\x03\x04 not really a zip", "zip", "not a readable ZIP archive"),
        (zip_bytes({"../aws.csv": AWS_CSV}), "zip", "member 1 has a path in its name"),
        (zip_bytes({"dir/aws.csv": AWS_CSV}), "zip", "member 1 has a path in its name"),
        (zip_bytes({"README.txt": "x"}), "zip", "holds no provider CSV file"),
        (zip_bytes({"aws.csv": AWS_CSV, "AWS.csv": AWS_CSV}), "zip", "two files for provider"),
        (zip_bytes({"aws.csv": AWS_CSV, "gcp.csv": "nope\n"}), "zip", "gcp.csv line 1"),
        (zip_bytes({f"p{n}.csv": AWS_CSV for n in range(65)}), "zip", "has 65 members"),
    ],
)
def test_unreadable_feeds_raise_a_format_error_without_echoing_them(data, fmt, message):
    with pytest.raises(FeedFormatError, match=None) as raised:
        read(data, fmt)

    assert message in str(raised.value)
    assert "not really" not in str(raised.value)


def test_an_archive_larger_than_the_bound_uncompressed_is_refused():
    small = replace(spec("zip"), limits=FeedLimits(max_inflated_bytes=100))

    with pytest.raises(FeedLimitError, match="inflate to more than 100 bytes"):
        list(iter_cloud_offers(io.BytesIO(zip_bytes({"aws.csv": AWS_CSV})), small))


# --- Refresh runs ---------------------------------------------------------------------------------


def offers_source(location: str, fmt: str = "zip", name: str = "gpuhunt") -> PriceSource:
    return PriceSource.objects.create(
        name=name, kind="cloud_offers", location=location, format=fmt, currency="USD"
    )


def offers() -> list[tuple[str, str, str, Decimal, bool]]:
    return list(
        CloudOffer.objects.order_by("provider", "instance", "region", "spot").values_list(
            "provider", "instance", "region", "price_per_gpu_hour", "spot"
        )
    )


@pytest.mark.django_db
def test_a_run_records_the_sample_archive_offers_and_a_second_run_replaces_them():
    source = offers_source(SAMPLE_ZIP)

    first = refresh(source)
    after_first = offers()
    second = refresh(source)

    assert (first.status, first.rows_read, first.rows_changed, first.rows_rejected) == (
        RunStatus.APPLIED,
        12,
        12,
        0,
    )
    assert (second.status, second.rows_changed) == (RunStatus.APPLIED, 12)
    assert offers() == after_first  # the same offers, now the second run's
    assert set(CloudOffer.objects.values_list("run", flat=True)) == {second.pk}


@pytest.mark.django_db
def test_a_csv_source_names_its_offers_after_the_source():
    source = offers_source(SAMPLE_CSV, fmt="csv", name="Lambda")

    run = refresh(source)

    assert (run.status, run.rows_changed) == (RunStatus.APPLIED, 3)
    assert set(CloudOffer.objects.values_list("provider", flat=True)) == {"Lambda"}


@pytest.mark.django_db
@pytest.mark.usefixtures("outbound_allows_loopback")
@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (zip_bytes(sample_members() | {"gcp.csv": GCP_CSV + BAD_ROW}), None, None),
        (zip_bytes({"aws.csv": HEADER + BAD_ROW}),
         RunStatus.REJECTED, "have errors"),
        (zip_bytes({"aws.csv": HEADER}), RunStatus.REJECTED, "no rows"),
        (zip_bytes({"aws.csv": AWS_CSV})[:-40], RunStatus.REJECTED, "Unreadable feed: the feed"),
    ],
)  # fmt: skip
def test_a_bad_or_partial_feed_keeps_the_previous_offers(httpserver_ipv4, body, status, message):
    source = offers_source(SAMPLE_ZIP)
    refresh(source)
    before = offers()
    httpserver_ipv4.expect_request("/catalog.zip").respond_with_data(body)
    PriceSource.objects.filter(pk=source.pk).update(
        location=httpserver_ipv4.url_for("/catalog.zip")
    )

    run = refresh(source)

    if status is None:  # one bad row of 13 (under 10 %): applied, the bad row reported
        assert (run.status, run.rows_changed, run.rows_rejected) == (
            RunStatus.APPLIED_WITH_ERRORS,
            12,
            1,
        )
        # aws.csv has 8 lines; the bad row is gcp.csv's line 7.
        assert run.errors == [
            {
                "row": 15,
                "field": "price",
                "message": "is not a number (use a dot for decimals) (gcp.csv, line 7)",
                "value": "abc",
            }
        ]
        return
    assert run.status == status
    assert message in run.message
    assert offers() == before


# --- Cheapest offers and the data version -------------------------------------------------------


@pytest.mark.django_db
def test_the_cheapest_offers_per_gpu_hour_for_a_model():
    refresh(offers_source(SAMPLE_ZIP))

    on_demand = cheapest_cloud_offers(gpu_model="H100_SXM", currency="USD", spot=False)
    with_spot = cheapest_cloud_offers(gpu_model="H100_SXM", currency="USD", limit=2)

    assert [(o.provider, o.instance, o.region, o.price_per_gpu_hour) for o in on_demand] == [
        ("Lambda", "gpu_1x_h100_pcie", "us-west-1", Money(Decimal("2.4900"), "USD")),
        ("Lambda", "gpu_8x_h100_sxm5", "us-east-1", Money(Decimal("2.9900"), "USD")),
        ("AWS", "p5.48xlarge", "us-east-1", Money(Decimal("6.8800"), "USD")),
        ("AWS", "p5.48xlarge", "eu-west-1", Money(Decimal("7.6500"), "USD")),
        ("Google Cloud", "a3-highgpu-8g", "us-central1", Money(Decimal("11.0613"), "USD")),
    ]
    assert (on_demand[0].observed_on, on_demand[0].source_name, on_demand[0].gpu_count) == (
        timezone.localdate(),
        "gpuhunt",
        1,
    )
    assert [(o.provider, o.spot) for o in with_spot] == [("Lambda", False), ("AWS", True)]
    # Offers are published in USD: nothing is converted.
    assert cheapest_cloud_offers(gpu_model="H100_SXM", currency="EUR") == []


@pytest.mark.django_db
def test_a_run_changes_the_cloud_prices_version():
    versions_forget()
    before = cloud_prices_version_get()

    refresh(offers_source(SAMPLE_ZIP))

    assert cloud_prices_version_get() != before


# --- The TCO answer and the result page's market panel ------------------------------------------

TCO_CONFIGURATION = {
    "servers": 1,
    "gpus_per_server": 8,
    "gpu_model": "H100 SXM",
    "power_w": 10200,
    "price": "250000.00",
    "currency": "EUR",
    "rack_units": 8,
    "managed_monthly_price": "9000.00",
}
RESERVED_FEED = (
    "gpu_model,provider,commitment,price,gpu_count,currency,observed_on,source\n"
    "H100 SXM,Google Cloud,reserved_1y,7.67,1,EUR,2026-11-17,https://cloud.google.com\n"
    "H100 SXM,Google Cloud,reserved_3y,4.86,1,EUR,2026-11-17,https://cloud.google.com\n"
)


@pytest.mark.django_db
@pytest.mark.usefixtures("outbound_allows_loopback")
def test_the_tco_answer_lists_the_cheapest_on_demand_offers_and_reserved_price(
    client, httpserver_ipv4
):
    refresh(offers_source(SAMPLE_ZIP))
    httpserver_ipv4.expect_request("/reserved.csv").respond_with_data(RESERVED_FEED)
    PriceSource.objects.create(
        name="Reserved",
        kind="cloud",
        location=httpserver_ipv4.url_for("/reserved.csv"),
        format="csv",
        currency="EUR",
    )
    refresh(PriceSource.objects.get(name="Reserved"))
    versions_forget()

    body = client.post(
        reverse("api:tco"), {"configuration": TCO_CONFIGURATION}, content_type="application/json"
    ).json()

    # The answer is in EUR; the offers stay in USD as published.
    assert [
        (o["provider"], o["region"], o["price_per_gpu_hour"]) for o in body["market_offers"]
    ] == [
        ("Lambda", "us-west-1", "2.4900"),
        ("Lambda", "us-east-1", "2.9900"),
        ("AWS", "us-east-1", "6.8800"),
        ("AWS", "eu-west-1", "7.6500"),
        ("Google Cloud", "us-central1", "11.0613"),
    ]
    assert body["market_offers"][0] | {"observed_on": "day"} == {
        "provider": "Lambda",
        "instance": "gpu_1x_h100_pcie",
        "region": "us-west-1",
        "gpu_count": 1,
        "price_per_gpu_hour": "2.4900",
        "currency": "USD",
        "spot": False,
        "observed_on": "day",
        "source": "gpuhunt",
    }
    assert body["reserved_cloud_price"] == {
        "provider": "Google Cloud",
        "commitment": "reserved_3y",
        "price_per_gpu_hour": "4.8600",
        "currency": "EUR",
        "observed_on": "2026-11-17",
        "source": "https://cloud.google.com",
        "stale": False,
    }


@pytest.mark.django_db
def test_the_tco_answer_has_no_offers_before_any_run(client):
    body = client.post(
        reverse("api:tco"), {"configuration": TCO_CONFIGURATION}, content_type="application/json"
    ).json()

    assert (body["market_offers"], body["reserved_cloud_price"]) == ([], None)


def _panel(market):
    """The panel of a euro page, no ECB rate recorded (the built-in averages)."""
    return cloud_market_panel(market, gpu_name="H100 SXM", currency="EUR", rates=built_in_rates())


@pytest.mark.django_db
def test_the_market_panel_names_the_offers_with_their_date_and_source_folded():
    refresh(offers_source(SAMPLE_ZIP))
    CloudPrice.objects.create(
        gpu_model="H100_SXM",
        commitment="reserved_1y",
        provider="Google Cloud",
        price_per_gpu_hour=Decimal("7.67"),
        currency="EUR",
        observed_on=timezone.localdate(),
        source="https://cloud.google.com",
    )
    market = cloud_market_for_gpu_get(gpu_model="H100 SXM", currency="EUR")

    with translation.override("en"):
        html = render_to_string(
            "wizard/_market_offers.html",
            {"market": _panel(market)},
        )

    assert html.count('<tr><th scope="row">') == 5
    assert "Cheapest on-demand H100 SXM: Lambda, us-west-1, $2.49 per GPU-hour" in html
    # and in euros at the built-in ECB average: 2.49 / 1.0824 = 2.3004...
    assert "About €2.30 per GPU-hour." in html
    assert "in US dollars as published. In EUR at 1 EUR = 1.0824 USD (ECB euro reference" in html
    assert html.count('<td class="num">€') == 5  # each offer's euro column
    assert html.count("gpuhunt</td>") == 5
    assert "Cheapest reserved price: Google Cloud, 1 year, €7.67 per GPU-hour" in html
    assert '<details class="market-offers" id="market">' in html  # folded: no "open"


@pytest.mark.django_db
def test_no_market_panel_without_offers():
    market = cloud_market_for_gpu_get(gpu_model="H100 SXM", currency="EUR")

    assert _panel(market) is None
    assert cloud_market_for_gpu_get(gpu_model="T4", currency="USD") is None


@pytest.mark.django_db
def test_the_admin_lists_the_offers_read_only(admin_client):
    refresh(offers_source(SAMPLE_ZIP))

    listed = admin_client.get(reverse("admin:catalog_cloudoffer_changelist"))

    assert listed.status_code == 200
    assert listed.content.count(b"p5.48xlarge") == 3
    assert admin_client.get(reverse("admin:catalog_cloudoffer_add")).status_code == 403
