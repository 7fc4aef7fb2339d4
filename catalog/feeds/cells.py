"""What every feed reader shares about one bad cell: the exception a row's checks raise
(``CellError``: the field, why, the offending value) and how the value is shown in a run's
error report (``shown``: shortened, so a report never carries a feed's long text)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from catalog.feeds.types import RowError

SHOWN_VALUE_CHARS = 80


class CellError(Exception):
    """A bad value in one row: the row becomes a ``RowError``, the feed goes on."""

    def __init__(self, field: str, message: str, value: Any = "") -> None:
        super().__init__(message)
        self.field, self.message, self.value = field, message, value

    def row_error(self, row: int, limit: int = SHOWN_VALUE_CHARS) -> RowError:
        return RowError(row, self.field, self.message, shown(self.value, limit))


def shown(value: Any, limit: int = SHOWN_VALUE_CHARS) -> str:
    """``value`` as text (JSON for a structure, "" for None), at most ``limit`` characters."""
    if value is None:
        return ""
    plain = isinstance(value, str | int | Decimal) and not isinstance(value, bool)
    text = str(value) if plain else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
