"""SSRF and local-file attacks through price feeds: feed URLs and their
redirects to internal addresses, and file sources outside the feed directory.

Every outbound request goes through ``gpuquote.core.outbound`` (tested in test_ssrf_policy.py).
DNS is faked (``dns`` in tests/security/conftest.py): nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from catalog.models import PriceRefreshRun, PriceSource, RunStatus
from catalog.services import price_source_refresh
from tests.security.ssrf_targets import NOT_PUBLIC, NOT_RESOLVED

FEED = "sku,price\nGPU-A,1.00\n"


def _source(location: str, **fields) -> PriceSource:
    values = {"name": "Attack", "kind": "supplier", "format": "csv", "currency": "EUR"}
    return PriceSource.objects.create(location=location, **(values | fields))


def _refresh(source: PriceSource) -> PriceRefreshRun:
    return price_source_refresh(source_id=source.pk)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "location",
    [
        "http://localtest.me:{port}/feed",
        "http://127.0.0.1:{port}/feed",
        "http://[::ffff:127.0.0.1]:{port}/feed",
        "http://metadata.google.internal/computeMetadata/v1/",
    ],
)
def test_a_feed_url_to_an_internal_address_is_refused(dns, httpserver, connects, location):
    httpserver.expect_request("/feed").respond_with_data(FEED)
    source = _source(location.format(port=httpserver.port))

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert "not a public address" in run.message
    assert connects == []
    assert httpserver.log == []


@pytest.mark.django_db
def test_a_feed_redirect_to_an_internal_address_is_refused(dns, httpserver, connects, settings):
    """The supplier's own host is allowed by name; its redirect to loopback is checked again."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["prices.supplier.internal"]
    dns["prices.supplier.internal"] = ["127.0.0.1"]
    httpserver.expect_request("/feed").respond_with_data(
        "", status=302, headers={"Location": f"http://127.0.0.1:{httpserver.port}/admin-only"}
    )
    httpserver.expect_request("/admin-only").respond_with_data(FEED)
    source = _source(f"http://prices.supplier.internal:{httpserver.port}/feed")

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert "not a public address" in run.message
    assert [request.path for request, _ in httpserver.log] == ["/feed"]
    assert len(connects) == 1


@pytest.fixture
def feed_root(tmp_path, settings) -> Iterator[Path]:
    root = tmp_path / "feeds"
    root.mkdir()
    (root / "good.csv").write_text(FEED)
    (tmp_path / "secret.csv").write_text("TOP-SECRET-KEY,hunter2\n")
    settings.PRICE_FEED_FILE_ROOT = root
    return root


SETTINGS_FILE = Path(__file__).resolve().parents[2] / "gpuquote" / "settings" / "base.py"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "location",
    [
        "../secret.csv",
        "sub/../../secret.csv",
        "{tmp}/secret.csv",
        str(SETTINGS_FILE),
        "gpuquote/settings/base.py",
        "link.csv",
        "file://{tmp}/secret.csv",
    ],
)
def test_a_file_source_outside_the_feed_directory_is_refused(feed_root, location):
    (feed_root / "link.csv").symlink_to(feed_root.parent / "secret.csv")
    location = location.format(tmp=feed_root.parent)
    source = _source(location)

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert run.bytes_read is None
    for secret in ("TOP-SECRET", "hunter2", "Django settings", "SECRET_KEY"):
        assert secret not in run.message
    with pytest.raises(ValidationError) as invalid:
        source.full_clean()
    assert list(invalid.value.message_dict) == ["location"]


@pytest.mark.django_db
def test_the_default_feed_directory_is_the_committed_samples_only(settings):
    from gpuquote.settings import base as project_settings

    root = project_settings.BASE_DIR / "catalog" / "feeds" / "samples"
    assert Path(project_settings.PRICE_FEED_FILE_ROOT) == root
    assert sorted(p.name for p in root.iterdir() if p.suffix in (".csv", ".json"))


@pytest.mark.django_db
def test_a_feed_error_never_echoes_the_content(feed_root):
    (feed_root / "leak.csv").write_text("TOP-SECRET-KEY=abc,other\nx,y\n")
    source = _source("leak.csv")

    run = _refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message == (
        "Unreadable feed: line 1: the CSV header lacks required column(s) sku, price."
    )


@pytest.mark.django_db
def test_a_feed_header_repeating_a_column_names_the_columns_by_position(feed_root):
    (feed_root / "twice.csv").write_text("sku,price,TOP-SECRET,TOP-SECRET\n")
    run = _refresh(_source("twice.csv"))

    assert run.status == RunStatus.REJECTED
    assert run.message == "Unreadable feed: line 1: columns 3 and 4 have the same name."


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("http://metadata.google.internal/latest/", NOT_PUBLIC),
        ("http://localtest.me/feed.csv", NOT_PUBLIC),
        ("http://[64:ff9b::7f00:1]/feed.csv", NOT_PUBLIC),
        ("http://nowhere.invalid/feed.csv", NOT_RESOLVED),
        ("ftp://acme.example/feed.csv", "Use an http(s) URL or a file path."),
        (
            "../secret.csv",
            "The file must be inside the price feed directory (PRICE_FEED_FILE_ROOT).",
        ),
    ],
)
def test_a_price_source_location_is_checked_when_saved(dns, feed_root, location, message):
    source = PriceSource(
        name="Attack", kind="supplier", format="csv", currency="EUR", location=location
    )

    with pytest.raises(ValidationError) as invalid:
        source.full_clean()

    assert invalid.value.message_dict == {"location": [message]}


@pytest.mark.django_db
def test_a_price_source_at_a_public_url_or_inside_the_root_is_valid(dns, feed_root):
    for location in ("https://acme.example/feed.csv", "good.csv"):
        PriceSource(
            name="Fine", kind="supplier", format="csv", currency="EUR", location=location
        ).full_clean()
