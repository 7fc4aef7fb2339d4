"""Managed hosting from the wizard's answer to the quote PDF, in a real browser: one monthly fee,
one term discount and one contract total on the result page, the staff quote screen, the
customer's quote page and the PDF."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation
from pypdf import PdfReader

from gpuquote.core.formatting import money_format
from quotes.models import Quote, QuoteRequest, WizardResult
from quotes.pdf.quote import quote_pdf_render
from quotes.sales import services
from quotes.sales.selectors import revision_totals_get
from tests.browser.conftest import quote_form_send
from tests.browser.test_staff_quote import DETAIL, sign_in
from tests.browser.test_wizard import walk
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.wizard_cases import CASES, stored_advice

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

SPACES = re.compile(r"[\s\u00a0\u202f]+")


def _same(text: str) -> str:
    return SPACES.sub(" ", text).strip()


def test_the_managed_fee_is_the_same_from_the_result_page_to_the_quote_pdf(
    new_page, shoot, django_user_model
):
    call_command("setup_roles", stdout=StringIO())
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    page = new_page("en")
    case = CASES["fine_tuning"]  # managed hosting, France, 3 years
    assert case["deployment"]["deployment"] == "managed"

    url = walk(page, case, "en")

    advice = stored_advice(WizardResult.objects.get())
    chosen = advice.chosen
    assert chosen is not None
    assert advice.tco is not None
    assert advice.tco.managed is not None
    contract = advice.managed_offers[chosen.tier].term(36)
    assert contract.months == 36
    servers = chosen.servers
    monthly_all = contract.monthly.amount * servers
    with translation.override("en"):
        fee_text = _same(money_format(monthly_all, "EUR", places=0))
    # The result page: under the option, and the signed term in the offer table
    option_sub = _same(page.locator(f".option[data-tier='{chosen.tier}'] .option-sub").inner_text())
    assert fee_text in option_sub
    assert "36-month contract" in option_sub
    page.locator("details.managed-offer > summary").click()  # closed by default
    signed = page.locator("#managed-offer tr.signed")
    assert signed.get_attribute("data-term") == "36"
    assert _same(signed.locator("td").first.inner_text()) == fee_text
    discount = int(contract.discount * 100)
    assert _same(signed.locator("td").nth(2).inner_text()) == f"{discount} %"
    # The TCO bills that fee: 36 months of it plus its setup
    fees = advice.tco.managed.by_category
    assert fees["hosting_fees"].amount == monthly_all * 36
    assert fees["setup"].amount == contract.setup.amount * servers
    shoot(page, "managed-offer")

    # The customer asks for a quote; the rep makes it in one click
    page.goto(url + "#quote")
    quote_form_send(page)
    assert QuoteRequest.objects.count() == 1
    staff = new_page("en")
    sign_in(staff, "rep")
    staff.locator("section[aria-labelledby=requests-title]").locator(
        "button:has-text('Create the quote')"
    ).click()
    staff.wait_for_url(DETAIL)

    quote = Quote.objects.get()
    revision = quote.current_revision
    assert revision is not None
    hosting = revision.lines.get(role="managed_hosting")
    assert not revision.lines.filter(kind="part").exists()  # the host owns the hardware
    assert (hosting.unit_price, hosting.quantity) == (contract.monthly.amount, Decimal(servers))
    assert revision.contract_months == 36
    totals = revision_totals_get(quote=quote, revision=revision)
    assert totals.monthly.net.amount == monthly_all
    # The quote's contract total is the TCO's hosting bill over the 3 years
    contract_total = totals.contract.net.amount
    assert contract_total == fees["hosting_fees"].amount + fees["setup"].amount
    panel = _same(staff.locator("#managed-fee").inner_text())
    with translation.override("en"):
        per_server = _same(money_format(contract.monthly.amount, "EUR", places=2))
        total_text = _same(money_format(contract_total, "EUR", places=2))
    assert per_server in panel
    assert "36-month contract" in panel
    assert per_server in _same(staff.locator("table.lines").inner_text())
    # The quote screen leads with the answer the customer saw
    answer = _same(staff.locator("#answer").inner_text())
    with translation.override("en"):
        assert _same(money_format(monthly_all, "EUR", places=0)) in answer
    assert "36-month contract" in answer
    shoot(staff, "managed-staff-quote")

    # Once sent, the customer's page and the PDF say the same
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    customer = new_page("en")
    customer.goto(f"/q/{quote.token}/")
    customer_text = _same(customer.locator("main").inner_text())
    assert per_server in customer_text
    assert "36-month contract" in customer_text
    assert total_text in customer_text
    split = _same(customer.locator("#managed-split").inner_text())
    with translation.override("en"):
        assert _same(money_format(contract_total, "EUR", places=0)) in split
    shoot(customer, "managed-customer-quote")
    pdf = PdfReader(io.BytesIO(quote_pdf_render(quote=quote)))
    pdf_text = _same(" ".join(page.extract_text() for page in pdf.pages))
    assert per_server in pdf_text
    assert "36-month contract" in pdf_text
    assert f"{discount} % term discount" in pdf_text, pdf_text[:1500]
    assert total_text in pdf_text
