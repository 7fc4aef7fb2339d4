"""Attack: script injected into a page (a stored XSS, a hostile frame around the site).

Every HTML page answers with a strict Content-Security-Policy (django-csp): scripts and styles
from the site's own files only, never inline; no plugins; no framing; forms post to the site
only. The API documentation pages get the narrow relaxation their viewers need, and only they.
The browser half (no page breaks the policy) is tests/browser/test_csp.py.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.quotes.sales.test_quote_services import (
    _user,
    quote_make,
    sent_quote_make,
    wizard_request_make,
)
from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET, wizard_result_make

pytestmark = pytest.mark.django_db

HEADER = "Content-Security-Policy"
STRICT = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def policy(response) -> dict[str, list[str]]:
    """The response's Content-Security-Policy as {directive: [sources]}."""
    assert HEADER in response, f"no {HEADER} on {response.status_code} {response['Content-Type']}"
    directives = {}
    for part in response[HEADER].split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


@pytest.fixture
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


@pytest.fixture
def site_pages(client, catalog, django_user_model) -> list[str]:
    """Every kind of HTML page a visitor, a customer or the sales team sees."""
    result = wizard_result_make(client)
    from quotes.sales import services

    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = sent_quote_make(rep)
    wizard_request_make()
    return [
        "/",
        *(reverse("wizard:step", kwargs={"step": step}) for step in FINE_TUNING_WITH_BUDGET),
        reverse("wizard:result", kwargs={"token": result.token}),
        reverse("sales:login"),
        reverse("sales:quote_public", kwargs={"token": quote.token}),
    ]


def test_every_site_page_forbids_inline_script_and_style(client, site_pages):
    for path in site_pages:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        assert response["Content-Type"].startswith("text/html"), path
        assert policy(response) == STRICT, path


def test_error_pages_carry_the_policy(client, settings):
    settings.DEBUG = False  # django-csp leaves the debug 404 page alone; production's has it

    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert policy(response) == STRICT


def test_staff_screens_forbid_inline_script_and_style(client, django_user_model):
    from quotes.sales import services

    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = quote_make(rep)
    client.force_login(rep)

    for path in (
        reverse("sales:dashboard"),
        reverse("sales:quote_new"),
        reverse("sales:quote_detail", kwargs={"pk": quote.pk}),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert policy(response) == STRICT, path


def test_admin_pages_forbid_inline_script_and_style(client, staff_user):
    client.force_login(staff_user)

    for path in ("/admin/login/", "/admin/", "/admin/quotes/quote/", "/admin/auth/user/add/"):
        response = client.get(path)
        assert response.status_code in (200, 302), (path, response.status_code)
        assert policy(response) == STRICT, path


def test_json_answers_carry_the_policy_too(client):
    response = client.get("/readyz")

    assert policy(response) == STRICT


def test_swagger_ui_runs_no_inline_script(client):
    page = client.get(reverse("api:docs"))
    directives = policy(page)

    assert page.status_code == 200
    assert directives["script-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    html = page.content.decode()
    assert "<script>" not in html
    assert "<style>" not in html
    # Its start-up script is a file of its own, served by the same view.
    script = client.get(reverse("api:docs") + "?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle(" in script.content


def test_redoc_gets_only_inline_styles_and_blob_workers(client):
    page = client.get(reverse("api:redoc"))
    directives = policy(page)

    assert page.status_code == 200
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'", "'unsafe-inline'"]
    assert directives["worker-src"] == ["'self'", "blob:"]
    assert directives["frame-ancestors"] == ["'none'"]
    html = page.content.decode()
    assert "<script>" not in html
    assert "fonts.googleapis.com" not in html  # nothing from another site


def test_no_page_template_has_inline_script_style_or_handlers():
    """The site's own templates (the PDFs excepted: WeasyPrint, no browser) carry no inline
    script, style attribute or element, event-handler attribute or javascript: URL."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    forbidden = re.compile(
        r"style=|<style|<script(?![^>]*\bsrc=)|\son[a-z]+\s*=|javascript:", re.IGNORECASE
    )
    offenders = [
        f"{path.relative_to(root)}:{number}: {line.strip()[:80]}"
        for path in sorted(root.rglob("*.html"))
        if path.relative_to(root).parts[0] != "pdf"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if forbidden.search(line)
    ]
    assert offenders == []
