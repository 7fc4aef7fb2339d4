"""Open a price feed from an http(s) URL or a file, within a timeout and a size limit.

URLs go through ``gpuquote.core.outbound`` (the SSRF guard shared with webhooks): only public
addresses, or the private hosts of ``FetchLimits.outbound``, are called, and each redirect hop
is checked again. Files must resolve inside ``FetchLimits.file_root`` (no ``..``, no symlink
out of it); without a root, file sources are refused.

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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO
from urllib.parse import urljoin, urlsplit

from catalog.feeds.types import FeedFetchError, FeedTemporaryError, FeedTooLargeError
from gpuquote.core.outbound import OutboundPolicy, OutboundRefusedError, outbound_request

READ_CHUNK_BYTES = 64 * 1024
SPOOL_MEMORY_BYTES = 1024 * 1024
RETRYABLE_HTTP_STATUSES = frozenset({408, 425, 429})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
USER_AGENT = "GPUQuote-price-refresh/1"


@dataclass(frozen=True, slots=True)
class FetchLimits:
    timeout_s: float = 30.0
    deadline_s: float = 120.0
    max_bytes: int = 50 * 1024 * 1024
    # File locations must resolve inside this directory; relative paths are taken from it.
    # None: file sources are refused.
    file_root: Path | None = None
    # Which private hosts may be called (default: public addresses only).
    outbound: OutboundPolicy = field(default_factory=OutboundPolicy)


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


def feed_file_resolve(location: str, root: Path) -> Path | None:
    """The file a location names (relative to ``root``, symlinks resolved), or None when it is
    outside ``root``: a ``..`` part, an absolute path elsewhere, a symlink pointing out."""
    path = Path(location)
    if ".." in path.parts:
        return None
    root = root.resolve()
    resolved = (path if path.is_absolute() else root / path).resolve()
    return resolved if resolved.is_relative_to(root) else None


def _file_path(location: str, limits: FetchLimits) -> Path:
    """Messages name the location as entered, never the server's directories."""
    if not location:
        raise FeedFetchError("the source has no location")
    if limits.file_root is None:
        raise FeedFetchError("file sources are off: no feed directory is configured")
    path = feed_file_resolve(location, limits.file_root)
    if path is None:
        raise FeedFetchError(f"{location!r} is outside the feed directory")
    if not path.is_file():
        raise FeedFetchError(f"no feed file at {location!r} in the feed directory")
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise FeedTooLargeError(f"{location} has {size} bytes; the limit is {limits.max_bytes}")
    return path


@contextmanager
def _download(url: str, limits: FetchLimits) -> Iterator[FetchedFeed]:
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115 - closed below
    try:
        size = _fetch_into(url, spool, limits)
        spool.seek(0)
        yield FetchedFeed(stream=spool, size_bytes=size)  # type: ignore[arg-type]
    finally:
        spool.close()


def _fetch_into(url: str, spool: IO[bytes], limits: FetchLimits) -> int:
    """Download through the SSRF guard, following at most MAX_REDIRECTS http(s) redirects, each
    hop's host resolved and checked again."""
    deadline = time.monotonic() + limits.deadline_s
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        try:
            with outbound_request(
                current,
                policy=limits.outbound,
                headers={"User-Agent": USER_AGENT},
                timeout_s=limits.timeout_s,
            ) as response:
                if response.status in REDIRECT_STATUSES:
                    current = _redirect_target(current, response)
                    continue
                _status_check(current, response)
                return _copy_body(current, response, spool, limits, deadline)
        except OutboundRefusedError as exc:
            raise FeedFetchError(f"{current} refused: {exc}") from exc
        except TimeoutError as exc:
            raise FeedTemporaryError(f"{current} timed out after {limits.timeout_s:g} s") from exc
        except ssl.SSLCertVerificationError as exc:
            raise FeedFetchError(f"{current}: TLS certificate rejected ({exc})") from exc
        except (http.client.HTTPException, OSError) as exc:
            raise FeedTemporaryError(f"{current} could not be reached: {exc}") from exc
    raise FeedFetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _redirect_target(url: str, response: http.client.HTTPResponse) -> str:
    location = response.getheader("Location")
    if not location:
        raise FeedFetchError(f"{url} answered HTTP {response.status} without a Location")
    target = urljoin(url, location.strip())
    if not is_url(target):
        raise FeedFetchError(f"redirect to {target!r} refused: only http(s) is fetched")
    return target


def _status_check(url: str, response: http.client.HTTPResponse) -> None:
    if 200 <= response.status < 300:
        return
    message = f"{url} answered HTTP {response.status} {response.reason}"
    if response.status >= 500 or response.status in RETRYABLE_HTTP_STATUSES:
        raise FeedTemporaryError(message)
    raise FeedFetchError(message)


def _copy_body(
    url: str,
    response: http.client.HTTPResponse,
    spool: IO[bytes],
    limits: FetchLimits,
    deadline: float,
) -> int:
    declared = response.getheader("Content-Length")
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
            raise FeedTemporaryError(f"{url} took longer than {limits.deadline_s:g} s to download")
        spool.write(chunk)
    missing = response.length
    if missing:  # read1() returns b"" when the server closes the connection early
        raise FeedTemporaryError(
            f"{url}: the connection closed after {size} bytes, {missing} short of the "
            "announced length"
        )
    return size
