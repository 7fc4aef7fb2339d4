"""The ECB's euro reference rates: the eurofxref reader, applying a feed, the dated-rate selector
and the command that declares the ECB source.

The samples (catalog/feeds/samples/ecb-eurofxref-*.xml) have the ECB's exact structure with
illustrative rates (USD 1.0853 on 2026-12-04), not published figures.
"""

import datetime as dt
import io
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.urls import reverse

from catalog.feeds import FeedFormatError, FeedLimitError, FeedSpec, RowError
from catalog.feeds.exchange_rates import ExchangeRateRow, exchange_rate_rows
from catalog.feeds.kinds import kind_formats
from catalog.models import ExchangeRate, PriceRefreshRun, PriceSource, RunStatus
from catalog.selectors.exchange_rates import exchange_rate_get
from catalog.services import price_source_refresh
from engine.commerce.exchange import DatedRate

SAMPLES = Path(django_settings.BASE_DIR) / "catalog" / "feeds" / "samples"
TODAY = dt.date(2026, 12, 5)
DAY = dt.date(2026, 12, 4)
ENVELOPE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
    'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">'
    "<gesmes:subject>Reference rates</gesmes:subject><Cube>{days}</Cube></gesmes:Envelope>"
)


def spec(feed_format: str = "xml") -> FeedSpec:
    return FeedSpec(
        kind="exchange_rates",
        format=feed_format,
        default_currency="EUR",
        currencies=frozenset({"EUR", "USD"}),
        today=TODAY,
    )


def rows_of(data: bytes) -> list[ExchangeRateRow | RowError]:
    return list(exchange_rate_rows(io.BytesIO(data), spec()))


def feed(days: str) -> bytes:
    return ENVELOPE.format(days=days).encode()


# --- The reader ------------------------------------------------------------------------------


def test_the_daily_sample_reads_one_rate_per_currency_for_one_day():
    rows = rows_of((SAMPLES / "ecb-eurofxref-daily.xml").read_bytes())

    assert all(isinstance(row, ExchangeRateRow) for row in rows)
    assert len(rows) == 29
    assert rows[0] == ExchangeRateRow(1, "USD", Decimal("1.0853"), DAY)
    assert {row.rate_date for row in rows if isinstance(row, ExchangeRateRow)} == {DAY}
    by_currency = {row.currency: row.per_eur for row in rows if isinstance(row, ExchangeRateRow)}
    assert by_currency["GBP"] == Decimal("0.84215")
    assert by_currency["IDR"] == Decimal("17654.32")


def test_the_90_day_sample_reads_every_day():
    rows = rows_of((SAMPLES / "ecb-eurofxref-hist-90d.xml").read_bytes())

    usd = [
        (row.rate_date, row.per_eur)
        for row in rows
        if isinstance(row, ExchangeRateRow) and row.currency == "USD"
    ]
    assert len(rows) == 87
    assert usd == [
        (DAY, Decimal("1.0853")),
        (dt.date(2026, 12, 3), Decimal("1.0876")),
        (dt.date(2026, 12, 2), Decimal("1.0839")),
    ]


@pytest.mark.parametrize(
    ("cube", "field", "message"),
    [
        ("<Cube currency='usd' rate='1.08'/>", "currency", "is not an ISO 4217 code"),
        ("<Cube rate='1.08'/>", "currency", "is not an ISO 4217 code"),
        ("<Cube currency='EUR' rate='1'/>", "currency", "a euro rate per euro is meaningless"),
        ("<Cube currency='USD'/>", "rate", "is missing"),
        ("<Cube currency='USD' rate='1,08'/>", "rate", "is not a number (use a dot for decimals)"),
        ("<Cube currency='USD' rate='0'/>", "rate", "must be above 0 and at most 100000"),
        ("<Cube currency='USD' rate='-1.2'/>", "rate", "must be above 0 and at most 100000"),
        ("<Cube currency='USD' rate='100000.01'/>", "rate", "must be above 0 and at most 100000"),
        ("<Cube currency='USD' rate='NaN'/>", "rate", "must be above 0 and at most 100000"),
        ("<Cube currency='USD' rate='1.0000001'/>", "rate", "has more than 6 decimal places"),
        ("<Cube currency='USD' rate='" + "1" * 40 + "'/>", "rate", "is longer than 32 characters"),
    ],
)
def test_a_bad_rate_is_a_row_error_and_the_others_are_read(cube, field, message):
    rows = rows_of(
        feed(f"<Cube time='2026-12-04'>{cube}<Cube currency='GBP' rate='0.84215'/></Cube>")
    )

    assert [(row.row, row.field, row.message) for row in rows if isinstance(row, RowError)] == [
        (1, field, message)
    ]
    assert rows[1] == ExchangeRateRow(2, "GBP", Decimal("0.84215"), DAY)


