"""What a feed is made of: row dataclasses, row errors and feed-level errors."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class FeedKind(StrEnum):
    SUPPLIER = "supplier"  # purchase prices of parts
    HOSTING = "hosting"  # managed-hosting prices per month
    CLOUD = "cloud"  # cloud GPU prices per GPU-hour
    # Market data read in the publisher's own format (catalog.feeds.kinds):
    CLOUD_OFFERS = "cloud_offers"  # the providers' GPU offers, gpuhunt's catalog format
    EXCHANGE_RATES = "exchange_rates"  # the ECB's euro reference rates (eurofxref XML)
    ELECTRICITY = "electricity"  # Eurostat's non-household electricity prices (nrg_pc_205)
    HOSTING_OFFERS = "hosting_offers"  # dated managed-hosting offers (the market band)


class FeedFormat(StrEnum):
    CSV = "csv"
    JSON = "json"
    XML = "xml"
    ZIP = "zip"  # an archive of CSV files (gpuhunt's catalog)


class Commitment(StrEnum):
    ON_DEMAND = "on_demand"
    RESERVED_1Y = "reserved_1y"
    RESERVED_3Y = "reserved_3y"


@dataclass(frozen=True, slots=True)
class PartPriceRow:
    """A valid supplier or hosting row. ``row``: CSV line number or JSON item number."""

    row: int
    sku: str
    amount: Decimal
    currency: str
    observed_on: dt.date
    source: str


@dataclass(frozen=True, slots=True)
class CloudPriceRow:
    """A valid cloud row; ``gpu_model`` is the canonical key (``H100_SXM``)."""

    row: int
    gpu_model: str
    commitment: str
    provider: str
    price_per_gpu_hour: Decimal
    currency: str
    observed_on: dt.date
    source: str


@dataclass(frozen=True, slots=True)
class FeedLimits:
    """What reading one feed may cost, beyond its size in bytes (``FetchLimits.max_bytes``).

    The defaults are those of the PRICE_FEED_* settings (docs/settings.md), which the refresh
    service passes in; each bounds one way a small file can make a worker do a lot of work."""

    # A ZIP's CSV members: bytes once inflated, in all, and inflated bytes per compressed byte
    # (checked on each member that inflates past 1 MiB: catalog.feeds.cloud_offers).
    max_inflated_bytes: int = 50 * 1024 * 1024
    max_compression_ratio: int = 100
    # XML: element nesting and elements in all (the ECB's files are 4 deep; its full history
    # since 1999 has about 200 000 elements).
    xml_max_depth: int = 8
    xml_max_nodes: int = 500_000
    # JSON-stat: the cube's cells (the product of its dimensions' sizes). Any JSON feed: the
    # characters of one number (a 5 000-digit integer costs seconds to convert).
    jsonstat_max_cells: int = 1_000_000
    json_max_number_chars: int = 40


@dataclass(frozen=True, slots=True)
class RowError:
    """One rejected row: where, which field, why, and the offending value (shortened)."""

    row: int
    field: str
    message: str
    value: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"row": self.row, "field": self.field, "message": self.message, "value": self.value}

    def __str__(self) -> str:
        return f"row {self.row}, {self.field}: {self.message}"


class FeedError(Exception):
    """The feed as a whole could not be used; nothing from it is applied."""


class FeedFormatError(FeedError):
    """The feed cannot be read: not UTF-8, not CSV/JSON, a required column missing."""


class FeedFetchError(FeedError):
    """The feed cannot be fetched and retrying will not help (4xx, bad location)."""


class FeedTooLargeError(FeedFetchError):
    """The feed is larger than the configured size limit."""


class FeedLimitError(FeedError):
    """The feed goes past a safety cap (``FeedLimits``): refused whole, the message names the
    setting. Raised as soon as the cap is passed, before the rest of the feed is read."""


class FeedTemporaryError(FeedError):
    """A network error, a timeout or a 5xx answer: worth retrying later."""
