"""Malicious feed files: small files that make a refresh run do a lot of work (a ZIP bomb, a feed
of too many rows, XML entity expansion, deep or huge XML, JSON-stat with a huge integer, a year 0
or a huge cube).

Each attack file is served from the feed directory and refreshed through the service, as the
scheduler does; the run must end refused with a message naming the cap (or the refused
construct), with no row read or written and the source's earlier data untouched. What is asserted
is the work done (rows read and applied, archive members opened, cells looked up, bytes read,
memory allocated), never wall time. The caps are the PRICE_FEED_* settings (docs/settings.md).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest

from catalog.feeds import FeedSpec
from catalog.feeds import electricity as electricity_feed
from catalog.feeds.exchange_rates import READ_CHUNK_BYTES, ExchangeRateRow, exchange_rate_rows
from catalog.models import CloudOffer, ExchangeRate, PriceRefreshRun, PriceSource, RunStatus
from catalog.models.electricity import ElectricityPriceProposal
from catalog.services import feed_kinds, price_source_refresh

SAMPLES = Path(__file__).resolve().parents[2] / "catalog" / "feeds" / "samples"
OFFERS_HEADER = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,"
    "gpu_vendor,flags,cpu_arch,provider_data\n"
)
ECB_OPEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
    'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">'
    "<gesmes:subject>Reference rates</gesmes:subject><Cube>"
)
ECB_CLOSE = "</Cube></gesmes:Envelope>"
ECB_DAY = '<Cube time="2026-12-04"><Cube currency="USD" rate="1.0853"/></Cube>'


def h100_offer(region: str) -> str:
    return f"gpu_1x_h100_pcie,{region},2.49,26,200.0,1,H100,80.0,False,1000.0,nvidia,,x86,{{}}\n"


def cpu_only_offer() -> str:
    return "m5.large,us-east-1,0.096,2,8.0,0,,,False,100.0,,,x86,{}\n"


def zip_of(members: dict[str, str], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def ecb_feed(days: list[str]) -> str:
    return ECB_OPEN + "".join(days) + ECB_CLOSE


@pytest.fixture
def feed_dir(tmp_path, settings) -> Path:
    settings.PRICE_FEED_FILE_ROOT = tmp_path
    return tmp_path


def source_of(feed_dir: Path, name: str, data: bytes, *, kind: str, fmt: str) -> PriceSource:
    (feed_dir / name).write_bytes(data)
    currency = "USD" if kind == "cloud_offers" else "EUR"
    return PriceSource.objects.create(
        name=f"Attack {name}", kind=kind, location=name, format=fmt, currency=currency
    )


def refresh(source: PriceSource) -> PriceRefreshRun:
    run = price_source_refresh(source_id=source.pk)
    run.refresh_from_db()
    return run


def assert_nothing_read(run: PriceRefreshRun, status: str, *message_parts: str) -> None:
    assert run.status == status, run.message
    for part in message_parts:
        assert part in run.message
    assert "Nothing was applied" in run.message or status == RunStatus.REJECTED
    assert (run.rows_read, run.rows_changed, run.rows_rejected) == (0, 0, 0)


@pytest.fixture
def members_opened(monkeypatch) -> list[str]:
    """The names of the archive members zipfile was asked to inflate."""
    opened: list[str] = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            opened.append(getattr(name, "filename", name))
        return real_open(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    return opened


@pytest.fixture
def rows_applied(monkeypatch) -> list[int]:
    """The size of each chunk of valid rows handed to the cloud offers' applier."""
    sizes: list[int] = []
    real_apply = feed_kinds.APPLIERS["cloud_offers"]

    def spy(*, rows, **kwargs):
        sizes.append(len(rows))
        return real_apply(rows=rows, **kwargs)

    monkeypatch.setitem(feed_kinds.APPLIERS, "cloud_offers", spy)
    return sizes


# --- ZIP --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_zip_bomb_by_compression_ratio_is_refused_before_inflating(feed_dir, members_opened):
    """2 MB of CSV deflated to a few KB: the member is never opened."""
    bomb = OFFERS_HEADER + cpu_only_offer() * 40_000
    data = zip_of({"aws.csv": bomb})
    assert len(bomb) > 200 * len(data)
    source = source_of(feed_dir, "bomb.zip", data, kind="cloud_offers", fmt="zip")

    run = refresh(source)

    assert_nothing_read(
        run, RunStatus.FAILED, "aws.csv inflates", "PRICE_FEED_MAX_COMPRESSION_RATIO"
    )
    assert members_opened == []
    assert CloudOffer.objects.count() == 0


