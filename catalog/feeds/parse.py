"""Stream a CSV or JSON price feed into validated rows, one ``RowError`` per bad row.

Rows are read one at a time (CSV through ``csv.reader``; a JSON array item by item with
``json.JSONDecoder.raw_decode`` over a sliding buffer), so memory does not grow with the feed,
except for the keys kept to find duplicate rows. A row is numbered by its CSV line (the header is
line 1) or its position in the JSON array (from 1). A problem with the feed as a whole (not UTF-8,
invalid JSON, a required column missing) raises ``FeedFormatError``, whose message gives line
numbers, positions and the column names we expect, never the feed's own text (a location that
should not have been read must not be echoed back).

Columns (see docs/price-feeds.md); ``column_map`` renames them ({"sku": "Part number"}):
- supplier and hosting feeds: ``sku``, ``price``; optional ``currency``, ``observed_on``,
  ``source``;
- cloud feeds: ``gpu_model``, ``price``; optional ``gpu_count`` (the price is for that many GPUs),
  ``commitment``, ``provider``, ``currency``, ``observed_on``, ``source``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, BinaryIO

from catalog.feeds.cells import CellError, shown
from catalog.feeds.types import (
    CloudPriceRow,
    Commitment,
    FeedFormat,
    FeedFormatError,
    FeedKind,
    FeedLimitError,
    FeedLimits,
    PartPriceRow,
    RowError,
)
from engine.assumptions import gpu_model_key

PART_FIELDS = ("sku", "price", "currency", "observed_on", "source")
CLOUD_FIELDS = (
    "gpu_model",
    "price",
    "gpu_count",
    "commitment",
    "provider",
    "currency",
    "observed_on",
    "source",
)
REQUIRED = {FeedKind.SUPPLIER: ("sku", "price"), FeedKind.CLOUD: ("gpu_model", "price")}
REQUIRED[FeedKind.HOSTING] = REQUIRED[FeedKind.SUPPLIER]

# Part prices are stored in cents (Price.amount: 12 digits, 2 places); cloud prices per GPU-hour
# in ten-thousandths (CloudPrice.price_per_gpu_hour: 10 digits, 4 places).
PART_PLACES, PART_LIMIT = 2, Decimal(10) ** 10
CLOUD_PLACES, CLOUD_LIMIT = 4, Decimal(10) ** 6
MAX_SKU_CHARS = 64
MAX_TEXT_CHARS = 500
JSON_READ_CHARS = 64 * 1024
COMMITMENT_ALIASES = {
    "": Commitment.ON_DEMAND,
    "on_demand": Commitment.ON_DEMAND,
    "ondemand": Commitment.ON_DEMAND,
    "reserved_1y": Commitment.RESERVED_1Y,
    "1y": Commitment.RESERVED_1Y,
    "reserved_3y": Commitment.RESERVED_3Y,
    "3y": Commitment.RESERVED_3Y,
}


def feed_fields(kind: str) -> tuple[str, ...]:
    return CLOUD_FIELDS if kind == FeedKind.CLOUD else PART_FIELDS


def column_map_errors(kind: str, column_map: Mapping[str, Any]) -> list[str]:
    """What is wrong with a column mapping (empty when it is usable)."""
    if not isinstance(column_map, Mapping):
        return ["the column mapping must be an object: {field: column name}"]
    known = feed_fields(kind)
    problems = [
        f"unknown field {name!r} (fields: {', '.join(known)})"
        for name in column_map
        if name not in known
    ]
    problems += [
        f"{name!r} must map to a column name"
        for name, column in column_map.items()
        if not isinstance(column, str) or not column.strip()
    ]
    return problems


@dataclass(frozen=True)
class FeedSpec:
    """How to read one source's feed."""

    kind: str
    format: str
    default_currency: str
    currencies: frozenset[str]
    today: dt.date
    column_map: Mapping[str, str] = field(default_factory=dict)
    default_source: str = ""
    limits: FeedLimits = field(default_factory=FeedLimits)

    def column(self, name: str) -> str:
        return self.column_map.get(name, name)


