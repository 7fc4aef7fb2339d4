"""Browser tests: Python Playwright driving Debian's Chromium against pytest-django's live server.

Chromium is /usr/bin/chromium (``scripts/system-deps.sh`` installs it). Without it, or without
the Playwright package, these tests are skipped with the reason, unless
``GPUQUOTE_REQUIRE_BROWSER=1`` (CI), when they fail instead. Screenshots and accessibility
reports go to ``test-artifacts/`` (git-ignored). With ``GPUQUOTE_SCREENSHOTS=1`` (``make
screenshots``) the README's pictures, a wizard step and result pages, are also written to
``docs/screenshots/``; an ordinary run leaves that folder alone.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
SCREENSHOTS = ROOT / "docs" / "screenshots"
SCREENSHOTS_VARIABLE = "GPUQUOTE_SCREENSHOTS"  # "1": write the README's screenshots
AXE_IMPACTS_THAT_FAIL = ("serious", "critical")


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (bash scripts/system-deps.sh installs Debian's chromium)"
    for module in ("playwright", "axe_playwright_python"):
        if importlib.util.find_spec(module) is None:
            return f"the Python package {module} is missing (pip install -r requirements-dev.txt)"
    return None


@pytest.fixture(autouse=True)
def _browser_available():
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("GPUQUOTE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"GPUQUOTE_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(django_db_setup):
    """Chromium for one test module.

    Playwright's sync API runs an event loop in the tests' thread, where Django's ORM would
    refuse to run: ``DJANGO_ALLOW_ASYNC_UNSAFE`` is set while the browser runs and removed
    after the module (never process-wide: ``check --deploy`` warns about it). The live server
    and the test use the database one at a time, as a person and the site would.
    """
    if _missing() is not None:
        yield None
        return
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def catalog(transactional_db, seed_catalog):
    """The seed catalog, committed (the live server reads it); the flush after the test empties
    it."""


@pytest.fixture
def new_page(browser, live_server, catalog):
    """``new_page(language="fr", width=1280, javascript=True)``: a fresh browser context."""
    contexts = []

    def make(language: str = "en", width: int = 1280, height: int = 900, javascript: bool = True):
        context = browser.new_context(
            base_url=live_server.url,
            locale="fr-FR" if language == "fr" else "en-GB",
            extra_http_headers={"Accept-Language": language},
            viewport={"width": width, "height": height},
            java_script_enabled=javascript,
            accept_downloads=True,
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def shoot(artifacts):
    """Full-page screenshot into test-artifacts/browser/NAME.png; returns its path."""

    def take(page, name: str, *, full_page: bool = True) -> Path:
        path = artifacts / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


def screenshots_wanted() -> bool:
    """Whether this run refreshes docs/screenshots/ (``make screenshots``)."""
    return os.environ.get(SCREENSHOTS_VARIABLE, "").strip() == "1"


def publish_screenshot(source: Path, name: str, *, max_height: int = 2200) -> Path | None:
    """With ``GPUQUOTE_SCREENSHOTS=1``, copy a screenshot to docs/screenshots/ for the README:
    its top ``max_height`` pixels, 1000 px wide, as a 256-colour PNG (a plain copy when Pillow, a
    WeasyPrint dependency, is missing). Otherwise write nothing and return None."""
    if not screenshots_wanted():
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / name
    try:
        from PIL import Image
    except ImportError:
        shutil.copyfile(source, target)
        return target
    with Image.open(source) as image:
        top = image.convert("RGB").crop((0, 0, image.width, min(image.height, max_height)))
        width = min(1000, top.width)
        small = top.resize((width, round(top.height * width / top.width)), Image.Resampling.LANCZOS)
        small.quantize(colors=256).save(target, optimize=True)
    return target


@pytest.fixture
def axe(artifacts):
    """Run axe-core (shipped in the axe-playwright-python package) on the page; fail on any
    violation of serious or critical impact. The whole report goes to test-artifacts/."""
    from axe_playwright_python.base import AXE_SCRIPT

    def check(page, name: str) -> list[dict]:
        page.evaluate(AXE_SCRIPT)
        report = page.evaluate(
            "axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'tag', values: "
            "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"
        )
        violations = report["violations"]
        (artifacts / f"axe-{name}.json").write_text(json.dumps(violations, indent=1))
        bad = [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(node["target"][0] for node in v["nodes"][:3])
            for v in violations
            if v["impact"] in AXE_IMPACTS_THAT_FAIL
        ]
        assert bad == [], f"axe-core on {name}:\n" + "\n".join(bad)
        return violations

    return check


def quote_form_send(page, *, country: str = "FR") -> None:
    """Ask for a quote from the result page's form, consent given, and wait for the answer."""
    page.fill("#id_name", "Ada Lovelace")
    page.fill("#id_company", "Analytical Engines")
    page.fill("#id_email", "ada@example.com")
    page.select_option("#id_country", country)
    page.check("#id_consent")
    page.click(".quote-form button[type=submit]")
    page.wait_for_url(re.compile(r"/quote/sent/"))
