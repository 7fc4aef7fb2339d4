"""Eurostat's non-household electricity prices (dataset ``nrg_pc_205``) in JSON-stat 2.0.

Eurostat's dissemination API answers a dataset as one JSON-stat object: ``id`` names the
dimensions in order, ``size`` their number of categories, ``dimension[id].category.index`` the
position of each category code, and ``value`` the observations by flat index (row-major over
``size``; sparse: a missing observation is absent or null). nrg_pc_205's dimensions are ``freq``,
``siec`` (when present), ``nrg_cons`` (the consumption band), ``unit``, ``tax``, ``currency``,
``geo`` and ``time`` (semesters, ``2025-S1``).

One row per country: its LATEST semester with a value, in one cut chosen for a data centre:

- band ``MWH2000-19999`` (Eurostat's band ID, 2 to 20 GWh a year: a 0.25 to 2.3 MW average draw,
  a colocation hall with a few hundred GPU servers); failing that ``MWH20000-69999`` then
  ``MWH500-1999``, the first of them the feed has;
- ``X_VAT``: excluding VAT and other recoverable taxes, what a business pays in the end (it
  recovers VAT); in ``EUR`` per ``KWH``.

Aggregates (``EU27_2020``, ``EA``...) are skipped; Eurostat's ``EL`` and ``UK`` become ISO 3166's
``GR`` and ``GB``. A feed without these dimensions and categories raises ``FeedFormatError``; a
country whose latest value is not a price (not a number, not in 0-5 EUR/kWh) is a ``RowError``,
numbered by the country's position in the ``geo`` dimension (from 1). Pure Python.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from math import prod
from typing import Any, BinaryIO, TypeVar

from catalog.feeds.cells import shown
from catalog.feeds.parse import FeedSpec, JsonNumbers
from catalog.feeds.types import FeedFormat, FeedFormatError, FeedLimitError, FeedLimits, RowError

BANDS_PREFERRED = ("MWH2000-19999", "MWH20000-69999", "MWH500-1999")
TAX = "X_VAT"
UNIT = "KWH"
CURRENCY = "EUR"
# Dimensions read at one category each (a dimension not listed must have a single category).
FIXED = {"freq": "S", "siec": "E7000", "unit": UNIT, "tax": TAX, "currency": CURRENCY}
REQUIRED_DIMENSIONS = ("nrg_cons", "unit", "tax", "currency", "geo", "time")
COUNTRY_CODES = {"EL": "GR", "UK": "GB"}  # Eurostat's own codes -> ISO 3166-1 alpha-2
AGGREGATES = frozenset({"EA", "EU"})  # two letters, yet not countries
MAX_PRICE = Decimal(5)  # EUR/kWh: 0 < price < 5
PRICE_PLACES = 6  # as stored (and as a regional assumption's value)
# Bounds on the structure, checked before anything is built from it.
MAX_DIMENSIONS = 16
MAX_CATEGORIES = 5000
MAX_CODE_CHARS = 64
# Semesters from this year on are read (Eurostat's series start in the 1980s; a year 0 is no
# calendar year at all).
FIRST_YEAR = 1900
PERIOD = re.compile(r"^(\d{4})-S([12])$")
COUNTRY = re.compile(r"^[A-Z]{2}$")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ElectricityPriceRow:
    """A country's latest non-household price; ``row``: its position in ``geo`` (from 1)."""

    row: int
    country: str
    period: str
    band: str
    tax: str
    eur_per_kwh: Decimal


def electricity_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[ElectricityPriceRow | RowError]:
    """The countries' latest prices in a JSON-stat nrg_pc_205 feed, in ``geo`` order."""
    if spec.format != FeedFormat.JSON:
        raise FeedFormatError(f"Eurostat's electricity prices are read as JSON, not {spec.format}")
    dataset = _dataset_load(stream.read(), spec.limits)
    cube = _Cube.of(dataset, spec.limits)
    band = next((b for b in BANDS_PREFERRED if b in cube.codes["nrg_cons"]), None)
    if band is None:
        raise FeedFormatError(
            "the nrg_cons dimension has none of the consumption bands "
            f"{', '.join(BANDS_PREFERRED)}: ask Eurostat for one of them"
        )
    fixed = {name: code for name, code in FIXED.items() if name in cube.codes}
    fixed["nrg_cons"] = band
    for name, code in fixed.items():
        if code not in cube.codes[name]:
            raise FeedFormatError(f"the {name} dimension lacks the category {code}")
    periods = _periods_newest_first(cube.codes["time"], spec.today)
    values = _values(dataset.get("value"))
    yield from _country_rows(cube, fixed, periods, values, band)


