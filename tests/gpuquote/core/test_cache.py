"""gpuquote.core.cache: the file cache of embedded production's limits, and the Redis cache that
answers as an empty one while Redis fails (end to end: tests/reliability/test_redis_outage.py)."""

from __future__ import annotations

import pickle
import threading
import time

import pytest
from prometheus_client import REGISTRY
from redis.exceptions import ResponseError

from gpuquote.core import cache as cache_module
from gpuquote.core.cache import PAUSE_AFTER_FAILURE_S, FailOpenRedisCache, LockedFileCache

CLOSED_PORT = "redis://127.0.0.1:1/0"


@pytest.fixture
def files(tmp_path) -> LockedFileCache:
    return LockedFileCache(str(tmp_path / "limits"), {"OPTIONS": {"MAX_ENTRIES": 4}})


def _expiry(cache: LockedFileCache, key: str) -> float:
    with open(cache._key_to_file(key), "rb") as entry:
        return pickle.load(entry)  # noqa: S301  (the test's own cache file)


def test_incr_keeps_the_entry_expiry_as_redis_does(files):
    assert files.add("window", 1, timeout=60)
    expiry = _expiry(files, "window")

    assert files.incr("window") == 2
    assert files.incr("window", 3) == 5

    assert files.get("window") == 5
    # Django's file cache would have set the default timeout (300 s) again on each incr.
    assert _expiry(files, "window") == pytest.approx(expiry, abs=1)


def test_incr_of_a_missing_or_expired_key_is_a_value_error_and_writes_nothing(files):
    files.set("gone", 1, timeout=60)
    with open(files._key_to_file("gone"), "r+b") as entry:  # expire it in place
        rest = entry.read()[len(pickle.dumps(_expiry(files, "gone"), pickle.HIGHEST_PROTOCOL)) :]
        entry.seek(0)
        entry.write(pickle.dumps(time.time() - 1, pickle.HIGHEST_PROTOCOL) + rest)

    with pytest.raises(ValueError, match="not found"):
        files.incr("gone")
    with pytest.raises(ValueError, match="not found"):
        files.incr("never")

    assert files._list_cache_files() == []


def test_a_full_cache_drops_expired_entries_before_live_ones(files, monkeypatch):
    monkeypatch.setattr(cache_module, "CULL_EVERY_SECONDS", 0.0)  # cull on every set
    for number in range(3):
        files.set(f"old{number}", number, timeout=-1)  # already expired, still on disk
    files.set("live", 1, timeout=60)
    assert len(files._list_cache_files()) == 4  # MAX_ENTRIES

    files.set("new", 2, timeout=60)

    assert sorted(files.get_many(["live", "new", "old0"]).items()) == [("live", 1), ("new", 2)]
    assert len(files._list_cache_files()) == 2


def test_a_set_lists_the_directory_at_most_once_per_cull_period(files, monkeypatch):
    listed: list[int] = []
    original = LockedFileCache._list_cache_files

    def counting(self):
        listed.append(1)
        return original(self)

    monkeypatch.setattr(LockedFileCache, "_list_cache_files", counting)
    for number in range(50):  # one entry per client address, as the limits write them
        files.set(f"address{number}", 1, timeout=60)

    # Django's file cache lists its directory on every set (50 listings, each as long as the
    # directory): culling waits CULL_EVERY_SECONDS.
    assert len(listed) == 1


def test_atomic_is_reentrant_within_a_thread(files):
    with files.atomic(), files.atomic():
        assert files.add("key", 1)
        assert files.incr("key") == 2

    assert files.get("key") == 2


def test_a_failing_redis_reads_as_an_empty_cache_and_counts_each_failure():
    cache = FailOpenRedisCache(CLOSED_PORT, {})

    def count(operation: str) -> float:
        sample = {"operation": operation}
        return REGISTRY.get_sample_value("gpuquote_cache_errors_total", sample) or 0.0

    before = {name: count(name) for name in ("get", "add", "incr", "get_many", "set_many")}

    assert cache.get_or_set("answer", lambda: 42) == 42  # computed: get, add, get
    assert cache.add("counter", 1) is False  # a lock taken through add is not taken
    with pytest.raises(ValueError, match="not found"):
        cache.incr("counter")  # as for a key it does not hold
    assert cache.get_many(["a", "b"]) == {}
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]  # the keys not set

    after = {name: count(name) for name in before}
    assert {name: after[name] - before[name] for name in before} == {
        "get": 2,
        "add": 2,
        "incr": 1,
        "get_many": 1,
        "set_many": 1,
    }


def test_other_errors_than_redis_own_are_raised():
    cache = FailOpenRedisCache(CLOSED_PORT, {})

    with pytest.raises(TypeError, match="pickle"):  # a bug, not an outage
        cache.set("key", threading.Lock())


def test_after_a_refused_connection_redis_is_not_asked_again_until_the_pause_ends(monkeypatch):
    cache = FailOpenRedisCache(CLOSED_PORT, {})
    clients = []
    real_client = cache._cache.get_client

    def counted_client(*args, **kwargs):
        clients.append(args)
        return real_client(*args, **kwargs)

    monkeypatch.setattr(cache._cache, "get_client", counted_client)
    now = [1000.0]
    monkeypatch.setattr(cache_module, "monotonic", lambda: now[0])

    assert cache.get("a") is None  # refused: the pause starts
    assert cache.get("b") is None
    assert cache.add("c", 1) is False
    assert len(clients) == 1  # the two during the pause never reached Redis

    now[0] += PAUSE_AFTER_FAILURE_S + 0.001
    assert cache.get("d") is None  # asked again, refused again

    assert len(clients) == 2


def test_a_command_refused_by_redis_is_absorbed_without_a_pause(monkeypatch):
    cache = FailOpenRedisCache(CLOSED_PORT, {})

    def refuse(*_args, **_kwargs):
        raise ResponseError("OOM command not allowed when used memory > 'maxmemory'")

    monkeypatch.setattr(cache._cache, "set", refuse)

    cache.set("a", 1)  # absorbed
    cache.set("b", 2)

    assert cache._paused_until == 0.0  # not a connection problem: the next one asks Redis
