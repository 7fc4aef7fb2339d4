"""A sales quote's whole life in a real browser (Chromium), from the wizard request to the
customer's acceptance: the rep makes the quote in one click and grants a discount over the
threshold, a manager approves it, the rep sends it (the e-mail with its PDF), the customer
accepts from the private link.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command

from quotes.models import Quote, QuoteEvent
from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user, wizard_request_make

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

PASSWORD = "not-a-real-password"  # what tests.quotes' _user sets
DETAIL = re.compile(r"/staff/quotes/(\d+)/$")


def sign_in(page, username: str) -> None:
    page.goto("/staff/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.panel button[type=submit]")
    page.wait_for_url("**/staff/")


def sign_out(page) -> None:
    page.click("nav.actions button:has-text('Sign out')")
    page.wait_for_url("**/staff/login/")


def action_button(page, action: str):
    return page.locator(f"button[name=do][value={action}]")


def test_wizard_request_to_accepted_quote(new_page, shoot, django_user_model):
    call_command("setup_roles", stdout=StringIO())
    _user(django_user_model, "rep", services.REP_GROUP)
    _user(django_user_model, "manager", services.MANAGER_GROUP)
    quote_request = wizard_request_make(deployment="on_premises")
    page = new_page("en")

    # The rep: one click from the request to a quote, then a 15 % discount.
    sign_in(page, "rep")
    requests = page.locator("section[aria-labelledby=requests-title]")
    assert "Acme" in requests.inner_text()
    shoot(page, "staff-dashboard")
    requests.locator("button:has-text('Create the quote')").click()
    page.wait_for_url(DETAIL)
    quote = Quote.objects.get()
    assert quote.current_revision.lines.count() == 2  # the chassis and the GPUs
    quote_request.refresh_from_db()
    assert quote_request.status == "handled"
    detail_url = page.url
    page.fill("#terms [name=discount_pct]", "15")  # the line forms have one too
    with page.expect_navigation():
        page.click("#terms button[type=submit]")
    assert "Saved." in page.locator("[role=status]").first.inner_text()

    # Over the 10 % threshold: no Send button, and the page says why.
    alert = page.locator("p.error-summary[role=alert]")
    assert "a sales manager must approve it" in alert.inner_text()
    assert action_button(page, "send").count() == 0
    assert action_button(page, "approve_discount").count() == 0
    shoot(page, "staff-quote-needs-approval")
    sign_out(page)

    # The manager approves.
    sign_in(page, "manager")
    page.goto(detail_url)
    with page.expect_navigation():
        action_button(page, "approve_discount").click()
    approval = page.locator("p.note", has_text="approved by manager").inner_text()
    assert re.match(r"Discount of 15(\.00)?\s%", approval), approval
    assert page.locator("p.error-summary[role=alert]").count() == 0
    shoot(page, "staff-quote-approved")
    sign_out(page)

    # The rep sends it: one e-mail to the customer, the PDF attached, the absolute link.
    # The request's parts are not in this test's catalog: the server checks say so, and the
    # browser will not send before the rep ticks "Send anyway".
    sign_in(page, "rep")
    page.goto(detail_url)
    checks = page.locator("#server-checks")
    assert "CHS-1 is not in the catalog" in checks.inner_text()
    action_button(page, "send").click()
    quote.refresh_from_db()
    assert page.url == detail_url
    assert quote.status == "draft"
    shoot(page, "staff-quote-server-checks")
    page.check("#acknowledge-checks")
    with page.expect_navigation():
        action_button(page, "send").click()
    quote.refresh_from_db()
    assert quote.status == "sent"
    assert page.locator("h1 .badge").inner_text().strip().lower() == "sent"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.com"]
    (name, content, mimetype) = message.attachments[0]
    assert (name, mimetype) == (f"{quote.number}.pdf", "application/pdf")
    assert content[:5] == b"%PDF-"
    public_path = f"/q/{quote.token}/"
    assert public_path in message.body
    shoot(page, "staff-quote-sent")
    sign_out(page)

    # The customer accepts from the private link.
    customer = new_page("en")
    customer.goto(public_path)
    customer.fill("#id_name", "Ada Lovelace")
    accept = customer.locator("#accept-button")
    assert "primary" in (accept.get_attribute("class") or "")
    with customer.expect_navigation():
        accept.click()
    confirmation = customer.locator("p.confirmation[role=status]")
    assert "Accepted by Ada Lovelace" in confirmation.inner_text()
    shoot(customer, "customer-quote-accepted")
    quote.refresh_from_db()
    assert quote.status == "accepted"
    event = QuoteEvent.objects.get(quote=quote, kind="customer_answer")
    assert (event.actor_name, event.to_status, event.actor) == ("Ada Lovelace", "accepted", None)


def test_a_rep_builds_a_server_from_a_workload_and_sees_a_broken_rule(
    new_page, shoot, django_user_model
):
    call_command("load_catalog", stdout=StringIO())
    _user(django_user_model, "rep", services.REP_GROUP)
    page = new_page("en")
    sign_in(page, "rep")
    page.goto("/staff/quotes/new/")
    for name, value in {"company": "Initech", "contact_name": "Peter",
                        "email": "p@initech.example"}.items():  # fmt: skip
        page.fill(f"[name={name}]", value)
    page.select_option("[name=country]", "FR")  # a select of every ISO 3166 country
    page.click("form.panel button[type=submit]")
    page.wait_for_url(DETAIL)

    # The job: serve Llama 3.1 8B in production; the builder proposes, one click applies.
    page.select_option("#workload_model", "llama-3.1-8b")
    with page.expect_navigation():
        page.click("#workload button[type=submit]")
    budget = page.locator("#workload tr[data-tier=budget]")
    with page.expect_navigation():
        budget.locator("button").click()
    checks = page.locator("#server-checks")
    assert "pass every check" in checks.inner_text()
    assert page.locator("#acknowledge-checks").count() == 0

    # One memory module left: the RAM rule fails, with its figures, and sending asks for a tick.
    memory_row = page.locator("table.lines tbody tr", has_text="DDR5")
    quantity = memory_row.locator("input[name=quantity]")
    quantity.fill("1")
    with page.expect_navigation():
        memory_row.locator("button:has-text('Update')").click()
    failed = page.locator("#server-checks li.check.fail[data-rule=system_ram]")
    assert "GB" in failed.inner_text()
    assert page.locator("#acknowledge-checks").count() == 1
    shoot(page, "staff-quote-hand-build")