@pytest.mark.django_db
def test_zip_bomb_by_inflated_size_is_refused_before_inflating(feed_dir, settings, members_opened):
    """Stored (not compressed) members whose sizes add up past the cap, each harmless alone."""
    settings.PRICE_FEED_MAX_INFLATED_BYTES = 64 * 1024
    part = OFFERS_HEADER + "".join(h100_offer(f"region-{n}") for n in range(500))
    assert 32 * 1024 < len(part) < 64 * 1024
    data = zip_of({"aws.csv": part, "gcp.csv": part}, method=zipfile.ZIP_STORED)
    source = source_of(feed_dir, "big.zip", data, kind="cloud_offers", fmt="zip")

    run = refresh(source)

    assert_nothing_read(
        run, RunStatus.FAILED, "inflate to more than 65,536 bytes", "PRICE_FEED_MAX_INFLATED_BYTES"
    )
    assert members_opened == []
    assert CloudOffer.objects.count() == 0


# --- Rows per run ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_too_many_rows_per_run_fails_before_applying_and_keeps_the_earlier_offers(
    feed_dir, settings, rows_applied
):
    settings.PRICE_FEED_MAX_ROWS = 50
    good = OFFERS_HEADER + h100_offer("us-east-1") + h100_offer("us-west-1")
    source = source_of(feed_dir, "offers.csv", good.encode(), kind="cloud_offers", fmt="csv")
    assert refresh(source).status == RunStatus.APPLIED
    rows_applied.clear()
    many = OFFERS_HEADER + "".join(h100_offer(f"region-{n}") for n in range(5000))
    (feed_dir / "offers.csv").write_text(many)

    run = refresh(source)

    assert_nothing_read(run, RunStatus.FAILED, "more than 50 rows", "PRICE_FEED_MAX_ROWS")
    assert rows_applied == []  # the 51st row stopped the run before any chunk was written
    assert sorted(CloudOffer.objects.values_list("region", flat=True)) == [
        "us-east-1",
        "us-west-1",
    ]


# --- XML --------------------------------------------------------------------------------------

LAUGHS = (
    '<!DOCTYPE lolz [<!ENTITY lol "lolololololololololo">'
    + "".join(
        f'<!ENTITY lol{level} "{("&lol" + (str(level - 1) if level > 1 else "") + ";") * 10}">'
        for level in range(1, 6)
    )
    + "]>"
)
# The entity expands to 2 MB in the subject, which nothing reads: the rate would be applied.
LAUGHING_FEED = (
    ECB_OPEN.replace("Reference rates", "&lol5;").replace(
        "<gesmes:Envelope", LAUGHS + "<gesmes:Envelope"
    )
    + ECB_DAY
    + ECB_CLOSE
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("encoding", "message"),
    [
        ("utf-8", "the XML has a DOCTYPE or ENTITY declaration: refused"),
        # Without a byte order mark UTF-16 passes for UTF-8 byte by byte: expat would read it as
        # UTF-16 and expand the entities, unseen by any check made on the raw bytes.
        ("utf-16-le", "the feed is not UTF-8 text (it has NUL bytes)"),
    ],
)
def test_xml_billion_laughs_is_refused_unexpanded(feed_dir, encoding, message):
    data = LAUGHING_FEED.replace('encoding="UTF-8"', "").encode(encoding)
    source = source_of(feed_dir, "laughs.xml", data, kind="exchange_rates", fmt="xml")

    run = refresh(source)

    assert_nothing_read(run, RunStatus.REJECTED, message)
    assert "lol" not in run.message
    assert ExchangeRate.objects.count() == 0


@pytest.mark.django_db
def test_xml_too_deep_is_refused(feed_dir):
    """A good rate, then 10 000 nested elements inside its day."""
    deep = "<x>" * 10_000 + "</x>" * 10_000
    day = ECB_DAY.replace("/></Cube>", f"/>{deep}</Cube>")
    source = source_of(
        feed_dir, "deep.xml", ecb_feed([day]).encode(), kind="exchange_rates", fmt="xml"
    )

    run = refresh(source)

    assert_nothing_read(
        run, RunStatus.FAILED, "nests elements more than 8 deep", "PRICE_FEED_XML_MAX_DEPTH"
    )
    assert ExchangeRate.objects.count() == 0


def rates_of_days(days: int, currencies: int, start: dt.date = dt.date(2026, 12, 4)) -> list[str]:
    codes = [f"A{chr(65 + n // 26)}{chr(65 + n % 26)}" for n in range(currencies)]
    return [
        f'<Cube time="{start - dt.timedelta(days=day)}">'
        + "".join(f'<Cube currency="{code}" rate="1.2345"/>' for code in codes)
        + "</Cube>"
        for day in range(days)
    ]