@pytest.mark.parametrize(
    ("time", "message"),
    [
        ("2026-12-06", "is in the future (today is 2026-12-05)"),
        ("2026-13-01", "is not a date (YYYY-MM-DD)"),
        ("04.12.2026", "is not a date (YYYY-MM-DD)"),
    ],
)
def test_a_bad_day_makes_each_of_its_rates_a_row_error(time, message):
    rows = rows_of(
        feed(
            f"<Cube time='{time}'><Cube currency='USD' rate='1.08'/>"
            "<Cube currency='GBP' rate='0.84'/></Cube>"
            "<Cube time='2026-12-03'><Cube currency='USD' rate='1.07'/></Cube>"
        )
    )

    assert [(row.row, row.field, row.message) for row in rows if isinstance(row, RowError)] == [
        (1, "time", message),
        (2, "time", message),
    ]
    assert rows[2] == ExchangeRateRow(3, "USD", Decimal("1.07"), dt.date(2026, 12, 3))


def test_a_repeated_currency_on_a_day_is_a_row_error():
    rows = rows_of(
        feed(
            "<Cube time='2026-12-04'><Cube currency='USD' rate='1.08'/>"
            "<Cube currency='USD' rate='1.09'/></Cube>"
        )
    )

    assert rows[1] == RowError(2, "row", "duplicates row 1 (same currency and date)")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "invalid XML at line 1, column 0"),
        (b"date,USD\n2026-12-04,1.08\n", "invalid XML at line 1, column 0"),
        (b"<Envelope><b></Envelope>", "invalid XML at line 1, column 15"),
        (b"<html><body/></html>", "root must be gesmes:Envelope"),
        (
            b'<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"/>',
            "the envelope has no Cube",
        ),
        (feed(""), "no dated Cube"),
        (b"\xff\xfe<\x00a\x00/\x00>\x00", "not UTF-8"),
        (b'<?xml version="1.0" encoding="UTF-16"?><a/>', "must be UTF-8"),
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            b'<!ENTITY lol2 "&lol;&lol;">]><gesmes:Envelope>&lol2;</gesmes:Envelope>',
            "DOCTYPE or ENTITY declaration",
        ),
        (
            b'<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>',
            "DOCTYPE or ENTITY declaration",
        ),
    ],
)
def test_an_unreadable_file_raises_a_format_error_without_echoing_it(data, message):
    with pytest.raises(FeedFormatError, match=message) as raised:
        rows_of(data)

    assert "passwd" not in str(raised.value)
    assert "lol" not in str(raised.value)


def test_a_file_over_the_size_bound_is_refused_before_parsing(monkeypatch):
    monkeypatch.setattr("catalog.feeds.exchange_rates.MAX_FEED_BYTES", 100)

    with pytest.raises(FeedLimitError, match="larger than 100 bytes"):
        rows_of((SAMPLES / "ecb-eurofxref-daily.xml").read_bytes())


def test_only_xml_is_read():
    with pytest.raises(FeedFormatError, match="read as XML, not csv"):
        list(exchange_rate_rows(io.BytesIO(b"x"), spec("csv")))


# --- Applying a feed -------------------------------------------------------------------------


