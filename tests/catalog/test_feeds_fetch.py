"""catalog.feeds.fetch against a local HTTP server (127.0.0.1): limits, errors, redirects, files."""

import threading

import pytest
from werkzeug import Response

from catalog.feeds import (
    FeedFetchError,
    FeedTemporaryError,
    FeedTooLargeError,
    FetchLimits,
    feed_open,
)
from gpuquote.core.outbound import OutboundPolicy
from tests.workers import http_server, wait_until

# The test server listens on 127.0.0.1: allowed explicitly, as OUTBOUND_ALLOW_PRIVATE_HOSTS does.
LIMITS = FetchLimits(
    timeout_s=0.5,
    deadline_s=1.0,
    max_bytes=1000,
    outbound=OutboundPolicy.from_entries(["127.0.0.1"]),
)


@pytest.fixture(scope="module")
def feed_server():
    """A threaded server on 127.0.0.1, so a slow answer does not hold up the next test."""
    with http_server() as server:
        yield server


@pytest.fixture
def httpserver_ipv4(feed_server):
    feed_server.clear()
    return feed_server


def read(location: str, limits: FetchLimits = LIMITS) -> bytes:
    with feed_open(location, limits=limits) as fetched:
        data = fetched.stream.read()
        assert fetched.size_bytes == len(data)
        return data


def test_a_feed_is_downloaded_whole(httpserver_ipv4):
    httpserver_ipv4.expect_request("/prices.csv").respond_with_data("sku,price\nA,1\n")
    assert read(httpserver_ipv4.url_for("/prices.csv")) == b"sku,price\nA,1\n"


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429, 408])
def test_server_errors_and_throttling_are_temporary(httpserver_ipv4, status):
    httpserver_ipv4.expect_request("/feed").respond_with_data("busy", status=status)
    with pytest.raises(FeedTemporaryError, match=f"answered HTTP {status}"):
        read(httpserver_ipv4.url_for("/feed"))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
def test_client_errors_are_permanent(httpserver_ipv4, status):
    httpserver_ipv4.expect_request("/feed").respond_with_data("no", status=status)
    with pytest.raises(FeedFetchError, match=f"answered HTTP {status}") as caught:
        read(httpserver_ipv4.url_for("/feed"))
    assert not isinstance(caught.value, FeedTemporaryError)


def test_a_feed_announcing_too_many_bytes_is_refused_before_reading(httpserver_ipv4):
    httpserver_ipv4.expect_request("/huge").respond_with_data("x" * 1001)
    with pytest.raises(FeedTooLargeError, match="announces 1001 bytes; the limit is 1000"):
        read(httpserver_ipv4.url_for("/huge"))


def test_a_streamed_feed_is_cut_at_the_size_limit(httpserver_ipv4):
    def endless(_request):
        return Response((b"x" * 100 for _ in range(10_000)), content_type="text/csv")

    httpserver_ipv4.expect_request("/endless").respond_with_handler(endless)
    with pytest.raises(FeedTooLargeError, match="sent more than 1000 bytes"):
        read(httpserver_ipv4.url_for("/endless"))


def test_a_server_that_does_not_answer_times_out(httpserver_ipv4):
    gave_up = threading.Event()

    def slow(_request):
        gave_up.wait(timeout=10)  # answers only once the client has timed out
        return Response("sku,price\n")

    httpserver_ipv4.expect_request("/slow").respond_with_handler(slow)
    try:
        with pytest.raises(FeedTemporaryError, match=r"timed out after 0\.5 s"):
            read(httpserver_ipv4.url_for("/slow"))
    finally:
        gave_up.set()
        wait_until(lambda: httpserver_ipv4.log, timeout=10, what="the slow answer")


def test_a_server_dripping_bytes_hits_the_overall_deadline(httpserver_ipv4):
    gave_up = threading.Event()

    def drip(_request):
        def chunks():
            # One byte every 0.1 s, 2 s in all: twice the deadline. Stops once the client gave up.
            for _ in range(20):
                if gave_up.wait(timeout=0.1):
                    return
                yield b"x"

        return Response(chunks(), content_type="text/csv")

    httpserver_ipv4.expect_request("/drip").respond_with_handler(drip)
    try:
        with pytest.raises(FeedTemporaryError, match="took longer than 1 s to download"):
            read(httpserver_ipv4.url_for("/drip"))
    finally:
        gave_up.set()


def test_a_truncated_body_is_temporary(httpserver_ipv4):
    def truncated(_request):
        return Response(iter([b"sku,price\n"]), headers={"Content-Length": "500"})

    httpserver_ipv4.expect_request("/cut").respond_with_handler(truncated)
    with pytest.raises(FeedTemporaryError, match="closed after 10 bytes, 490 short"):
        read(httpserver_ipv4.url_for("/cut"))


def test_connection_refused_is_temporary():
    with pytest.raises(FeedTemporaryError, match="could not be reached"):
        read("http://127.0.0.1:9/feed.csv")


def test_redirects_are_followed_to_http_only(httpserver_ipv4):
    httpserver_ipv4.expect_request("/old").respond_with_data(
        "", status=302, headers={"Location": httpserver_ipv4.url_for("/new")}
    )
    httpserver_ipv4.expect_request("/new").respond_with_data("sku,price\n")
    httpserver_ipv4.expect_request("/sneaky").respond_with_data(
        "", status=302, headers={"Location": "ftp://127.0.0.1/prices.csv"}
    )
    assert read(httpserver_ipv4.url_for("/old")) == b"sku,price\n"
    with pytest.raises(FeedFetchError, match="only http\\(s\\) is fetched"):
        read(httpserver_ipv4.url_for("/sneaky"))


def test_files_are_read_inside_the_feed_root_only(tmp_path):
    root = tmp_path / "feeds"
    root.mkdir()
    (root / "a.csv").write_text("sku,price\n")
    (tmp_path / "secret.txt").write_text("no")
    limits = FetchLimits(max_bytes=1000, file_root=root)

    assert read("a.csv", limits) == b"sku,price\n"
    assert read(str(root / "a.csv"), limits) == b"sku,price\n"
    with pytest.raises(FeedFetchError, match="outside the feed directory"):
        read("../secret.txt", limits)
    with pytest.raises(FeedFetchError, match="no feed file at"):
        read("missing.csv", limits)
    with pytest.raises(FeedFetchError, match="unsupported location"):
        read("ftp://127.0.0.1/a.csv", limits)


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    (tmp_path / "big.csv").write_bytes(b"x" * 1001)
    with pytest.raises(FeedTooLargeError, match="has 1001 bytes; the limit is 1000"):
        read("big.csv", FetchLimits(max_bytes=1000, file_root=tmp_path))
