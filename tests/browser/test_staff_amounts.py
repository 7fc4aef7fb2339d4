"""The sales pages as French and English staff and customers see them: a French rep saves the
quote's terms (the date field keeps an ISO value the browser accepts), amounts never break across
lines (a phone's customer page, the staff editor at 1440 px) and the staff editor uses the
desktop's width."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from quotes.models import Quote
from quotes.sales import services
from tests.browser.test_staff_quote import sign_in
from tests.quotes.sales.test_quote_services import _user, quote_make

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# Every amount in <main> (``564 203,38 €``, ``€17,939.70``) as the reader sees it: its text and
# on how many lines it is drawn (a Range has one client rectangle per line it spans); and every
# button's label, which is one word or a short phrase that must not break either.
AMOUNTS_AND_BUTTONS = r"""
() => {
  const amount = /-?\d[\d\s.,]*\d\s*€|€\s*\d[\d\s.,]*\d/g;
  const lines = range => new Set([...range.getClientRects()]
    .filter(r => r.width > 0 && r.height > 0).map(r => Math.round(r.top))).size;
  const found = [];
  const main = document.querySelector('main');
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('option, script, style, svg')) continue;
    for (const match of node.textContent.matchAll(amount)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      found.push({kind: 'amount', text: match[0], lines: lines(range)});
    }
  }
  for (const button of main.querySelectorAll('button')) {
    const range = document.createRange();
    range.selectNodeContents(button);
    found.push({kind: 'button', text: button.innerText, lines: lines(range)});
  }
  return found.filter(item => item.lines > 0);
}
"""


@pytest.fixture
def rep(django_user_model):
    call_command("setup_roles", stdout=StringIO())
    return _user(django_user_model, "rep", services.REP_GROUP)


def _big_quote(rep) -> Quote:
    """Amounts of six digits and more, one-off and monthly: the ones that used to break."""
    lines = [
        services.LineInput(
            kind="part", sku="GPU-H100", description="NVIDIA H100 SXM5 80 GB",
            quantity=Decimal(16), unit_price=Decimal("29387.65"),
        ),
        services.LineInput(
            kind="service", description="Managed hosting, 2 servers",
            quantity=Decimal(1), unit_price=Decimal("17939.70"), recurrence="monthly",
        ),
    ]  # fmt: skip
    return quote_make(rep, lines=lines)


def _assert_unbroken(page, name: str) -> list[dict]:
    found = page.evaluate(AMOUNTS_AND_BUTTONS)
    amounts = [item for item in found if item["kind"] == "amount"]
    assert len(amounts) >= 5, (name, found)
    broken = [item for item in found if item["lines"] != 1]
    assert broken == [], (name, broken)
    # Between the digits and the symbol, and between groups, only no-break spaces.
    spaced = [item["text"] for item in amounts if " " in item["text"]]
    assert spaced == [], (name, spaced)
    return found


def _width(page, selector: str) -> float:
    return page.evaluate(f"document.querySelector('{selector}').getBoundingClientRect().width")


def test_a_french_rep_on_a_phone_saves_discount_validity_and_notes(new_page, shoot, rep):
    quote = _big_quote(rep)
    revision = quote.revision
    page = new_page("fr", width=390, height=844)
    sign_in(page, "rep")
    page.goto(f"/staff/quotes/{quote.pk}/#terms")
    shoot(page, "staff-terms-fr-390")

    date_input = page.locator("#terms_valid_until")
    assert date_input.get_attribute("type") == "date"
    assert date_input.get_attribute("value") == revision.valid_until.isoformat()
    assert date_input.input_value() == revision.valid_until.isoformat()

    # Discount and notes changed, the date left as it is: Save goes through.
    page.fill("#terms_discount_pct", "5")
    page.fill("#terms_notes", "Livraison sous six semaines.")
    with page.expect_navigation():
        page.click("#terms button[type=submit]")
    quote.refresh_from_db()
    saved = quote.revision
    assert (saved.discount_pct, saved.notes) == (Decimal(5), "Livraison sous six semaines.")
    assert saved.valid_until == revision.valid_until
    assert "Enregistré" in page.locator("[role=status]").first.inner_text()

    # A new validity date, typed in the browser's own date field.
    later = revision.valid_until + dt.timedelta(days=10)
    page.fill("#terms_valid_until", later.isoformat())
    with page.expect_navigation():
        page.click("#terms button[type=submit]")
    quote.refresh_from_db()
    assert quote.revision.valid_until == later
    assert page.locator("#terms_valid_until").input_value() == later.isoformat()
    shoot(page, "staff-terms-fr-390-saved")


def test_amounts_never_break_on_a_french_phone(new_page, shoot, rep):
    quote = _big_quote(rep)
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    page = new_page("fr", width=390, height=844)
    page.goto(f"/q/{quote.token}/")
    shoot(page, "customer-quote-fr-390")

    found = _assert_unbroken(page, "customer quote, fr, 390 px")
    assert any(re.fullmatch(r"564\s242,88\s€", item["text"]) for item in found), found


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_staff_editor_uses_the_desktop_and_keeps_amounts_whole(new_page, shoot, rep, language):
    quote = _big_quote(rep)
    page = new_page(language, width=1440, height=900)
    sign_in(page, "rep")
    page.goto(f"/staff/quotes/{quote.pk}/")
    shoot(page, f"staff-quote-{language}-1440")

    # The whole desktop, not a column of 1,152 px with the line table squeezed inside.
    main, lines = (_width(page, selector) for selector in ("main", "table.lines"))
    assert main > 1200, main
    assert lines > 1100, lines
    _assert_unbroken(page, f"staff quote, {language}, 1440 px")
