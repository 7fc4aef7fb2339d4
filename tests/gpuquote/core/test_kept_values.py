"""gpuquote.core.kept: a bounded map of values kept in memory, least recently used dropped
first, safe across a worker's threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gpuquote.core.kept import KeptValues


def test_a_value_is_made_once_and_the_least_recently_used_goes_first():
    made: list[str] = []
    kept: KeptValues[str, str] = KeptValues(2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert kept.get_or_make("a", lambda: make("a")) == "A"
    assert kept.get_or_make("b", lambda: make("b")) == "B"
    assert kept.get_or_make("a", lambda: make("a")) == "A"  # kept; "b" is now the oldest
    kept.get_or_make("c", lambda: make("c"))
    kept.get_or_make("a", lambda: make("a"))
    kept.get_or_make("b", lambda: make("b"))

    assert made == ["a", "b", "c", "b"]
    assert len(kept) == 2


def test_what_make_raises_is_not_kept():
    kept: KeptValues[str, int] = KeptValues(4)

    def fail() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        kept.get_or_make("x", fail)
    assert kept.get_or_make("x", lambda: 1) == 1
    kept.clear()
    assert len(kept) == 0


def test_threads_sharing_a_small_map_never_fail():
    kept: KeptValues[int, int] = KeptValues(3)

    def work(seed: int) -> int:
        total = 0
        for step in range(2000):
            key = (seed * 7 + step) % 11

            def double(key: int = key) -> int:
                return key * 2

            total += kept.get_or_make(key, double) - key * 2
        return total

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(work, range(8))) == [0] * 8
    assert len(kept) <= 3