FeedRow = PartPriceRow | CloudPriceRow | RowError


def iter_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[FeedRow]:
    """Every row of the feed, valid (a row dataclass) or not (a ``RowError``), in feed order."""
    problems = column_map_errors(spec.kind, spec.column_map)
    if problems:
        raise FeedFormatError("column mapping: " + "; ".join(problems))
    if spec.format == FeedFormat.CSV:
        records = _csv_records(stream, spec)
    elif spec.format == FeedFormat.JSON:
        records = _json_records(stream, spec.limits)
    else:
        raise FeedFormatError(f"unknown feed format {spec.format!r}")
    validate = _RowValidator(spec)
    for number, record in records:
        yield validate(number, record)


# ---------------------------------------------------------------------------------------------
# Records: (row number, {column: value}) or a RowError for a record that is not a row at all.
# ---------------------------------------------------------------------------------------------

Record = Mapping[str, Any] | RowError


def _csv_records(stream: BinaryIO, spec: FeedSpec) -> Iterator[tuple[int, Record]]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            raise FeedFormatError("the CSV feed is empty: it needs a header line")
        names = [cell.strip() for cell in header]
        repeated = _repeated_positions(names)
        if repeated:
            raise FeedFormatError(f"line 1: {repeated}")
        required = [spec.column(f) for f in REQUIRED[FeedKind(spec.kind)]]
        missing = [column for column in required if column not in names]
        if missing:
            raise FeedFormatError(
                f"line 1: the CSV header lacks required column(s) {', '.join(missing)}"
            )
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # blank line
            if len(cells) != len(names):
                yield (
                    reader.line_num,
                    RowError(
                        reader.line_num,
                        "row",
                        f"has {len(cells)} fields; the header has {len(names)}",
                    ),
                )
                continue
            yield reader.line_num, dict(zip(names, cells, strict=True))
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the feed is not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:
        raise FeedFormatError(f"line {reader.line_num}: unreadable CSV ({exc})") from exc


def _repeated_positions(names: list[str]) -> str:
    """'columns 3 and 4 have the same name' (1-based positions), or '' when names are unique."""
    groups: dict[str, list[int]] = {}
    for position, name in enumerate(names, start=1):
        groups.setdefault(name, []).append(position)
    problems = []
    for positions in groups.values():
        if len(positions) > 1:
            listed = ", ".join(map(str, positions[:-1])) + f" and {positions[-1]}"
            problems.append(f"columns {listed} have the same name")
    return "; ".join(problems)


@dataclass(frozen=True)
class JsonNumbers:
    """``json`` hooks (``parse_int=numbers.integer, parse_float=numbers.decimal``) that read
    numbers as int or Decimal, refusing one longer than ``max_chars`` before converting it
    (CPython converts a long integer in quadratic time, and refuses one over 4 300 digits with a
    ValueError)."""

    max_chars: int

    def integer(self, text: str) -> int:
        return int(self._bounded(text))

    def decimal(self, text: str) -> Decimal:
        return Decimal(self._bounded(text))

    def _bounded(self, text: str) -> str:
        if len(text) > self.max_chars:
            raise FeedLimitError(
                f"the JSON has a number of more than {self.max_chars} characters "
                "(PRICE_FEED_JSON_MAX_NUMBER_CHARS)"
            )
        return text