def ecb_source(location: str = "ecb-eurofxref-daily.xml") -> PriceSource:
    return PriceSource.objects.create(
        name="ECB euro reference rates",
        kind="exchange_rates",
        location=location,
        format="xml",
        currency="EUR",
        schedule="30 16 * * 1-5",
    )


def refreshed(source: PriceSource) -> PriceRefreshRun:
    run = price_source_refresh(source_id=source.pk)
    run.refresh_from_db()
    return run


def rates_recorded() -> list[tuple[str, Decimal, dt.date]]:
    return list(
        ExchangeRate.objects.order_by("rate_date", "currency").values_list(
            "currency", "per_eur", "rate_date"
        )
    )


@pytest.mark.django_db
def test_the_daily_sample_applies_and_twice_changes_nothing():
    source = ecb_source()

    first = refreshed(source)
    recorded = rates_recorded()
    second = refreshed(source)

    assert (first.status, first.rows_read, first.rows_changed, first.rows_rejected) == (
        RunStatus.APPLIED,
        29,
        29,
        0,
    )
    assert ("USD", Decimal("1.085300"), DAY) in recorded
    assert (second.status, second.rows_changed, second.rows_unchanged) == (RunStatus.APPLIED, 0, 29)
    assert rates_recorded() == recorded
    assert ExchangeRate.objects.filter(run=first).count() == 29


@pytest.mark.django_db
def test_the_90_day_sample_adds_the_days_the_daily_one_lacks():
    refreshed(ecb_source())
    source = PriceSource.objects.get()
    source.location = "ecb-eurofxref-hist-90d.xml"
    source.save()

    run = refreshed(source)

    assert (run.rows_read, run.rows_changed, run.rows_unchanged) == (87, 58, 29)
    assert ExchangeRate.objects.count() == 87


@pytest.mark.django_db
def test_a_corrected_rate_replaces_the_days_rate(settings, tmp_path):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    (tmp_path / "ecb.xml").write_bytes(
        feed("<Cube time='2026-12-04'><Cube currency='USD' rate='1.0853'/></Cube>")
    )
    source = ecb_source("ecb.xml")
    refreshed(source)
    (tmp_path / "ecb.xml").write_bytes(
        feed("<Cube time='2026-12-04'><Cube currency='USD' rate='1.0855'/></Cube>")
    )

    run = refreshed(source)

    assert (run.status, run.rows_changed, run.rows_unchanged) == (RunStatus.APPLIED, 1, 0)
    assert rates_recorded() == [("USD", Decimal("1.085500"), DAY)]
    assert ExchangeRate.objects.get().run == run


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"<gesmes:Envelope", RunStatus.REJECTED, "Unreadable feed: invalid XML"),
        (b"<!DOCTYPE x [<!ENTITY a 'b'>]><x/>", RunStatus.REJECTED, "DOCTYPE or ENTITY"),
        (feed(""), RunStatus.REJECTED, "no dated Cube"),
    ],
)
def test_a_malformed_or_truncated_file_applies_nothing(settings, tmp_path, body, status, message):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    (tmp_path / "ecb.xml").write_bytes(
        feed("<Cube time='2026-12-03'><Cube currency='USD' rate='1.07'/></Cube>")
    )
    source = ecb_source("ecb.xml")
    refreshed(source)
    before = rates_recorded()
    (tmp_path / "ecb.xml").write_bytes(body)

    run = refreshed(source)

    assert run.status == status
    assert message in run.message
    assert rates_recorded() == before


