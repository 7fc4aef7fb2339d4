"""The European Central Bank's euro reference rates, in its ``eurofxref`` XML format.

The ECB publishes one file for the latest working day (``eurofxref-daily.xml``) and others for
several days (``eurofxref-hist-90d.xml``, ``eurofxref-hist.xml``), all in one structure::

    <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
                     xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
      <gesmes:subject>Reference rates</gesmes:subject>
      <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
      <Cube>
        <Cube time="2026-12-04">
          <Cube currency="USD" rate="1.0853"/>
          ...

A rate is units of ``currency`` per euro. One row per rate ``Cube``, numbered from 1 in feed
order. The file is streamed, never held whole: read in chunks of ``READ_CHUNK_BYTES``, checked to
be UTF-8, fed to defusedxml's expat parser, which refuses any DOCTYPE or ENTITY declaration
(entity expansion, external entities), and read by a parser target that builds no tree: it keeps
the day being read and, to report repeated rates, 3 characters per rate. Rows are yielded as
their day ends. A file deeper than ``limits.xml_max_depth`` elements, with more than
``limits.xml_max_nodes`` elements or larger than ``MAX_FEED_BYTES`` raises ``FeedLimitError``
where it passes the cap; a file that is not this structure raises ``FeedFormatError``; a rate
that is not usable is a ``RowError``. Pure Python.
"""

from __future__ import annotations

import codecs
import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import BinaryIO

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser, ParseError

from catalog.feeds.cells import shown
from catalog.feeds.parse import FeedSpec
from catalog.feeds.types import FeedFormat, FeedFormatError, FeedLimitError, FeedLimits, RowError

