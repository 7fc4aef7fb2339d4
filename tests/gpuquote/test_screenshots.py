"""The browser tests write the README's screenshots only when asked (``make screenshots``)."""

import sys
from pathlib import Path

import pytest

from tests.browser import conftest as browser


@pytest.fixture
def shot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(browser, "SCREENSHOTS", tmp_path / "screenshots")
    source = tmp_path / "page.png"
    source.write_bytes(b"not really a png")
    return source


@pytest.mark.parametrize("value", [None, "", "0", "true"])
def test_an_ordinary_run_leaves_docs_screenshots_alone(
    shot: Path, monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv("GPUQUOTE_SCREENSHOTS", raising=False)
    else:
        monkeypatch.setenv("GPUQUOTE_SCREENSHOTS", value)

    assert browser.publish_screenshot(shot, "result.png") is None
    assert not browser.SCREENSHOTS.exists()


def test_make_screenshots_writes_them(shot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUQUOTE_SCREENSHOTS", "1")
    monkeypatch.setitem(sys.modules, "PIL", None)  # the plain-copy path

    written = browser.publish_screenshot(shot, "result.png")

    assert written == browser.SCREENSHOTS / "result.png"
    assert (browser.SCREENSHOTS / "result.png").read_bytes() == b"not really a png"
