"""The Content-Security-Policy in a real browser (Chromium): no page of the site breaks it.

Every page is opened with a ``securitypolicyviolation`` listener installed before any of its
scripts, and Chromium's console is read too: a refused inline script, style attribute, font or
worker shows up in one or the other. The wizard's steps, its result, the quote request, the
sales screens, the admin and the API documentation are all visited.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from quotes.sales import services
from tests.browser.conftest import quote_form_send
from tests.browser.test_staff_quote import sign_in
from tests.browser.test_wizard import NEXT, fill_step
from tests.quotes.sales.test_quote_services import _user, wizard_request_make
from tests.quotes.wizard.wizard_cases import CASES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ` +
    `${event.sourceFile}:${event.lineNumber}`
  );
});
"""
REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
DETAIL = re.compile(r"/staff/quotes/(\d+)/$")


@pytest.fixture
def csp_page(new_page):
    """``(page, check)``: a page that records every violation; ``check(label)`` asserts none so
    far on the current document and in the console."""
    page = new_page("en")
    console: list[str] = []
    page.on(
        "console",
        lambda message: (
            console.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.add_init_script(LISTENER)

    def check(label: str, *, refused: tuple[str, ...] = ()) -> None:
        """No violation on the page, but for the ``refused`` ones, which must happen."""
        page.wait_for_load_state("networkidle")
        violations = page.evaluate("window.__cspViolations")
        assert sorted(violations) == sorted(refused), f"{label}: {violations}"
        assert len(console) == len(refused), f"{label}: {console}"
        console.clear()

    return page, check


def test_wizard_steps_result_and_quote_request_break_no_policy(csp_page):
    page, check = csp_page

    page.goto("/")
    for step, answers in CASES["fine_tuning"].items():
        check(f"step {step}")
        fill_step(page, answers, "en")
        page.click(NEXT)
        page.wait_for_load_state()
    assert "/r/" in page.url
    check("result")
    assert page.locator(".memory-bar svg rect").count() >= 2  # the bar is drawn, styles allowed

    quote_form_send(page)
    check("quote sent")


def test_memory_bar_segments_are_as_wide_as_their_share(csp_page):
    page, check = csp_page
    page.goto("/")
    for answers in CASES["inference"].values():
        fill_step(page, answers, "en")
        page.click(NEXT)
        page.wait_for_load_state()

    page.click("details.memory-details > summary")  # the table by part is closed at first
    bar = page.locator(".memory-bar").bounding_box()
    widths = page.locator(".memory-bar svg rect").evaluate_all(
        "rects => rects.map(r => r.getBoundingClientRect().width)"
    )
    shares = page.locator(".memory-table tbody td:nth-child(3)").all_inner_texts()
    assert len(widths) == len(shares) >= 2
    assert sum(widths) == pytest.approx(bar["width"], abs=1)
    for width, share in zip(widths, shares, strict=True):
        percent = float(share.replace("%", "").replace("\u00a0", "").strip())
        assert width / bar["width"] * 100 == pytest.approx(percent, abs=0.2)
    check("result")


def test_sales_screens_break_no_policy(csp_page, django_user_model):
    call_command("setup_roles", stdout=StringIO())
    _user(django_user_model, "rep", services.REP_GROUP)
    wizard_request_make()
    page, check = csp_page

    sign_in(page, "rep")
    check("dashboard")
    page.locator("section[aria-labelledby=requests-title]").locator(
        "button:has-text('Create the quote')"
    ).click()
    page.wait_for_url(DETAIL)
    check("quote")
    page.goto("/staff/quotes/new/")
    check("new quote")
    page.goto("/staff/")
    page.click("nav.actions button:has-text('Sign out')")
    page.wait_for_url("**/staff/login/")
    check("login")


def test_admin_breaks_no_policy(csp_page, django_user_model):
    django_user_model.objects.create_superuser("admin", "admin@example.com", "not-a-real-password")
    page, check = csp_page

    page.goto("/admin/login/")
    check("admin login")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "not-a-real-password")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    check("admin index")
    for path in (
        "/admin/quotes/quote/",
        "/admin/catalog/gpu/",
        "/admin/catalog/gpu/1/change/",
        "/admin/auth/user/add/",
    ):
        page.goto(path)
        check(path)


def test_api_docs_break_no_policy(csp_page):
    page, check = csp_page

    page.goto("/api/v1/docs/")
    page.wait_for_selector(".swagger-ui .info .title:has-text('GPUQuote API')")
    page.wait_for_selector(".swagger-ui .opblock")
    check("swagger ui")
    page.goto("/api/v1/redoc/")
    page.wait_for_selector("h1:has-text('GPUQuote API')")
    # Redoc's "API docs by Redocly" logo comes from its CDN: refused on purpose (nothing is
    # fetched from another site); Redoc then shows the link without it.
    check("redoc", refused=(f"img-src blocked {REDOCLY_LOGO} at :0",))
