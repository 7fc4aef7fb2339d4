"""The sales documents in a real browser at a desktop's and a phone's size: the staff dashboard
(with the approval queue), the staff quote, the customer's quote page and the catalog's price
tables in the admin never widen the page; axe-core finds nothing serious or critical."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from quotes.sales import services
from tests.browser.test_staff_quote import sign_in
from tests.quotes.sales.test_quote_services import _user, quote_make, wizard_request_make

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

VIEWPORTS = [pytest.param(1440, 900, id="desktop"), pytest.param(390, 844, id="phone")]

# Every element whose right edge passes the viewport's (a page wider than the screen scrolls
# sideways); elements inside a box that scrolls on its own are that box's business.
WIDER_THAN_VIEWPORT = """
() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (p !== document.body && p !== document.documentElement
          && ['auto', 'scroll', 'hidden'].includes(style.overflowX)) return true;
    }
    return false;
  };
  return [...document.querySelectorAll('body *')]
    .filter(el => el.getBoundingClientRect().right > width + 1 && !scrolls(el))
    .map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
         + (typeof el.className === 'string' && el.className
            ? '.' + el.className.trim().split(/\\s+/).join('.') : ''))
    .slice(0, 10);
}
"""


def assert_fits(page, name: str) -> None:
    assert page.evaluate(WIDER_THAN_VIEWPORT) == [], name
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= page.viewport_size["width"], (name, scroll_width)


@pytest.fixture
def people(django_user_model):
    call_command("setup_roles", stdout=StringIO())
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    _user(django_user_model, "manager", services.MANAGER_GROUP)
    return rep


def _quote_waiting_for_approval(rep):
    quote = quote_make(rep, country="DE", vat_number="DE136491529")
    services.quote_terms_update(
        user=rep, quote=quote, discount_pct=Decimal(15),
        valid_until=timezone.localdate() + dt.timedelta(30), contract_months=12,
    )  # fmt: skip
    return quote


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_the_staff_pages_fit_the_screen(new_page, shoot, axe, people, width, height):
    wizard_request_make(deployment="on_premises")
    quote = _quote_waiting_for_approval(people)
    page = new_page("en", width=width, height=height)
    sign_in(page, "manager")

    queue = page.locator("#approvals")
    assert quote.number in queue.inner_text()
    requests = page.locator("section[aria-labelledby=requests-title]")
    assert "2 servers × 8 NVIDIA H100" in requests.inner_text()
    assert "€460,000 to buy" in requests.inner_text()
    assert_fits(page, "dashboard")
    axe(page, f"staff-dashboard-{width}")
    shoot(page, f"staff-dashboard-{width}")

    page.goto(f"/staff/quotes/{quote.pk}/")
    assert page.locator("#customer_vat_number").input_value() == "DE136491529"
    assert_fits(page, "staff quote")
    axe(page, f"staff-quote-{width}")
    shoot(page, f"staff-quote-{width}")

    # Approving from the queue comes back to it, empty.
    page.goto("/staff/")
    with page.expect_navigation():
        queue.locator("button").click()
    assert "No discount waits for approval." in page.locator("#approvals").inner_text()


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_the_customer_quote_page_fits_and_offers_its_pdf(
    new_page, shoot, axe, people, width, height
):
    quote = quote_make(people)
    services.quote_send(user=people, quote=quote, failed_checks_acknowledged=True)
    page = new_page("en", width=width, height=height)
    page.goto(f"/q/{quote.token}/")

    accept = page.locator("#accept-button")
    assert accept.is_visible()
    assert "primary" in (accept.get_attribute("class") or "")
    assert "secondary" in (page.locator("#decline-button").get_attribute("class") or "")
    assert_fits(page, "customer quote")
    axe(page, f"customer-quote-{width}")
    shoot(page, f"customer-quote-{width}")
    with page.expect_download() as download:
        page.click("#quote-pdf")
    assert download.value.suggested_filename == f"{quote.number}.pdf"

    # Expired: the page says so instead of offering the buttons.
    quote.current_revision.valid_until = timezone.localdate() - dt.timedelta(days=1)
    quote.current_revision.save(update_fields=["valid_until"])
    page.reload()
    assert "This quote expired on" in page.locator("#closed-reason").inner_text()
    assert page.locator("#accept-button").count() == 0
    assert_fits(page, "customer quote, expired")


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_the_admin_price_tables_fit_the_screen(new_page, shoot, django_user_model, width, height):
    django_user_model.objects.create_superuser("admin", "admin@example.com", "not-a-real-password")
    page = new_page("en", width=width, height=height)
    page.goto("/admin/login/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "not-a-real-password")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")

    page.goto("/admin/catalog/price/")
    assert page.locator("#result_list tbody tr").count() > 0
    assert_fits(page, "admin prices")
    shoot(page, f"admin-prices-{width}")
    page.goto("/admin/catalog/gpu/")
    page.locator("#result_list tbody tr th a").first.click()
    page.wait_for_url("**/change/")
    assert page.locator(".inline-group").count() == 1
    assert_fits(page, "admin part with its prices")
    shoot(page, f"admin-part-prices-{width}")
