"""The cache backends the settings name (``CACHES``), and the cache of the request limits.

- ``FailOpenRedisCache``: Django's Redis cache, answering as an empty cache while Redis does not
  answer: a read is a miss, a write is dropped, ``add`` adds nothing and ``incr`` finds no key.
  Each failure counts in ``gpuquote_cache_errors_total``; a refused or timed-out connection is a
  warning in the log and pauses the asking for ``PAUSE_AFTER_FAILURE_S``. A Redis
  outage so costs the cached answers and the request limits (which let requests through
  meanwhile), never a page: the calculators, the wizard and the API keep answering.
- ``LockedFileCache``: Django's file cache in which every operation holds one lock on its
  directory, shared by every process of the host (``fcntl.flock``): ``add`` and ``incr``, each a
  read then a write, are atomic across processes, which a plain file cache's are not (two
  processes read 5 and both write 6). Embedded production (no Redis) keeps the request limits
  in it, under ``var/``, so that gunicorn's workers count one budget instead of one each.
- ``limits_cache``: the cache the request limits count in (alias ``LIMITS_CACHE``): the API's
  throttles and django-ratelimit (``RATELIMIT_USE_CACHE``). The login lockout (django-axes)
  counts in the database.

No app import: plain plumbing, like ``gpuquote.core.metrics``.
"""

from __future__ import annotations

import fcntl
import logging
import os
import pickle
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from time import monotonic
from typing import TYPE_CHECKING, Any

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.redis import RedisCache
from django.utils.connection import ConnectionProxy
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gpuquote.core.metrics import CACHE_ERRORS

logger = logging.getLogger(__name__)

LIMITS_CACHE = "limits"  # the CACHES alias the request limits count in
PAUSE_AFTER_FAILURE_S = 5.0  # after Redis failed to answer, how long a process stops asking
# The limits' cache, looked up on each use (so override_settings(CACHES=...) reaches it).
limits_cache: Any = ConnectionProxy(caches, LIMITS_CACHE)


def atomic(cache: Any) -> AbstractContextManager[None]:
    """``cache.atomic()`` where the backend offers it (``LockedFileCache``), else nothing: Redis
    and local memory make each of their operations atomic on their own."""
    hold = getattr(cache, "atomic", None)
    return hold() if hold is not None else nullcontext()


class CachePaused(RedisError):
    """Redis failed to connect a moment ago: not asked again until the pause ends."""