def _dataset_load(data: bytes, limits: FeedLimits) -> Mapping[str, Any]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FeedFormatError(f"the feed is not UTF-8 text ({exc.reason})") from exc
    try:
        numbers = JsonNumbers(limits.json_max_number_chars)
        dataset = json.loads(
            text,
            parse_float=numbers.decimal,
            parse_int=numbers.integer,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise FeedFormatError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    except RecursionError as exc:
        raise FeedFormatError("the JSON is nested too deeply") from exc
    if not isinstance(dataset, dict) or dataset.get("class") != "dataset":
        raise FeedFormatError('a JSON-stat feed must be one object with "class": "dataset"')
    if dataset.get("version") != "2.0":
        raise FeedFormatError('only JSON-stat "version": "2.0" is read (Eurostat\'s API)')
    return dataset


def _no_constant(name: str) -> Any:
    raise FeedFormatError(f"the JSON has a {name} number")


@dataclass(frozen=True)
class _Cube:
    """The dimensions in order, their sizes, strides and category codes -> positions."""

    ids: tuple[str, ...]
    strides: tuple[int, ...]
    codes: Mapping[str, Mapping[str, int]]

    @classmethod
    def of(cls, dataset: Mapping[str, Any], limits: FeedLimits) -> _Cube:
        ids = _list_of(dataset.get("id"), str)
        sizes = _list_of(dataset.get("size"), int)
        if ids is None or sizes is None or len(ids) != len(sizes):
            raise FeedFormatError('"id" and "size" must be lists of the same length')
        if not 0 < len(ids) <= MAX_DIMENSIONS or len(set(ids)) != len(ids):
            raise FeedFormatError(f'"id" must name 1 to {MAX_DIMENSIONS} distinct dimensions')
        if any(not 0 < size <= MAX_CATEGORIES for size in sizes):
            raise FeedFormatError(f'each "size" must be 1 to {MAX_CATEGORIES} categories')
        if prod(sizes) > limits.jsonstat_max_cells:
            raise FeedLimitError(
                f"the dataset's dimensions span {prod(sizes):,} cells; at most "
                f"{limits.jsonstat_max_cells:,} are read (PRICE_FEED_JSONSTAT_MAX_CELLS)"
            )
        missing = [name for name in REQUIRED_DIMENSIONS if name not in ids]
        if missing:
            raise FeedFormatError(
                f"the dataset lacks the dimension(s) {', '.join(missing)}: is it nrg_pc_205?"
            )
        dimensions = dataset.get("dimension")
        if not isinstance(dimensions, dict):
            raise FeedFormatError('"dimension" must be an object')
        codes = {
            name: _category_index(dimensions.get(name), name, size)
            for name, size in zip(ids, sizes, strict=True)
        }
        for name, size in zip(ids, sizes, strict=True):
            if size > 1 and name not in FIXED and name not in ("nrg_cons", "geo", "time"):
                raise FeedFormatError(f"the {name} dimension must have one category only")
        strides = tuple(prod(sizes[position + 1 :]) for position in range(len(sizes)))
        return cls(tuple(ids), strides, codes)

    def flat_index(self, positions: Mapping[str, int]) -> int:
        """Row-major: each position times the product of the later dimensions' sizes."""
        return sum(
            positions.get(name, 0) * stride
            for name, stride in zip(self.ids, self.strides, strict=True)
        )


def _list_of(value: Any, kind: type[T]) -> list[T] | None:
    """``value`` if it is a list of ``kind`` (a bool is no number), else None."""
    if isinstance(value, list) and all(
        isinstance(item, kind) and not isinstance(item, bool) for item in value
    ):
        return value
    return None


def _category_index(dimension: Any, name: str, size: int) -> dict[str, int]:
    """A dimension's codes -> positions (JSON-stat allows an object or a list of codes)."""
    category = dimension.get("category") if isinstance(dimension, dict) else None
    index = category.get("index") if isinstance(category, dict) else None
    if isinstance(index, list):
        index = {code: position for position, code in enumerate(index)}
    if not isinstance(index, dict) or len(index) != size:
        raise FeedFormatError(f"the {name} dimension's category index must list {size} categories")
    for code, position in index.items():
        if len(code) > MAX_CODE_CHARS:
            raise FeedFormatError(f"a {name} code is longer than {MAX_CODE_CHARS} characters")
        if not isinstance(position, int) or isinstance(position, bool):
            raise FeedFormatError(f"the {name} dimension's positions must be whole numbers")
    if sorted(index.values()) != list(range(size)):
        raise FeedFormatError(f"the {name} dimension's positions must be 0 to {size - 1}")
    return index


def _periods_newest_first(times: Mapping[str, int], today: dt.date) -> list[tuple[str, int]]:
    """The semesters (code, position) that have started by ``today``, newest first."""
    started: list[tuple[tuple[int, int], str, int]] = []
    for position, code in enumerate(sorted(times, key=times.__getitem__), start=1):
        match = PERIOD.match(code)
        if match is None:
            raise FeedFormatError(
                f"time category {position} is not a semester (YYYY-S1 or YYYY-S2)"
            )
        year, half = int(match[1]), int(match[2])
        if year < FIRST_YEAR:
            raise FeedFormatError(
                f"time category {position} is in year {year}: semesters from {FIRST_YEAR} on "
                "are read"
            )
        if dt.date(year, 1 if half == 1 else 7, 1) <= today:
            started.append(((year, half), code, times[code]))
    return [(code, index) for _, code, index in sorted(started, reverse=True)]


def _values(raw: Any) -> Mapping[int, Any] | Sequence[Any]:
    """The observations: an object keyed by flat index (sparse) or a list (dense)."""
    if isinstance(raw, list):
        return raw
    if isinstance(raw, dict):
        return _SparseValues(raw)
    raise FeedFormatError('"value" must be an object or a list')


class _SparseValues(Mapping[int, Any]):
    """The sparse "value" object read by integer index (its keys are strings)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def __getitem__(self, index: int) -> Any:
        return self.raw[str(index)]

    def __iter__(self) -> Iterator[int]:
        return (int(key) for key in self.raw if key.isdigit())

    def __len__(self) -> int:
        return len(self.raw)


def _value_at(values: Mapping[int, Any] | Sequence[Any], index: int) -> Any:
    if isinstance(values, Mapping):
        return values.get(index)
    return values[index] if index < len(values) else None


def _country_rows(
    cube: _Cube,
    fixed: Mapping[str, str],
    periods: list[tuple[str, int]],
    values: Mapping[int, Any] | Sequence[Any],
    band: str,
) -> Iterator[ElectricityPriceRow | RowError]:
    base = {name: cube.codes[name][code] for name, code in fixed.items()}
    geo = cube.codes["geo"]
    seen: dict[str, int] = {}
    for code in sorted(geo, key=geo.__getitem__):
        number = geo[code] + 1
        country = COUNTRY_CODES.get(code, code)
        if COUNTRY.match(country) is None or country in AGGREGATES:
            continue
        latest = next(
            (
                (period, value)
                for period, time in periods
                if (
                    value := _value_at(
                        values, cube.flat_index(base | {"geo": geo[code], "time": time})
                    )
                )
                is not None
            ),
            None,
        )
        if latest is None:
            continue  # no value for this country: Eurostat publishes none yet
        first = seen.setdefault(country, number)
        if first != number:
            yield RowError(number, "geo", f"duplicates row {first} (same country)", code)
            continue
        price = _price(latest[1])
        if isinstance(price, str):
            yield RowError(number, "value", f"{latest[0]}: {price}", shown(latest[1]))
            continue
        yield ElectricityPriceRow(number, country, latest[0], band, TAX, price)


def _price(value: Any) -> Decimal | str:
    """The price in EUR/kWh, or why the value is not one."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        return "is not a number"
    amount = Decimal(value)
    if not amount.is_finite() or not 0 < amount < MAX_PRICE:
        return f"must be above 0 and below {MAX_PRICE} EUR/kWh"
    exponent = amount.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > PRICE_PLACES:
        return f"has more than {PRICE_PLACES} decimal places"
    return amount
