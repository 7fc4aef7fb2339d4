"""A cache in one process's memory, bounded, least recently used dropped first: for values
that are costly to make and never change under their key (a stored result's page, a result
computed for a question and a data version). The shared cache (Redis) is Django's ``cache``."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ProcessCache(Generic[K, V]):
    """Safe across the threads of a worker (gunicorn ``--threads``): a lock guards the map, not
    ``make``, so two threads may make the same value once each."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value cached under ``key``, else ``make()``'s, then cached (never what ``make``
        raises)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
