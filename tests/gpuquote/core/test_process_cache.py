"""gpuquote.core.process_cache: a bounded cache in one process's memory, least recently used
dropped first, safe across a worker's threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gpuquote.core.process_cache import ProcessCache


def test_a_value_is_made_once_and_the_least_recently_used_goes_first():
    made: list[str] = []
    cache: ProcessCache[str, str] = ProcessCache(2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert cache.get_or_make("a", lambda: make("a")) == "A"
    assert cache.get_or_make("b", lambda: make("b")) == "B"
    assert cache.get_or_make("a", lambda: make("a")) == "A"  # cached; "b" is now the oldest
    cache.get_or_make("c", lambda: make("c"))
    cache.get_or_make("a", lambda: make("a"))
    cache.get_or_make("b", lambda: make("b"))

    assert made == ["a", "b", "c", "b"]
    assert len(cache) == 2


def test_what_make_raises_is_not_cached():
    cache: ProcessCache[str, int] = ProcessCache(4)

    def fail() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        cache.get_or_make("x", fail)
    assert cache.get_or_make("x", lambda: 1) == 1
    cache.clear()
    assert len(cache) == 0


def test_threads_sharing_a_small_map_never_fail():
    cache: ProcessCache[int, int] = ProcessCache(3)

    def work(seed: int) -> int:
        total = 0
        for step in range(2000):
            key = (seed * 7 + step) % 11

            def double(key: int = key) -> int:
                return key * 2

            total += cache.get_or_make(key, double) - key * 2
        return total

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(work, range(8))) == [0] * 8
    assert len(cache) <= 3