@pytest.mark.django_db
def test_a_file_cut_short_mid_day_applies_nothing(settings, tmp_path):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    whole = (SAMPLES / "ecb-eurofxref-hist-90d.xml").read_bytes()
    (tmp_path / "ecb.xml").write_bytes(whole[: len(whole) // 2])

    run = refreshed(ecb_source("ecb.xml"))

    assert run.status == RunStatus.REJECTED
    assert "invalid XML" in run.message
    assert ExchangeRate.objects.count() == 0


@pytest.mark.django_db
def test_a_file_with_too_many_bad_rates_is_rejected_whole(settings, tmp_path):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    (tmp_path / "ecb.xml").write_bytes(
        feed(
            "<Cube time='2026-12-04'><Cube currency='USD' rate='1.08'/>"
            "<Cube currency='GBP' rate='zero'/></Cube>"
        )
    )

    run = refreshed(ecb_source("ecb.xml"))

    assert (run.status, run.rows_read, run.rows_rejected) == (RunStatus.REJECTED, 2, 1)
    assert run.errors == [
        {
            "row": 2,
            "field": "rate",
            "message": "is not a number (use a dot for decimals)",
            "value": "zero",
        }
    ]
    assert ExchangeRate.objects.count() == 0


# --- The selector ----------------------------------------------------------------------------


def rate_of(currency: str, on: dt.date) -> DatedRate:
    rate = exchange_rate_get(currency=currency, on=on)
    assert rate is not None
    return rate


@pytest.mark.django_db
def test_the_rate_of_a_day_is_the_latest_on_or_before_it():
    source = ecb_source("ecb-eurofxref-hist-90d.xml")
    refreshed(source)

    assert exchange_rate_get(currency="USD", on=dt.date(2026, 12, 3)) == DatedRate(
        "USD", Decimal("1.087600"), dt.date(2026, 12, 3), "ECB euro reference rate of 2026-12-03"
    )
    # A weekend or holiday: the last working day's rate.
    assert rate_of("USD", dt.date(2026, 12, 6)).rate_date == DAY
    assert exchange_rate_get(currency="USD", on=dt.date(2026, 12, 1)) is None
    assert rate_of("CHF", DAY).per_eur == Decimal("0.9387")
    assert exchange_rate_get(currency="EUR", on=DAY) is None
    assert exchange_rate_get(currency="XAU", on=DAY) is None


@pytest.mark.django_db
def test_a_new_rate_is_seen_at_once_by_the_process_that_applied_it(settings, tmp_path):
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    settings.DATA_VERSION_MS = 60_000
    (tmp_path / "ecb.xml").write_bytes(
        feed("<Cube time='2026-12-03'><Cube currency='USD' rate='1.07'/></Cube>")
    )
    source = ecb_source("ecb.xml")
    refreshed(source)
    assert rate_of("USD", DAY).per_eur == Decimal("1.07")
    (tmp_path / "ecb.xml").write_bytes(
        feed("<Cube time='2026-12-04'><Cube currency='USD' rate='1.08'/></Cube>")
    )

    refreshed(source)

    assert rate_of("USD", DAY).per_eur == Decimal("1.08")


# --- The command declaring the ECB source ----------------------------------------------------


@pytest.mark.django_db
def test_load_market_sources_declares_the_ecb_source_once():
    out = io.StringIO()
    call_command("load_market_sources", stdout=out)
    call_command("load_market_sources", stdout=out)

    source = PriceSource.objects.get(kind="exchange_rates")
    assert (source.location, source.format, source.schedule, source.enabled) == (
        "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
        "xml",
        "30 16 * * 1-5",
        True,
    )
    assert "created" in out.getvalue()
    assert "already declared" in out.getvalue()
    # Every declared source is one its kind can read, on a schedule beat accepts.
    for declared in PriceSource.objects.all():
        assert declared.format in kind_formats(declared.kind), declared.name
        assert declared.periodic_task is not None, declared.name
    assert PriceSource.objects.filter(kind="electricity").count() == 1


# --- The admin -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_lists_the_rates_read_only(client, staff_user):
    refreshed(ecb_source())
    client.force_login(staff_user)
    rate = ExchangeRate.objects.get(currency="USD")

    listing = client.get(reverse("admin:catalog_exchangerate_changelist"), {"q": "USD"})
    change = client.get(reverse("admin:catalog_exchangerate_change", args=[rate.pk]))
    add = client.get(reverse("admin:catalog_exchangerate_add"))

    assert listing.status_code == 200
    assert "1.085300" in listing.content.decode()
    assert change.status_code == 200
    assert "Save" not in change.content.decode()
    assert add.status_code == 403