def _json_records(stream: BinaryIO, limits: FeedLimits) -> Iterator[tuple[int, Record]]:
    """Items of a top-level JSON array, decoded one at a time from a sliding text buffer."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig")
    numbers = JsonNumbers(limits.json_max_number_chars)
    decoder = json.JSONDecoder(
        parse_float=numbers.decimal, parse_int=numbers.integer, parse_constant=lambda name: name
    )
    buffer = _JsonBuffer(text)
    try:
        if buffer.next_char() != "[":
            raise FeedFormatError("a JSON feed must be an array of row objects: [{...}, ...]")
        buffer.pos += 1
        number = 0
        while True:
            char = buffer.next_char()
            if char == "]":
                buffer.pos += 1
                break
            if number:
                if char != ",":
                    raise FeedFormatError(f"invalid JSON after item {number}: expected , or ]")
                buffer.pos += 1
                buffer.next_char()
            item = buffer.decode(decoder, number + 1)
            number += 1
            if isinstance(item, dict):
                yield number, item
            else:
                yield number, RowError(number, "row", "is not an object", shown(item))
        if buffer.next_char() != "":
            raise FeedFormatError(f"unexpected data after the JSON array's {number} items")
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the feed is not UTF-8 text ({exc.reason})") from exc


class _JsonBuffer:
    def __init__(self, text: io.TextIOBase) -> None:
        self.text = text
        self.data = ""
        self.pos = 0
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.text.read(JSON_READ_CHARS)
        if not chunk:
            self.eof = True
            return False
        if self.pos > JSON_READ_CHARS:  # drop what has been decoded
            self.data, self.pos = self.data[self.pos :], 0
        self.data += chunk
        return True

    def next_char(self) -> str:
        """Skip whitespace; the next character, or "" at the end of the feed."""
        while True:
            while self.pos < len(self.data) and self.data[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.data):
                return self.data[self.pos]
            if not self._fill():
                return ""

    def decode(self, decoder: json.JSONDecoder, number: int) -> Any:
        while True:
            try:
                item, end = decoder.raw_decode(self.data, self.pos)
            except json.JSONDecodeError as exc:
                if self._fill():
                    continue  # the item may continue in the next chunk
                raise FeedFormatError(f"invalid JSON in item {number}: {exc.msg}") from exc
            if end >= len(self.data) and self._fill():
                continue  # a number may continue in the next chunk
            self.pos = end
            return item


# ---------------------------------------------------------------------------------------------
# Row validation
# ---------------------------------------------------------------------------------------------


def _text(value: Any, name: str, *, required: bool, limit: int = MAX_TEXT_CHARS) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str | int | Decimal) or isinstance(value, bool):
        raise CellError(name, "must be text", value)
    text = str(value).strip()
    if required and not text:
        raise CellError(name, "is missing", value)
    if len(text) > limit:
        raise CellError(name, f"is longer than {limit} characters", value)
    return text


def price_cell(value: Any, name: str, *, places: int, limit: Decimal) -> Decimal:
    """A price cell: a number above 0, below ``limit``, with at most ``places`` decimals (every
    feed format's one rule; ``CellError`` names what is wrong)."""
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        raise CellError(name, "is missing", "" if value is None else value)
    if isinstance(value, str):
        try:
            amount = Decimal(value.strip())
        except InvalidOperation:
            raise CellError(
                name, "is not a number (use a dot for decimals, no thousands separator)", value
            ) from None
    elif isinstance(value, int | Decimal):
        amount = Decimal(value)
    else:
        raise CellError(name, "is not a number", value)
    if not amount.is_finite():
        raise CellError(name, "is not a finite number", value)
    if amount < 0:
        raise CellError(name, "must not be negative", value)
    if amount == 0:
        raise CellError(name, "must be greater than zero", value)
    if amount >= limit:
        raise CellError(name, f"must be below {limit:,}", value)
    exponent = amount.normalize().as_tuple().exponent  # an int: the amount is finite
    if isinstance(exponent, int) and -exponent > places:
        raise CellError(name, f"has more than {places} decimal places", value)
    return amount


def _date(value: Any, name: str, today: dt.date) -> dt.date:
    text = _text(value, name, required=False, limit=32)
    if not text:
        return today
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise CellError(name, "is not a date (YYYY-MM-DD)", value) from None
    if day > today + dt.timedelta(days=1):
        raise CellError(name, f"is in the future (today is {today.isoformat()})", value)
    return day


class _RowValidator:
    """Turns one record into a row or a RowError; remembers keys to report duplicates."""

    def __init__(self, spec: FeedSpec) -> None:
        self.spec = spec
        self.seen: dict[tuple, int] = {}
        self.validate_one: Callable[[int, Mapping[str, Any]], PartPriceRow | CloudPriceRow] = (
            self._cloud if spec.kind == FeedKind.CLOUD else self._part
        )

    def __call__(self, number: int, record: Record) -> FeedRow:
        if isinstance(record, RowError):
            return record
        try:
            return self.validate_one(number, record)
        except CellError as exc:
            return exc.row_error(number)

    def _get(self, record: Mapping[str, Any], name: str) -> Any:
        return record.get(self.spec.column(name))

    def _currency(self, record: Mapping[str, Any]) -> str:
        raw = self._get(record, "currency")
        code = _text(raw, "currency", required=False, limit=8).upper() or self.spec.default_currency
        if code not in self.spec.currencies:
            known = ", ".join(sorted(self.spec.currencies))
            raise CellError("currency", f"unknown currency {code!r} (known: {known})", raw)
        return code

    def _first(self, key: tuple, number: int, what: str) -> None:
        first = self.seen.setdefault(key, number)
        if first != number:
            shown = " / ".join(map(str, key))
            raise CellError("row", f"duplicates row {first} (same {what})", shown)

    def _part(self, number: int, record: Mapping[str, Any]) -> PartPriceRow:
        sku = _text(self._get(record, "sku"), "sku", required=True, limit=MAX_SKU_CHARS)
        amount = price_cell(
            self._get(record, "price"), "price", places=PART_PLACES, limit=PART_LIMIT
        )
        currency = self._currency(record)
        observed_on = _date(self._get(record, "observed_on"), "observed_on", self.spec.today)
        source = _text(self._get(record, "source"), "source", required=False)
        self._first((sku, currency), number, "sku and currency")
        return PartPriceRow(
            row=number,
            sku=sku,
            amount=amount,
            currency=currency,
            observed_on=observed_on,
            source=source or self.spec.default_source,
        )

    def _cloud(self, number: int, record: Mapping[str, Any]) -> CloudPriceRow:
        name = _text(self._get(record, "gpu_model"), "gpu_model", required=True, limit=128)
        key = gpu_model_key(name)
        if key is None:
            raise CellError("gpu_model", "is not a GPU model known to the TCO tables", name)
        price = price_cell(
            self._get(record, "price"), "price", places=CLOUD_PLACES, limit=CLOUD_LIMIT
        )
        count = self._gpu_count(record)
        per_gpu = (price / count).quantize(Decimal(1).scaleb(-CLOUD_PLACES), ROUND_HALF_UP)
        raw_commitment = self._get(record, "commitment")
        word = _text(raw_commitment, "commitment", required=False, limit=32).lower()
        commitment = COMMITMENT_ALIASES.get(word.replace("-", "_").replace(" ", "_"))
        if commitment is None:
            choices = ", ".join(c.value for c in Commitment)
            raise CellError("commitment", f"must be one of {choices}", raw_commitment)
        provider = _text(self._get(record, "provider"), "provider", required=False, limit=64)
        currency = self._currency(record)
        observed_on = _date(self._get(record, "observed_on"), "observed_on", self.spec.today)
        source = _text(self._get(record, "source"), "source", required=False)
        self._first(
            (key, commitment.value, provider.lower(), currency),
            number,
            "GPU model, commitment, provider and currency",
        )
        return CloudPriceRow(
            row=number,
            gpu_model=key,
            commitment=commitment.value,
            provider=provider,
            price_per_gpu_hour=per_gpu,
            currency=currency,
            observed_on=observed_on,
            source=source or self.spec.default_source,
        )

    def _gpu_count(self, record: Mapping[str, Any]) -> int:
        raw = self._get(record, "gpu_count")
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return 1
        try:
            count = int(raw.strip() if isinstance(raw, str) else raw)
        except (TypeError, ValueError):
            raise CellError("gpu_count", "is not a whole number", raw) from None
        if isinstance(raw, bool | float) or not 1 <= count <= 1024:
            raise CellError("gpu_count", "must be a whole number from 1 to 1024", raw)
        return count
