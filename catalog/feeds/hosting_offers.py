"""Read a file of dated managed-hosting offers in GPUQuote's reference format (the columns of
``gpu_hosting_offers.csv``), the market band's data (``engine.tco.market``).

One CSV row per public offer: the provider, the product, the GPU model as published, how many
GPUs, the price with its currency and billing period ("month", "hour", "hour (per GPU)" or
"hour (per 8-GPU node)"), the date it was seen, how sure the reading is, the price page and the
location. The hardware columns (CPU, RAM, storage, term, setup fee, what is included) are checked
for length and otherwise left out: the band needs the price only.

An offer the band leaves out (no full date, or "low" confidence: ``engine.tco.market.
offer_counts``, the one rule) is skipped, neither a row nor an error, as the reference data
always was. A bad row gives a ``RowError`` (row number, field, message; the value only for short
fields such as a price or a date, never free text); a file that cannot be read as a whole raises
``FeedFormatError``, whose message never quotes the file. Pure Python, like ``catalog.feeds``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import BinaryIO

from catalog.feeds.cells import CellError, shown
from catalog.feeds.parse import FeedSpec, price_cell
from catalog.feeds.types import FeedFormat, FeedFormatError, RowError
from engine.tco.market import CONFIDENCE_LEVELS, offer_counts, offer_seen_on

COLUMNS = (
    "provider",
    "product",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "cpu",
    "ram_gb",
    "storage",
    "price",
    "currency",
    "period",
    "term",
    "setup_fee",
    "includes",
    "location",
    "source_url",
    "date_seen",
    "confidence",
)
# Upper bounds, checked before a value is converted (the model's column sizes).
MAX_CELL_CHARS = 2000  # the columns not kept (``includes`` runs to a few hundred characters)
MAX_PROVIDER_CHARS = 100
MAX_PRODUCT_CHARS = 200
MAX_GPU_MODEL_CHARS = 128
MAX_LOCATION_CHARS = 200
MAX_URL_CHARS = 500
MAX_SHORT_CHARS = 32  # price, currency, period, confidence, GPU count
MAX_DATE_CHARS = 64  # "unknown (catalog v8 snapshot)", "2026-05 (month only)": no day, skipped
MAX_GPU_COUNT = 1024
PRICE_PLACES, PRICE_LIMIT = 4, Decimal(10) ** 8  # HostingOffer.price: 12 digits, 4 places
SHOWN_VALUE_CHARS = 40
# "hour", "month", "hour (per GPU)", "hour (per 8-GPU node)": the unit, and whether the price is
# for one GPU (else for the whole offer, node or server).
_PERIOD = re.compile(r"(?P<unit>month|hour)(?: \(per (?P<per>GPU|\d{1,4}-GPU (?:node|server))\))?")
_URL = re.compile(r"https?://[^\s\[\]<>\"']+")


@dataclass(frozen=True, slots=True)
class HostingOfferRow:
    """A valid offer the market band counts. ``row``: its CSV line (the header is line 1)."""

    row: int
    provider: str
    product: str
    gpu_model: str  # as published ("NVIDIA H100 80GB (PCIe)")
    gpu_count: int
    price: Decimal
    currency: str
    period: str  # "month" | "hour"
    price_per: str  # "offer" (all its GPUs) | "gpu"
    date_seen: dt.date
    confidence: str
    source_url: str  # the price page (the reference file's notes after it are left out)
    location: str


def hosting_offer_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[HostingOfferRow | RowError]:
    """Every offer of the file the band counts (a row) or a ``RowError``, in file order."""
    if spec.format != FeedFormat.CSV:
        raise FeedFormatError(f"hosting offers are read from CSV, not {spec.format!r}")
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    seen: dict[tuple[str, ...], int] = {}
    try:
        names = _header(next(reader, None))
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # a blank line
            number = reader.line_num
            if len(cells) != len(names):
                yield RowError(
                    number, "row", f"has {len(cells)} fields; the header has {len(names)}"
                )
                continue
            try:
                row = _offer(number, dict(zip(names, cells, strict=True)), spec)
                if row is not None:
                    _first_of_its_kind(row, seen)
            except CellError as bad:
                yield RowError(number, bad.field, bad.message, bad.value)
                continue
            if row is not None:
                yield row
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the file is not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:
        raise FeedFormatError(f"line {reader.line_num}: unreadable CSV ({exc})") from exc


def _header(header: list[str] | None) -> list[str]:
    if not header or not any(cell.strip() for cell in header):
        raise FeedFormatError("the file is empty: it needs the reference format's header line")
    names = [cell.strip() for cell in header]
    if len(set(names)) != len(names):
        raise FeedFormatError("line 1: two columns have the same name")
    missing = [column for column in COLUMNS if column not in names]
    if missing:
        raise FeedFormatError(f"line 1: the header lacks the column(s) {', '.join(missing)}")
    return names


def _offer(number: int, record: Mapping[str, str], spec: FeedSpec) -> HostingOfferRow | None:
    """The row's offer, None when the band leaves it out; ``CellError`` for a bad value."""
    for name, value in record.items():
        if len(value) > MAX_CELL_CHARS:
            raise CellError(name, f"is longer than {MAX_CELL_CHARS} characters")
    date_text = _text(record, "date_seen", MAX_DATE_CHARS, required=False)
    confidence = _short(record, "confidence").lower()
    if confidence not in CONFIDENCE_LEVELS:
        given = shown(record["confidence"].strip(), SHOWN_VALUE_CHARS)
        raise CellError("confidence", f"must be one of {', '.join(CONFIDENCE_LEVELS)}", given)
    seen_on = offer_seen_on(date_text)
    if seen_on is None or not offer_counts(seen_on=seen_on, confidence=confidence):
        return None
    if seen_on > spec.today + dt.timedelta(days=1):
        given = shown(date_text, SHOWN_VALUE_CHARS)
        raise CellError("date_seen", f"is in the future (today is {spec.today.isoformat()})", given)
    unit, price_per = _period(record)
    return HostingOfferRow(
        row=number,
        provider=_text(record, "provider", MAX_PROVIDER_CHARS, required=True),
        product=_text(record, "product", MAX_PRODUCT_CHARS, required=True),
        gpu_model=_text(record, "gpu_model", MAX_GPU_MODEL_CHARS, required=True),
        gpu_count=_gpu_count(record),
        price=_price(record),
        currency=_currency(record, spec),
        period=unit,
        price_per=price_per,
        date_seen=seen_on,
        confidence=confidence,
        source_url=_source_url(record),
        location=_text(record, "location", MAX_LOCATION_CHARS, required=False),
    )


