"""A 24×7 support level chosen in the wizard, in a real browser, found again on the result page,
in the checklist PDF and in the quote PDF, with the same price and what the host does.
"""

from __future__ import annotations

import io
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation
from pypdf import PdfReader

from catalog.selectors.service_tiers import service_tier_get
from gpuquote.core.formatting import money_format
from quotes.models import Quote, WizardResult
from quotes.pdf.quote import quote_pdf_render
from quotes.sales import services
from tests.browser.conftest import publish_screenshot, quote_form_send
from tests.browser.test_staff_quote import DETAIL, sign_in
from tests.browser.test_wizard import _same, walk
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.wizard_cases import CASES, stored_advice

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]


def _pdf_text(content: bytes) -> str:
    return _same(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages))


def test_a_24x7_support_level_from_the_wizard_to_the_quote_pdf(new_page, shoot, django_user_model):
    call_command("setup_roles", stdout=StringIO())
    _user(django_user_model, "rep", services.REP_GROUP)
    always = service_tier_get(code="24x7", currency="EUR")
    assert always is not None
    assert always.monthly.amount > 0
    case = CASES["fine_tuning"]  # managed hosting, France, 3 years
    case = case | {"deployment": case["deployment"] | {"service_tier": "24x7"}}
    page = new_page("en")

    # The deployment step offers the tiers with their prices and what the host does
    page.goto("/")
    url = walk(page, case, "en")

    advice = stored_advice(WizardResult.objects.get())
    chosen = advice.chosen
    assert chosen is not None
    assert advice.tco is not None
    assert advice.tco.service_tier == always
    servers = chosen.servers
    support_monthly = always.monthly.amount * servers
    # The TCO's managed option bills it as its support line, every month of the horizon
    managed = advice.tco.managed
    assert managed is not None
    assert managed.by_category["support"].amount == support_monthly * 36
    fee = advice.managed_offers[chosen.tier].term(36).monthly.amount
    with translation.override("en"):
        monthly_text = _same(money_format((fee + always.monthly.amount) * servers, "EUR", places=0))
        support_text = _same(money_format(support_monthly, "EUR", places=0))

    # The result page: the option's monthly figure includes the support, the offer says what
    # it adds, and the operations section says what the host does
    option_sub = _same(page.locator(f".option[data-tier='{chosen.tier}'] .option-sub").inner_text())
    assert monthly_text in option_sub
    page.locator("details.managed-offer > summary").click()
    price = page.locator("#service-tier-price")
    assert price.get_attribute("data-tier") == "24x7"
    assert support_text in _same(price.inner_text())
    page.locator("#operations > summary").click()  # folded in the checklist, like every detail
    support = page.locator("#support-level")
    assert support.get_attribute("data-tier") == "24x7"
    support_said = _same(support.inner_text())
    assert "Support: 24×7" in support_said
    assert "a first answer within 30 min" in support_said
    assert "A failed part replaced within 4 h" in support_said
    assert page.locator("#monitoring-plan tr[data-watch='gpu_temperature']").count() == 1
    assert page.locator("#software-stack tr[data-line='driver']").count() == 1
    page.locator("#operations").scroll_into_view_if_needed()
    whole = shoot(page, "service-tier-result")
    section = whole.with_name("operations.png")
    page.locator("#operations").screenshot(path=str(section))
    publish_screenshot(section, "operations.png")  # the README's

    # The checklist PDF: software, monitoring and support, after the five points
    with page.expect_download() as download_info:
        page.click(".result-actions a[href$='checklist.pdf']")
    checklist = _pdf_text(download_info.value.path().read_bytes())
    assert "Software, monitoring and support" in checklist
    assert checklist.index("The five points") < checklist.index("Software, monitoring")
    assert "Support: 24×7" in checklist
    assert "a first answer within 30 min" in checklist
    assert "DCGM_FI_DEV_GPU_TEMP" in checklist

    # The quote: the customer asks, the rep makes it in one click; it bills the tier per server
    page.goto(url + "#quote")
    quote_form_send(page)
    staff = new_page("en")
    sign_in(staff, "rep")
    staff.locator("section[aria-labelledby=requests-title]").locator(
        "button:has-text('Create the quote')"
    ).click()
    staff.wait_for_url(DETAIL)
    quote = Quote.objects.get()
    revision = quote.current_revision
    assert revision is not None
    line = revision.lines.get(role="service_tier")
    assert (line.unit_price, line.quantity, line.recurrence) == (
        always.monthly.amount,
        Decimal(servers),
        "monthly",
    )
    pdf = _pdf_text(quote_pdf_render(quote=quote))
    assert "Support: 24×7, per server" in pdf
    with translation.override("en"):
        assert _same(money_format(always.monthly.amount, "EUR", places=2)) in pdf
    assert "Included in managed hosting with this support level:" in pdf
    assert "a first answer within 30 min" in pdf
    assert "The system disks backed up every day" in pdf