# The full history since 1999 is about 6 MB: a larger file is not the ECB's.
MAX_FEED_BYTES = 16 * 1024 * 1024
READ_CHUNK_BYTES = 64 * 1024
FEED_SLICE_BYTES = 16 * 1024
MAX_RATE = Decimal(100000)  # units per euro; the largest ECB rate (IDR) is about 17 000
RATE_PLACES = 6  # as stored (ExchangeRate.per_eur)
MAX_RATE_CHARS = 32
CURRENCY = re.compile(r"^[A-Z]{3}$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
NOT_KEPT = "   "  # a rate that is no row's first: nothing to report a repetition against


@dataclass(frozen=True, slots=True)
class ExchangeRateRow:
    """One reference rate: ``per_eur`` units of ``currency`` for one euro on ``rate_date``."""

    row: int
    currency: str
    per_eur: Decimal
    rate_date: dt.date


def exchange_rate_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[ExchangeRateRow | RowError]:
    """Every rate of an eurofxref file (one day or several), in feed order, streamed."""
    if spec.format != FeedFormat.XML:
        raise FeedFormatError(f"the ECB's reference rates are read as XML, not {spec.format}")
    reader = _EnvelopeReader(spec.today, spec.limits)
    # The encoding is forced: a document without a declaration in UTF-16 would otherwise be
    # decoded as such by expat, past every check made here on its bytes.
    parser = DefusedXMLParser(target=reader, encoding="utf-8", forbid_dtd=True)
    utf8 = codecs.getincrementaldecoder("utf-8")()
    size = 0
    first = True
    while True:
        chunk = stream.read(READ_CHUNK_BYTES)
        size += len(chunk)
        if size > MAX_FEED_BYTES:
            raise FeedLimitError(f"the feed is larger than {MAX_FEED_BYTES} bytes")
        if first:
            _declaration_check(chunk)
            chunk, first = chunk.removeprefix(b"\xef\xbb\xbf"), False
        _utf8_check(utf8, chunk, final=not chunk)
        if not chunk:
            break
        for start in range(0, len(chunk), FEED_SLICE_BYTES):  # rows leave as each slice is read
            _parse_step(parser.feed, chunk[start : start + FEED_SLICE_BYTES])
            yield from reader.take()
    _parse_step(parser.close)
    reader.finish()
    yield from reader.take()


def _declaration_check(head: bytes) -> None:
    declared = XML_ENCODING.match(head.removeprefix(b"\xef\xbb\xbf"))
    if declared and declared[1].lower() not in (b"utf-8", b"utf8"):
        raise FeedFormatError("the XML must be UTF-8 (like the ECB's files)")


def _utf8_check(decoder: codecs.IncrementalDecoder, chunk: bytes, *, final: bool) -> None:
    try:
        decoder.decode(chunk, final=final)
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the feed is not UTF-8 text ({exc.reason})") from exc
    if b"\x00" in chunk:  # valid UTF-8, never XML: what UTF-16 text looks like byte by byte
        raise FeedFormatError("the feed is not UTF-8 text (it has NUL bytes)")


def _parse_step(step: Callable[..., object], *args: bytes) -> None:
    try:
        step(*args)
    except DefusedXmlException as exc:
        raise FeedFormatError("the XML has a DOCTYPE or ENTITY declaration: refused") from exc
    except ParseError as exc:
        line, column = exc.position
        raise FeedFormatError(f"invalid XML at line {line}, column {column}") from exc


def _local_name(tag: str) -> str:
    """``{namespace}Cube`` -> ``Cube``."""
    return tag.rpartition("}")[2]


@dataclass
class _Day:
    time: str | None
    rate_date: dt.date | RowError
    first_row: int
    currencies: list[str] = field(default_factory=list)  # NOT_KEPT for a rate that is no first


class _EnvelopeReader:
    """An expat parser target: it follows the path of the element being read, counts elements and
    depth against the limits, and turns each day Cube into rows as it ends. No tree is built."""

    def __init__(self, today: dt.date, limits: FeedLimits) -> None:
        self.today, self.limits = today, limits
        self.path: list[str] = []
        self.nodes = 0
        self.outer = "none"  # none -> reading (the envelope's first Cube) -> read
        self.days = 0
        self.day: _Day | None = None
        self.number = 0
        self.ready: list[ExchangeRateRow | RowError] = []
        # The rates already read: per date, (first row, 3 characters per rate) of each day.
        self.kept: dict[dt.date, list[tuple[int, str]]] = {}

    def take(self) -> list[ExchangeRateRow | RowError]:
        ready, self.ready = self.ready, []
        return ready

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        self.nodes += 1
        if self.nodes > self.limits.xml_max_nodes:
            raise FeedLimitError(
                f"the XML has more than {self.limits.xml_max_nodes:,} elements "
                "(PRICE_FEED_XML_MAX_NODES)"
            )
        if len(self.path) >= self.limits.xml_max_depth:
            raise FeedLimitError(
                f"the XML nests elements more than {self.limits.xml_max_depth} deep "
                "(PRICE_FEED_XML_MAX_DEPTH)"
            )
        name = _local_name(tag)
        depth = len(self.path)
        self.path.append(name)
        if depth == 0 and name != "Envelope":
            raise FeedFormatError("not an ECB eurofxref file: the root must be gesmes:Envelope")
        if name != "Cube":
            return
        if depth == 1 and self.outer == "none":
            self.outer = "reading"
        elif depth == 2 and self.outer == "reading" and self.path[1] == "Cube":
            self.days += 1
            time = attrib.get("time")
            self.day = _Day(time, _rate_date(time, self.today), self.number + 1)
        elif depth == 3 and self.day is not None and self.path[2] == "Cube":
            self.number += 1
            self.ready.append(self._row(self.day, attrib.get("currency"), attrib.get("rate")))

    def end(self, tag: str) -> None:
        depth = len(self.path) - 1
        self.path.pop()
        if depth == 1 and self.outer == "reading":
            self.outer = "read"
        elif depth == 2 and self.day is not None:
            self._day_end(self.day)
            self.day = None

    def data(self, data: str) -> None:
        """Text between elements: the eurofxref format has none worth reading."""

    def close(self) -> None:
        """Called by the parser at the end of the document; ``finish`` checks what it held."""

    def finish(self) -> None:
        if self.outer == "none":
            raise FeedFormatError("not an ECB eurofxref file: the envelope has no Cube")
        if not self.days:
            raise FeedFormatError("the eurofxref file has no dated Cube (<Cube time=...>)")

    def _day_end(self, day: _Day) -> None:
        if not day.currencies:
            self.number += 1
            self.ready.append(RowError(self.number, "time", "has no rate", shown(day.time)))
        elif isinstance(day.rate_date, dt.date):
            self.kept.setdefault(day.rate_date, []).append((day.first_row, "".join(day.currencies)))

    def _first_row(self, day: _Day, currency: str) -> int | None:
        """The row that already gave ``currency``'s rate on the day's date, if any."""
        if not isinstance(day.rate_date, dt.date):
            return None
        earlier = [*self.kept.get(day.rate_date, []), (day.first_row, "".join(day.currencies))]
        for first_row, currencies in earlier:
            position = currencies.find(currency)
            while position != -1 and position % 3:
                position = currencies.find(currency, position + 1)
            if position != -1:
                return first_row + position // 3
        return None

    def _row(
        self, day: _Day, currency: str | None, raw_rate: str | None
    ) -> ExchangeRateRow | RowError:
        row = _rate_row(self.number, day.rate_date, currency, raw_rate)
        if isinstance(row, ExchangeRateRow):
            first = self._first_row(day, row.currency)
            if first is not None:
                message = f"duplicates row {first} (same currency and date)"
                row = RowError(row.row, "row", message)
        day.currencies.append(row.currency if isinstance(row, ExchangeRateRow) else NOT_KEPT)
        return row


def _rate_date(value: str | None, today: dt.date) -> dt.date | RowError:
    if value is None or not DAY.match(value):
        return RowError(0, "time", "is not a date (YYYY-MM-DD)", shown(value))
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return RowError(0, "time", "is not a date (YYYY-MM-DD)", shown(value))
    if day > today:
        return RowError(0, "time", f"is in the future (today is {today.isoformat()})", value)
    return day


def _rate_row(
    number: int, rate_date: dt.date | RowError, currency: str | None, raw_rate: str | None
) -> ExchangeRateRow | RowError:
    if isinstance(rate_date, RowError):
        return RowError(number, rate_date.field, rate_date.message, rate_date.value)
    if currency is None or not CURRENCY.match(currency):
        return RowError(number, "currency", "is not an ISO 4217 code", shown(currency))
    if currency == "EUR":
        return RowError(number, "currency", "a euro rate per euro is meaningless", currency)
    rate = _rate(raw_rate)
    if isinstance(rate, str):
        return RowError(number, "rate", rate, shown(raw_rate))
    return ExchangeRateRow(number, currency, rate, rate_date)


def _rate(value: str | None) -> Decimal | str:
    """The rate, or why it is not one."""
    if value is None or not value.strip():
        return "is missing"
    if len(value) > MAX_RATE_CHARS:
        return f"is longer than {MAX_RATE_CHARS} characters"
    try:
        rate = Decimal(value.strip())
    except InvalidOperation:
        return "is not a number (use a dot for decimals)"
    if not rate.is_finite() or not 0 < rate <= MAX_RATE:
        return f"must be above 0 and at most {MAX_RATE}"
    exponent = rate.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > RATE_PLACES:
        return f"has more than {RATE_PLACES} decimal places"
    return rate
