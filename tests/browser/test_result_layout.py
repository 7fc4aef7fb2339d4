"""The result page at a desktop (1440 × 900) and a phone (390 × 844) viewport: the answer and its
first price in the first screen, the whole page within a few screens with the details closed, and
nothing wider than the screen."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from quotes.sales import services
from tests.browser.conftest import publish_screenshot
from tests.browser.test_staff_quote import sign_in
from tests.browser.test_wizard import walk
from tests.quotes.sales.test_quote_services import _user, wizard_request_make
from tests.quotes.wizard.wizard_cases import CASES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# width, height, most screens the page may take with its details closed: the layout targets
# (from 11.4 and 36 screens when it was filed).
VIEWPORTS = {"desktop": (1440, 900, 4), "phone": (390, 844, 12)}


def _measure(page) -> dict:
    return page.evaluate(
        """() => {
            const answer = document.querySelector('#answer');
            const price = document.querySelector('#answer [data-cost] dd');
            // The chart as drawn: its text size times the drawing's scale on screen
            const chart = [...document.querySelectorAll('svg.chart')]
                .find(svg => svg.getBoundingClientRect().width > 0);
            const scale = chart
                ? chart.getBoundingClientRect().width / chart.viewBox.baseVal.width
                : null;
            return {
                height: document.documentElement.scrollHeight,
                width: document.documentElement.scrollWidth,
                viewport: window.innerWidth,
                answerTop: answer ? answer.getBoundingClientRect().top + window.scrollY : null,
                priceBottom: price ? price.getBoundingClientRect().bottom + window.scrollY : null,
                chartFontPx: scale === null
                    ? null
                    : Number(chart.getAttribute('font-size')) * scale,
            };
        }"""
    )


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("name", ["inference", "fine_tuning", "training"])
def test_the_answer_is_in_the_first_screen_and_the_page_stays_short(
    new_page, shoot, name, viewport
):
    width, height, screens = VIEWPORTS[viewport]
    page = new_page("en", width=width, height=height)
    walk(page, CASES[name], "en")

    found = _measure(page)
    path = shoot(page, f"layout-{viewport}-{name}")
    if name == "fine_tuning" and viewport == "phone":
        publish_screenshot(path, "result-phone.png", max_height=2600)
    assert found["width"] <= found["viewport"], found  # no sideways scrolling
    assert found["priceBottom"] is not None
    assert found["priceBottom"] <= height, found  # the answer's first price, unscrolled
    assert found["height"] <= screens * height, found
    assert found["chartFontPx"] >= 11, found  # chart labels readable at this width


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_french_page_keeps_the_same_shape(new_page, shoot, viewport):
    """French runs longer than English: the answer still comes first and the page stays within
    the same number of screens (and it is the README's French screenshot)."""
    width, height, screens = VIEWPORTS[viewport]
    page = new_page("fr", width=width, height=height)
    walk(page, CASES["fine_tuning"], "fr")

    found = _measure(page)
    path = shoot(page, f"layout-{viewport}-fine_tuning-fr")
    name = "result-fr.png" if viewport == "desktop" else "result-phone-fr.png"
    publish_screenshot(path, name, max_height=2600 if viewport == "phone" else 2200)
    assert found["width"] <= found["viewport"], found
    assert found["priceBottom"] is not None
    assert found["priceBottom"] <= height, found
    assert found["height"] <= screens * height, found


def test_no_quote_page_is_wider_than_a_phone(new_page, shoot, django_user_model):
    call_command("setup_roles", stdout=StringIO())
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = services.quote_create_from_request(
        user=rep, quote_request=wizard_request_make(deployment="on_premises")
    )
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    page = new_page("en", width=390, height=844)
    widths: dict[str, int] = {}
    page.goto(f"/q/{quote.token}/")
    widths["customer quote"] = _measure(page)["width"]
    shoot(page, "layout-phone-customer-quote")
    sign_in(page, "rep")
    widths["staff dashboard"] = _measure(page)["width"]
    shoot(page, "layout-phone-staff-dashboard")
    page.goto(f"/staff/quotes/{quote.pk}/")
    widths["staff quote"] = _measure(page)["width"]
    shoot(page, "layout-phone-staff-quote")
    assert all(width <= 390 for width in widths.values()), widths


def test_the_customer_reprices_on_another_gpu_count_without_leaving_the_page(new_page, shoot):
    page = new_page("en", width=1440, height=900)
    walk(page, CASES["fine_tuning"], "en")
    first_url = page.url
    needed = int(page.locator("#answer").get_attribute("data-gpus") or 0)

    page.locator("#reprice summary").click()
    page.fill("#id_gpu_count", str(needed + 1))
    page.select_option("#id_region", "DE")
    page.locator("#reprice button[type=submit]").click()
    page.wait_for_load_state()

    assert page.url != first_url  # a new private link; the old one keeps its figures
    assert int(page.locator("#answer").get_attribute("data-gpus") or 0) >= needed + 1
    assert page.locator("#preference").is_visible()
    assert "Germany" in page.locator(".summary").inner_text()
    shoot(page, "reprice-desktop")