class FailOpenRedisCache(RedisCache):
    """Redis, or an empty cache while Redis fails (see the module). Only Redis' own errors
    (connection refused or lost, timeout, a command refused) are absorbed; anything else, a
    value that does not pickle for one, is raised as before. After a connection error or a
    timeout this process's cache does not ask Redis again for ``PAUSE_AFTER_FAILURE_S``: a
    Redis that no longer answers at all (each try waits for redis-py's 5 s socket timeouts)
    would otherwise hold every request for seconds per cache operation, and the log would get
    a warning per operation instead of one per pause. Each operation meanwhile still counts in
    ``gpuquote_cache_errors_total``."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._paused_until = 0.0  # monotonic(); Django makes one instance per thread

    @contextmanager
    def _absorbed(self, operation: str) -> Iterator[None]:
        try:
            yield
        except CachePaused:
            CACHE_ERRORS.labels(operation).inc()
        except RedisError as error:
            CACHE_ERRORS.labels(operation).inc()
            pause = isinstance(error, (RedisConnectionError, RedisTimeoutError))
            if pause:
                self._paused_until = monotonic() + PAUSE_AFTER_FAILURE_S
            logger.warning(
                "Cache %s failed (%s): answered as an empty cache%s; the request limits let "
                "requests through while the cache fails",
                operation,
                type(error).__name__,
                f", Redis not asked again for {PAUSE_AFTER_FAILURE_S:g} s" if pause else "",
            )

    def _ask(self) -> None:
        """First in each operation: raises ``CachePaused`` during a pause."""
        if monotonic() < self._paused_until:
            raise CachePaused

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        with self._absorbed("add"):
            self._ask()
            return super().add(key, value, timeout, version)
        return False

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        with self._absorbed("get"):
            self._ask()
            return super().get(key, default, version)
        return default

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        with self._absorbed("set"):
            self._ask()
            super().set(key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        with self._absorbed("touch"):
            self._ask()
            return super().touch(key, timeout, version)
        return False

    def delete(self, key: Any, version: Any = None) -> bool:
        with self._absorbed("delete"):
            self._ask()
            return super().delete(key, version)
        return False

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        with self._absorbed("get_many"):
            self._ask()
            return super().get_many(keys, version)
        return {}

    def has_key(self, key: Any, version: Any = None) -> bool:
        with self._absorbed("has_key"):
            self._ask()
            return super().has_key(key, version)
        return False

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        with self._absorbed("incr"):
            self._ask()
            return super().incr(key, delta, version)
        raise ValueError(f"Key {key!r} not found (the cache failed)")  # Django's missing key

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        with self._absorbed("set_many"):
            self._ask()
            return super().set_many(data, timeout, version)
        return list(data)  # the keys not set

    def delete_many(self, keys: Any, version: Any = None) -> None:
        with self._absorbed("delete_many"):
            self._ask()
            super().delete_many(keys, version)

    def clear(self) -> None:
        with self._absorbed("clear"):
            self._ask()
            super().clear()


LOCK_FILE = "lock"  # in the cache's directory; not a ``.djcache`` entry, so never culled
# Django's file cache lists its whole directory on every ``set`` to see whether to cull: with one
# entry per client address that is thousands of files per request (measured: 1 ms per set+get
# with 10 files, 11 ms with 8,000). A process culls at most this often; the directory may
# overshoot MAX_ENTRIES by the entries written in between.
CULL_EVERY_SECONDS = 30.0


class LockedFileCache(FileBasedCache):
    """Django's file cache, each operation under one ``flock`` on the directory (see the
    module). ``atomic()`` holds the lock over several operations (a throttle's read and write);
    it is re-entrant within a thread, and each thread takes it on its own file descriptor, so
    the threads of one process exclude one another too. Expired entries are removed before any
    live one when the cache is full (Django's file cache drops a random third, live counters
    included)."""

    if TYPE_CHECKING:  # Django's file cache's own helpers, which django-stubs leaves out
        _dir: str
        _max_entries: int

        def _createdir(self) -> None: ...
        def _key_to_file(self, key: Any, version: Any = None) -> str: ...
        def _delete(self, fname: str) -> bool: ...
        def _list_cache_files(self) -> list[str]: ...

    def __init__(self, dir: str, params: dict[str, Any]) -> None:
        super().__init__(dir, params)
        self._held = threading.local()
        self._culled_at = -CULL_EVERY_SECONDS

    @contextmanager
    def atomic(self) -> Iterator[None]:
        depth = getattr(self._held, "depth", 0)
        if depth:
            self._held.depth = depth + 1
            try:
                yield
            finally:
                self._held.depth = depth
            return
        self._createdir()
        with open(os.path.join(self._dir, LOCK_FILE), "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0
                fcntl.flock(lock, fcntl.LOCK_UN)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        with self.atomic():
            return super().add(key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        with self.atomic():  # a read may delete an expired entry another process just added
            return super().get(key, default, version)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        with self.atomic():
            super().set(key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        with self.atomic():
            return super().touch(key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> bool:
        with self.atomic():
            return super().delete(key, version)

    def has_key(self, key: Any, version: Any = None) -> bool:
        with self.atomic():
            return super().has_key(key, version)

    def clear(self) -> None:
        with self.atomic():
            super().clear()

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        """Like Redis' INCR: the entry keeps its expiry (Django's file cache would give it the
        default timeout again)."""
        with self.atomic():
            fname = self._key_to_file(key, version)
            try:
                with open(fname, "rb") as entry:
                    # The cache's own files (Django's format), in its 0700 directory.
                    expiry = pickle.load(entry)  # noqa: S301
                    value = pickle.loads(zlib.decompress(entry.read()))  # noqa: S301
            except (FileNotFoundError, EOFError):
                raise ValueError(f"Key {key!r} not found") from None
            now = time.time()
            if expiry is not None and expiry < now:
                self._delete(fname)
                raise ValueError(f"Key {key!r} not found")
            value += delta
            super().set(key, value, None if expiry is None else expiry - now, version)
            return value

    def _cull(self) -> None:
        """Expired entries first; Django's random third only if the live ones still fill it.
        At most once per ``CULL_EVERY_SECONDS`` in this process."""
        now_monotonic = time.monotonic()
        if now_monotonic - self._culled_at < CULL_EVERY_SECONDS:
            return
        self._culled_at = now_monotonic
        files = self._list_cache_files()
        if len(files) < self._max_entries:
            return
        now = time.time()
        for fname in files:
            try:
                with open(fname, "rb") as entry:
                    expiry = pickle.load(entry)  # noqa: S301  (as in incr)
            except (FileNotFoundError, EOFError):
                continue
            if expiry is not None and expiry < now:
                self._delete(fname)
        super()._cull()  # type: ignore[misc]  # Django's, absent from django-stubs