def _short(record: Mapping[str, str], name: str) -> str:
    value = record[name].strip()
    if len(value) > MAX_SHORT_CHARS:
        raise CellError(name, f"is longer than {MAX_SHORT_CHARS} characters")
    return value


def _text(record: Mapping[str, str], name: str, limit: int, *, required: bool) -> str:
    value = record[name].strip()
    if required and not value:
        raise CellError(name, "is missing")
    if len(value) > limit:
        raise CellError(name, f"is longer than {limit} characters")
    return value


def _gpu_count(record: Mapping[str, str]) -> int:
    text = _short(record, "gpu_count")
    if not text.isdigit() or not 1 <= int(text) <= MAX_GPU_COUNT:
        raise CellError("gpu_count", f"must be a whole number from 1 to {MAX_GPU_COUNT}", text)
    return int(text)


def _price(record: Mapping[str, str]) -> Decimal:
    return price_cell(_short(record, "price"), "price", places=PRICE_PLACES, limit=PRICE_LIMIT)


def _currency(record: Mapping[str, str], spec: FeedSpec) -> str:
    code = _short(record, "currency").upper() or spec.default_currency
    if code not in spec.currencies:
        known = ", ".join(sorted(spec.currencies))
        raise CellError(
            "currency",
            f"is not a known currency (known: {known})",
            shown(code.strip(), SHOWN_VALUE_CHARS),
        )
    return code


def _period(record: Mapping[str, str]) -> tuple[str, str]:
    text = _short(record, "period")
    match = _PERIOD.fullmatch(text)
    if match is None:
        raise CellError(
            "period", 'must be "month" or "hour", optionally followed by "(per GPU)"', text
        )
    return match["unit"], "gpu" if match["per"] == "GPU" else "offer"


def _source_url(record: Mapping[str, str]) -> str:
    """The price page: the cell's first URL (the reference file notes how it was read after it)."""
    match = _URL.match(record["source_url"].strip())
    if match is None:
        raise CellError("source_url", "must start with the offer's http(s) price page")
    url = match.group()
    if len(url) > MAX_URL_CHARS:
        raise CellError("source_url", f"is longer than {MAX_URL_CHARS} characters")
    return url


def _first_of_its_kind(row: HostingOfferRow, seen: dict[tuple[str, ...], int]) -> None:
    key = (row.provider.lower(), row.product.lower(), row.gpu_model.lower(), row.currency)
    first = seen.setdefault(key, row.row)
    if first != row.row:
        raise CellError("row", f"repeats the offer of row {first} (provider, product, GPU)")
