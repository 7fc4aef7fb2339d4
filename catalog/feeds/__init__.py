"""Price feeds: fetching and parsing supplier, hosting and cloud price lists.

Pure Python (no Django import; a test guards it): ``fetch`` opens a feed from an http(s) URL or a
file with timeouts and a size limit, ``parse`` streams CSV or JSON rows into frozen dataclasses and
validates every row. Writing the rows to the database is ``catalog.services``' job.
"""

from catalog.feeds.fetch import FetchLimits, feed_open
from catalog.feeds.parse import FeedSpec, iter_rows
from catalog.feeds.types import (
    CloudPriceRow,
    Commitment,
    FeedError,
    FeedFetchError,
    FeedFormat,
    FeedFormatError,
    FeedKind,
    FeedLimitError,
    FeedLimits,
    FeedTemporaryError,
    FeedTooLargeError,
    PartPriceRow,
    RowError,
)

__all__ = [
    "CloudPriceRow",
    "Commitment",
    "FeedError",
    "FeedFetchError",
    "FeedFormat",
    "FeedFormatError",
    "FeedKind",
    "FeedLimitError",
    "FeedLimits",
    "FeedSpec",
    "FeedTemporaryError",
    "FeedTooLargeError",
    "FetchLimits",
    "PartPriceRow",
    "RowError",
    "feed_open",
    "iter_rows",
]
