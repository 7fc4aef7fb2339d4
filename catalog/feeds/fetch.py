"""Open a price feed from an http(s) URL or a file, within a timeout and a size limit.

A download is copied into a spooled temporary file (memory up to ``SPOOL_MEMORY_BYTES``, disk
beyond), so the parser reads a stream of known, bounded size and a slow or endless server cannot
hold a worker: each socket operation has ``timeout_s`` and the whole download ``deadline_s``.
Network errors, timeouts, truncated bodies and 408/429/5xx answers raise ``FeedTemporaryError``
(worth retrying); anything else that cannot succeed later raises ``FeedFetchError``.
"""

from __future__ import annotations

import http.client
import ssl
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from catalog.feeds.types import FeedFetchError, FeedTemporaryError, FeedTooLargeError

READ_CHUNK_BYTES = 64 * 1024
SPOOL_MEMORY_BYTES = 1024 * 1024
RETRYABLE_HTTP_STATUSES = frozenset({408, 425, 429})
USER_AGENT = "GPUQuote-price-refresh/1"


@dataclass(frozen=True, slots=True)
class FetchLimits:
    timeout_s: float = 30.0
    deadline_s: float = 120.0
    max_bytes: int = 50 * 1024 * 1024
    # File locations must resolve inside this directory; relative paths are taken from it.
    file_root: Path | None = None


@dataclass(frozen=True, slots=True)
class FetchedFeed:
    stream: BinaryIO
    size_bytes: int


def is_url(location: str) -> bool:
    return urlsplit(location).scheme.lower() in ("http", "https")


@contextmanager
def feed_open(location: str, *, limits: FetchLimits) -> Iterator[FetchedFeed]:
    """The feed's bytes as a binary stream at position 0; closed (and deleted) on exit."""
    location = location.strip()
    if is_url(location):
        with _download(location, limits) as fetched:
            yield fetched
        return
    scheme = urlsplit(location).scheme
    if len(scheme) > 1:  # one letter is a Windows drive, not a scheme
        raise FeedFetchError(f"unsupported location {location!r}: use an http(s) URL or a path")
    path = _file_path(location, limits)
    with path.open("rb") as stream:
        yield FetchedFeed(stream=stream, size_bytes=path.stat().st_size)


def _file_path(location: str, limits: FetchLimits) -> Path:
    if not location:
        raise FeedFetchError("the source has no location")
    path = Path(location)
    if not path.is_absolute() and limits.file_root is not None:
        path = limits.file_root / path
    path = path.resolve()
    if limits.file_root is not None and not path.is_relative_to(limits.file_root.resolve()):
        raise FeedFetchError(f"{location!r} is outside the feed directory {limits.file_root}")
    if not path.is_file():
        raise FeedFetchError(f"no feed file at {path}")
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise FeedTooLargeError(f"{path} has {size} bytes; the limit is {limits.max_bytes}")
    return path


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) only (urllib would also follow ftp://)."""

    max_redirections = 5

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if not is_url(newurl):
            raise FeedFetchError(f"redirect to {newurl!r} refused: only http(s) is fetched")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        _HttpOnlyRedirects(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


@contextmanager
def _download(url: str, limits: FetchLimits) -> Iterator[FetchedFeed]:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})  # noqa: S310 - http(s) only, checked by is_url
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115 - closed below
    try:
        size = _copy_response(_opener(), request, spool, limits)
        spool.seek(0)
        yield FetchedFeed(stream=spool, size_bytes=size)  # type: ignore[arg-type]
    finally:
        spool.close()


def _copy_response(opener, request, spool, limits: FetchLimits) -> int:
    url = request.full_url
    deadline = time.monotonic() + limits.deadline_s
    try:
        with opener.open(request, timeout=limits.timeout_s) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > limits.max_bytes:
                raise FeedTooLargeError(
                    f"{url} announces {declared} bytes; the limit is {limits.max_bytes}"
                )
            size = 0
            while chunk := response.read1(READ_CHUNK_BYTES):
                size += len(chunk)
                if size > limits.max_bytes:
                    raise FeedTooLargeError(f"{url} sent more than {limits.max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise FeedTemporaryError(
                        f"{url} took longer than {limits.deadline_s:g} s to download"
                    )
                spool.write(chunk)
            missing = getattr(response, "length", None)
            if missing:  # read1() returns b"" when the server closes the connection early
                raise FeedTemporaryError(
                    f"{url}: the connection closed after {size} bytes, {missing} short of the "
                    "announced length"
                )
            return size
    except urllib.error.HTTPError as exc:
        message = f"{url} answered HTTP {exc.code} {exc.reason}"
        if exc.code >= 500 or exc.code in RETRYABLE_HTTP_STATUSES:
            raise FeedTemporaryError(message) from exc
        raise FeedFetchError(message) from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, ssl.SSLCertVerificationError):
            raise FeedFetchError(f"{url}: TLS certificate rejected ({exc.reason})") from exc
        if isinstance(exc.reason, TimeoutError):
            raise FeedTemporaryError(f"{url} timed out after {limits.timeout_s:g} s") from exc
        raise FeedTemporaryError(f"{url} could not be reached: {exc.reason}") from exc
    except TimeoutError as exc:
        raise FeedTemporaryError(f"{url} timed out after {limits.timeout_s:g} s") from exc
    except (http.client.HTTPException, OSError) as exc:
        raise FeedTemporaryError(f"{url}: connection failed ({exc!r})") from exc
