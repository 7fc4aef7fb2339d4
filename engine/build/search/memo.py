"""Values computed once per key: the search's candidate lists (per request) and the index's
fabric designs (per snapshot) are each one ``Memo``."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")
_MISSING = object()


class Memo(Generic[_K, _V]):
    """A value per key, computed on first use. ``limit`` bounds the entries kept (a value past it
    is computed each time, never evicted: a dict update is atomic under the GIL, so a memo shared
    between threads only ever loses a race by computing twice)."""

    __slots__ = ("_limit", "_values")

    def __init__(self, limit: int | None = None) -> None:
        self._values: dict[_K, _V] = {}
        self._limit = limit

    def get(self, key: _K, compute: Callable[[], _V]) -> _V:
        found = self._values.get(key, _MISSING)
        if found is not _MISSING:
            return cast(_V, found)
        value = compute()
        if self._limit is None or len(self._values) < self._limit:
            self._values[key] = value
        return value

    def __len__(self) -> int:
        return len(self._values)
