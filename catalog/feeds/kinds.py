"""How each kind of price source is read: the formats it comes in, the columns a staff member
may rename (``column_map``; none for a publisher's fixed format) and the function that streams
its rows. Writing the rows is ``catalog.services.feed_kinds``' job, kind by kind too.

A reader takes the feed's bytes and its ``FeedSpec`` and yields, in feed order, a row dataclass
per valid row and a ``RowError`` per bad one; a feed that cannot be read as a whole raises
``FeedFormatError``. Pure Python, like the rest of ``catalog.feeds``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from catalog.feeds.cloud_offers import iter_cloud_offers
from catalog.feeds.electricity import electricity_rows
from catalog.feeds.exchange_rates import exchange_rate_rows
from catalog.feeds.hosting_offers import hosting_offer_rows
from catalog.feeds.parse import CLOUD_FIELDS, PART_FIELDS, FeedSpec, column_map_errors, iter_rows
from catalog.feeds.types import FeedFormat, FeedFormatError, FeedKind

RowReader = Callable[[BinaryIO, FeedSpec], Iterator[Any]]


@dataclass(frozen=True)
class KindReader:
    formats: tuple[str, ...]
    columns: tuple[str, ...]  # () : the publisher's own format, nothing to rename
    rows: RowReader


READERS: dict[str, KindReader] = {
    FeedKind.SUPPLIER: KindReader((FeedFormat.CSV, FeedFormat.JSON), PART_FIELDS, iter_rows),
    FeedKind.HOSTING: KindReader((FeedFormat.CSV, FeedFormat.JSON), PART_FIELDS, iter_rows),
    FeedKind.CLOUD: KindReader((FeedFormat.CSV, FeedFormat.JSON), CLOUD_FIELDS, iter_rows),
    FeedKind.CLOUD_OFFERS: KindReader((FeedFormat.CSV, FeedFormat.ZIP), (), iter_cloud_offers),
    FeedKind.EXCHANGE_RATES: KindReader((FeedFormat.XML,), (), exchange_rate_rows),
    FeedKind.ELECTRICITY: KindReader((FeedFormat.JSON,), (), electricity_rows),
    FeedKind.HOSTING_OFFERS: KindReader((FeedFormat.CSV,), (), hosting_offer_rows),
}


def kind_formats(kind: str) -> tuple[str, ...]:
    """The formats a source of ``kind`` may have (none: no reader for it)."""
    reader = READERS.get(kind)
    return reader.formats if reader else ()


def kind_column_map_errors(kind: str, column_map: Mapping[str, Any]) -> list[str]:
    """What is wrong with a source's column mapping for its kind (empty when usable)."""
    reader = READERS.get(kind)
    if reader is None:
        return []
    if reader.columns:
        return column_map_errors(kind, column_map)
    if column_map:
        return ["this kind is read in its publisher's own format: leave the mapping empty"]
    return []


def kind_rows(stream: BinaryIO, spec: FeedSpec) -> Iterator[Any]:
    """The rows of a feed of ``spec.kind``."""
    reader = READERS.get(spec.kind)
    if reader is None:
        raise FeedFormatError(f"no reader for sources of kind {spec.kind!r}")
    return reader.rows(stream, spec)