@pytest.mark.django_db
def test_xml_too_many_nodes_is_refused(feed_dir, settings):
    settings.PRICE_FEED_XML_MAX_NODES = 1000
    feed = ecb_feed(rates_of_days(40, 30))  # 1 240 rate and day Cubes, all valid
    source = source_of(feed_dir, "many.xml", feed.encode(), kind="exchange_rates", fmt="xml")

    run = refresh(source)

    assert_nothing_read(
        run, RunStatus.FAILED, "more than 1,000 elements", "PRICE_FEED_XML_MAX_NODES"
    )
    assert ExchangeRate.objects.count() == 0


class _CountingStream(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.reads.append(len(chunk))
        return chunk


def test_big_xml_is_streamed_in_bounded_memory():
    """A 2.6 MB file of 72 000 valid rates (within every cap) is read 64 KB at a time, its first
    rate comes before the second chunk is read, and reading it all never allocates half its
    size (parsed whole with ElementTree it took 15 times its size)."""
    data = ecb_feed(rates_of_days(1800, 40)).encode()
    assert len(data) > 2_500_000
    stream = _CountingStream(data)
    spec = FeedSpec(
        kind="exchange_rates",
        format="xml",
        default_currency="EUR",
        currencies=frozenset({"EUR"}),
        today=dt.date(2026, 12, 5),
    )

    tracemalloc.start()
    try:
        rows = exchange_rate_rows(stream, spec)
        first = next(rows)
        read_before_first_row = sum(stream.reads)
        count = 1 + sum(1 for _ in rows)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert isinstance(first, ExchangeRateRow)
    assert count == 72_000
    assert read_before_first_row <= READ_CHUNK_BYTES
    assert max(stream.reads) <= READ_CHUNK_BYTES
    assert sum(stream.reads) == len(data)
    assert peak < len(data) // 2, peak


# --- JSON-stat ------------------------------------------------------------------------------------


def eurostat_sample() -> dict[str, Any]:
    return json.loads((SAMPLES / "eurostat-nrg_pc_205.json").read_text(encoding="utf-8"))


def electricity_source(feed_dir: Path, data: bytes) -> PriceSource:
    return source_of(feed_dir, "nrg_pc_205.json", data, kind="electricity", fmt="json")


@pytest.mark.django_db
def test_jsonstat_huge_integer_is_refused_unconverted(feed_dir):
    text = json.dumps(eurostat_sample()).replace('"8": 0.1876', '"8": ' + "9" * 5000)
    assert "9" * 5000 in text

    run = refresh(electricity_source(feed_dir, text.encode()))

    assert_nothing_read(
        run,
        RunStatus.FAILED,
        "a number of more than 40 characters",
        "PRICE_FEED_JSON_MAX_NUMBER_CHARS",
    )
    assert ElectricityPriceProposal.objects.count() == 0


@pytest.mark.django_db
def test_jsonstat_year_zero_is_refused_as_unreadable(feed_dir):
    dataset = eurostat_sample()
    dataset["dimension"]["time"]["category"]["index"] = {"0000-S1": 0, "2024-S2": 1, "2025-S1": 2}

    run = refresh(electricity_source(feed_dir, json.dumps(dataset).encode()))

    assert_nothing_read(
        run, RunStatus.REJECTED, "time category 1 is in year 0: semesters from 1900 on are read"
    )
    assert ElectricityPriceProposal.objects.count() == 0


@pytest.mark.django_db
def test_jsonstat_dimension_product_too_large_is_refused_before_any_lookup(feed_dir, monkeypatch):
    """676 countries x 4 050 semesters, every cell empty: each country's scan for its latest
    value would look up every semester."""
    lookups: list[int] = []
    real_value_at = electricity_feed._value_at

    def value_at(values: Any, index: int) -> Any:
        lookups.append(index)
        return real_value_at(values, index)

    monkeypatch.setattr(electricity_feed, "_value_at", value_at)
    dataset = eurostat_sample()
    countries = [chr(65 + n // 26) + chr(65 + n % 26) for n in range(676)]
    semesters = [f"{1900 + n // 2}-S{1 + n % 2}" for n in range(4050)]
    dataset["size"][6:8] = [len(countries), len(semesters)]
    dataset["dimension"]["geo"]["category"]["index"] = {code: n for n, code in enumerate(countries)}
    dataset["dimension"]["time"]["category"]["index"] = {
        code: n for n, code in enumerate(semesters)
    }
    dataset["value"] = {}

    run = refresh(electricity_source(feed_dir, json.dumps(dataset).encode()))

    assert_nothing_read(
        run,
        RunStatus.FAILED,
        "span 2,737,800 cells; at most 1,000,000 are read",
        "PRICE_FEED_JSONSTAT_MAX_CELLS",
    )
    assert lookups == []
    assert ElectricityPriceProposal.objects.count() == 0
