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
order. The file is parsed with ``xml.etree.ElementTree`` only after its raw text was checked: a
DOCTYPE or ENTITY declaration (entity expansion, external entities) is refused before any parser
sees it, and so is a file larger than ``MAX_FEED_BYTES``. A file that is not this structure
raises ``FeedFormatError``; a rate that is not usable is a ``RowError``. Pure Python.
"""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import BinaryIO

from catalog.feeds.cells import shown
from catalog.feeds.parse import FeedSpec
from catalog.feeds.types import FeedFormat, FeedFormatError, RowError

# The full history since 1999 is about 6 MB: a larger file is not the ECB's.
MAX_FEED_BYTES = 16 * 1024 * 1024
MAX_RATE = Decimal(100000)  # units per euro; the largest ECB rate (IDR) is about 17 000
RATE_PLACES = 6  # as stored (ExchangeRate.per_eur)
MAX_RATE_CHARS = 32
CURRENCY = re.compile(r"^[A-Z]{3}$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Refused anywhere in the raw text: a document type declaration is what entity expansion
# ("billion laughs") and external entities need; the ECB's files have none.
DECLARATIONS = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


@dataclass(frozen=True, slots=True)
class ExchangeRateRow:
    """One reference rate: ``per_eur`` units of ``currency`` for one euro on ``rate_date``."""

    row: int
    currency: str
    per_eur: Decimal
    rate_date: dt.date


def exchange_rate_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[ExchangeRateRow | RowError]:
    """Every rate of an eurofxref file (one day or several), in feed order."""
    if spec.format != FeedFormat.XML:
        raise FeedFormatError(f"the ECB's reference rates are read as XML, not {spec.format}")
    days = _day_cubes(_envelope_parse(stream.read(MAX_FEED_BYTES + 1)))
    number = 0
    seen: dict[tuple[str, dt.date], int] = {}
    for day in days:
        rate_date = _rate_date(day.get("time"), spec.today)
        rates = [cube for cube in day if _local_name(cube.tag) == "Cube"]
        if not rates:
            number += 1
            yield RowError(number, "time", "has no rate", shown(day.get("time")))
            continue
        for cube in rates:
            number += 1
            yield _rate_row(number, cube, rate_date, seen)


def _envelope_parse(data: bytes) -> ET.Element:
    """The XML's root element, parsed only when the raw text is safe to give a parser."""
    if len(data) > MAX_FEED_BYTES:
        raise FeedFormatError(f"the feed is larger than {MAX_FEED_BYTES} bytes")
    if DECLARATIONS.search(data):
        raise FeedFormatError("the XML has a DOCTYPE or ENTITY declaration: refused")
    declared = XML_ENCODING.match(data.removeprefix(b"\xef\xbb\xbf"))
    if declared and declared[1].lower() not in (b"utf-8", b"utf8"):
        raise FeedFormatError("the XML must be UTF-8 (like the ECB's files)")
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the feed is not UTF-8 text ({exc.reason})") from exc
    try:
        root = ET.fromstring(data)  # noqa: S314 - no DTD (checked above), size bounded
    except ET.ParseError as exc:
        line, column = exc.position
        raise FeedFormatError(f"invalid XML at line {line}, column {column}") from exc
    if _local_name(root.tag) != "Envelope":
        raise FeedFormatError("not an ECB eurofxref file: the root must be gesmes:Envelope")
    return root


def _day_cubes(root: ET.Element) -> list[ET.Element]:
    outer = next((child for child in root if _local_name(child.tag) == "Cube"), None)
    if outer is None:
        raise FeedFormatError("not an ECB eurofxref file: the envelope has no Cube")
    days = [cube for cube in outer if _local_name(cube.tag) == "Cube"]
    if not days:
        raise FeedFormatError("the eurofxref file has no dated Cube (<Cube time=...>)")
    return days


def _local_name(tag: object) -> str:
    """``{namespace}Cube`` -> ``Cube`` (comments and processing instructions: "")."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


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
    number: int,
    cube: ET.Element,
    rate_date: dt.date | RowError,
    seen: dict[tuple[str, dt.date], int],
) -> ExchangeRateRow | RowError:
    if isinstance(rate_date, RowError):
        return RowError(number, rate_date.field, rate_date.message, rate_date.value)
    currency = cube.get("currency")
    if currency is None or not CURRENCY.match(currency):
        return RowError(number, "currency", "is not an ISO 4217 code", shown(currency))
    if currency == "EUR":
        return RowError(number, "currency", "a euro rate per euro is meaningless", currency)
    rate = _rate(cube.get("rate"))
    if isinstance(rate, str):
        return RowError(number, "rate", rate, shown(cube.get("rate")))
    first = seen.setdefault((currency, rate_date), number)
    if first != number:
        return RowError(number, "row", f"duplicates row {first} (same currency and date)")
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
