"""Money and approval attacks: a rep may not bend a quote's price past the
discount-approval rule by any price path.

Each test is named after the attack and asserts the refusal; the rule is the engine's one
effective-discount measure against catalog prices (``engine.commerce.pricing``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from quotes.sales import selectors, services
from quotes.templatetags.money import money
from tests.factories import ecb_rates_load, gpu_make, price_make
from tests.quotes.sales.test_quote_services import TODAY, _user, quote_make, totals

pytestmark = pytest.mark.django_db

NEEDS_APPROVAL = "must approve it before the quote is sent"


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def manager(django_user_model):
    return _user(django_user_model, "boss", services.MANAGER_GROUP)


@pytest.fixture
def dollar_gpu():
    """A GPU the catalog prices in dollars only: a euro quote converts it at the quote's rate."""
    ecb_rates_load()
    part = gpu_make(sku="NVIDIA-H100-SXM5-80GB")
    price_make(part, amount=Decimal("30000.00"), currency="USD", observed_on=dt.date(2026, 11, 1))
    return part


def _rate_quote(rep, rate):
    quote = quote_make(rep, lines=[], currency="EUR", exchange_rate=rate)
    services.quote_line_add_part(
        user=rep, quote=quote, sku="NVIDIA-H100-SXM5-80GB", quantity=Decimal(8)
    )
    quote.refresh_from_db()
    return quote


def _send(rep, quote):
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)


def test_attack_exchange_rate_near_zero_is_a_discount_that_needs_approval(rep, manager, dollar_gpu):
    quote = _rate_quote(rep, Decimal("0.000001"))

    assert totals(quote).effective_discount_pct == Decimal("100.00")
    with pytest.raises(ValidationError, match=NEEDS_APPROVAL):
        _send(rep, quote)
    quote.refresh_from_db()
    assert quote.status == "draft"
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    _send(rep, quote)


def test_attack_exchange_rate_within_the_tolerance_needs_no_approval(rep, dollar_gpu, settings):
    settings.QUOTE_EXCHANGE_RATE_TOLERANCE_PCT = "2"
    quote = _rate_quote(rep, Decimal("0.922594"))  # 1 / 1.0839, an ECB rate of these days

    assert totals(quote).effective_discount_pct == Decimal("0.00")
    _send(rep, quote)
    quote.refresh_from_db()
    assert quote.status == "sent"


@pytest.mark.parametrize("factor", [Decimal("0.95"), Decimal("1.05")])
def test_attack_exchange_rate_beyond_the_tolerance_needs_approval(
    rep, manager, dollar_gpu, settings, factor
):
    settings.QUOTE_EXCHANGE_RATE_TOLERANCE_PCT = "2"
    quote = _rate_quote(rep, (Decimal("0.922594") * factor).quantize(Decimal("0.000001")))

    assert totals(quote).effective_discount_pct < Decimal(10)  # under the discount threshold
    with pytest.raises(ValidationError, match="away from the day's reference rate"):
        _send(rep, quote)
    assert [w.quote for w in selectors.quotes_awaiting_approval(today=TODAY)] == [quote]
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    _send(rep, quote)


def test_attack_exchange_rate_beyond_the_tolerance_is_told_on_the_staff_page(
    client, rep, dollar_gpu, settings
):
    settings.QUOTE_EXCHANGE_RATE_TOLERANCE_PCT = "2"
    quote = _rate_quote(rep, Decimal("0.876464"))  # 5 % under 0.922594
    client.force_login(rep)

    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()

    assert "away from the day's reference rate" in page
    assert "The effective discount of" not in page


# --- 2. Hand-priced parts ----------------------------------------------------------------------


def _hand_part(rep, quote, price="1.00", kind="part"):
    line = services.LineInput(
        kind=kind, description="NVIDIA H100", quantity=Decimal(8), unit_price=Decimal(price)
    )
    services.quote_line_add(user=rep, quote=quote, line=line, today=TODAY)
    quote.refresh_from_db()


def test_attack_hand_priced_part_at_one_euro_needs_approval(client, rep, manager):
    quote = quote_make(rep, lines=[])
    _hand_part(rep, quote)

    assert totals(quote).hand_priced_parts == 1
    with pytest.raises(ValidationError, match="A part priced by hand"):
        _send(rep, quote)
    assert [w.quote for w in selectors.quotes_awaiting_approval(today=TODAY)] == [quote]
    client.force_login(rep)
    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()
    assert "A part priced by hand" in page
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    _send(rep, quote)


def test_hand_priced_service_line_needs_no_approval(rep):
    quote = quote_make(rep, lines=[])
    _hand_part(rep, quote, price="500.00", kind="service")

    _send(rep, quote)
    quote.refresh_from_db()
    assert quote.status == "sent"


# --- 3. Approval bound to what the manager saw -------------------------------------------------


def _terms(rep, quote, discount):
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(discount),
        valid_until=TODAY + dt.timedelta(30),
        contract_months=12,
        today=TODAY,
    )
    quote.refresh_from_db()


def _digest(quote):
    quote.refresh_from_db()
    revision = quote.current_revision
    return selectors.revision_digest(quote=quote, revision=revision, totals=totals(quote))


def test_attack_discount_raised_after_approval_voids_it(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY, digest=_digest(quote))
    _terms(rep, quote, "90")

    with pytest.raises(ValidationError, match=NEEDS_APPROVAL):
        _send(rep, quote)
    assert [w.quote for w in selectors.quotes_awaiting_approval(today=TODAY)] == [quote]


def test_attack_any_change_after_approval_voids_it(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY, digest=_digest(quote))
    services.quote_line_update(
        user=rep, quote=quote, position=1, quantity=Decimal(3), discount_pct=Decimal(0), today=TODAY
    )

    with pytest.raises(ValidationError, match=NEEDS_APPROVAL):
        _send(rep, quote)


def test_attack_approve_form_showing_12_percent_cannot_approve_90(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    shown = _digest(quote)  # the queue showed 12 %
    _terms(rep, quote, "90")  # the rep changes it before the manager clicks

    with pytest.raises(ValidationError, match="changed since this page was shown"):
        services.quote_discount_approve(user=manager, quote=quote, today=TODAY, digest=shown)
    quote.refresh_from_db()
    assert quote.current_revision.approved_discount_pct is None


def test_approval_of_the_content_shown_lets_the_rep_send(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY, digest=_digest(quote))

    _send(rep, quote)
    quote.refresh_from_db()
    assert quote.status == "sent"


def test_attack_stale_approve_form_from_the_queue_is_refused(client, rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    client.force_login(manager)
    queue = client.get(reverse("sales:dashboard")).content.decode()
    assert f'name="digest" value="{_digest(quote)}"' in queue  # the form carries what it shows
    _terms(rep, quote, "90")

    response = client.post(
        reverse("sales:quote_approve", args=[quote.pk]), {"digest": _digest(quote)[::-1]}
    )

    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.current_revision.approved_discount_pct is None


def test_attack_approve_without_the_shown_content_is_refused(client, rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, "12")
    client.force_login(manager)

    client.post(reverse("sales:quote_action", args=[quote.pk]), {"action": "approve_discount"})

    quote.refresh_from_db()
    assert quote.current_revision.approved_discount_pct is None


def test_the_queue_shows_the_amount_at_stake(client, rep, manager):
    quote = quote_make(rep)  # 2 x 25,000.00
    _terms(rep, quote, "12")
    client.force_login(manager)

    [waiting] = selectors.quotes_awaiting_approval(today=TODAY)

    assert waiting.at_stake is not None
    assert waiting.at_stake.amount == Decimal("6000.00")
    assert "Amount at stake" in client.get(reverse("sales:dashboard")).content.decode()


# --- 1. Fees below their floor --------------------------------------------------------------------


def _hosting_quote(rep, *, fee="1000.00", floor="950.00"):
    """Two managed servers for 36 months at ``fee``, whose hardware pays back at ``floor`` a
    month and which cost the host 900 a month each."""
    line = services.LineInput(
        kind="service",
        description="Managed hosting",
        quantity=Decimal(2),
        unit_price=Decimal(fee),
        recurrence="monthly",
        role="managed_hosting",
        floor_unit_price=Decimal(floor),
        cost_unit_price=Decimal("900.00"),
    )
    quote = quote_make(rep, lines=[line])
    _terms(rep, quote, "0")  # the 36-month contract
    return quote


def test_attack_managed_fee_discounted_below_its_floor_needs_approval(client, rep, manager):
    quote = _hosting_quote(rep)
    services.quote_line_update(
        user=rep, quote=quote, position=1, quantity=Decimal(2), discount_pct=Decimal(8),
        today=TODAY,
    )  # fmt: skip
    quote.refresh_from_db()

    assert totals(quote).effective_discount_pct < Decimal(10)  # under the discount threshold
    with pytest.raises(ValidationError, match="below their floor"):
        _send(rep, quote)
    [waiting] = selectors.quotes_awaiting_approval(today=TODAY)
    assert (waiting.quote, waiting.cost_margin_pct) == (quote, Decimal("2.17"))
    client.force_login(manager)
    queue = client.get(reverse("sales:dashboard")).content.decode()
    assert "Margin over our cost" in queue
    assert "2.17" in queue
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    _send(rep, quote)


def test_a_managed_fee_at_or_above_its_floor_needs_no_approval(rep):
    quote = _hosting_quote(rep)

    _send(rep, quote)
    quote.refresh_from_db()
    assert quote.status == "sent"


def test_a_managed_quote_records_its_floor_and_the_hosts_cost_on_its_hosting_line(rep):
    from quotes.advice.store import result_from_json
    from quotes.sales.request_summary import managed_contract
    from tests.quotes.sales.test_quote_services import wizard_request_make

    quote_request = wizard_request_make()
    quote = services.quote_create_from_request(user=rep, quote_request=quote_request)
    advice = result_from_json(quote_request.result.result)
    assert advice is not None
    assert advice.chosen is not None
    contract = managed_contract(advice, advice.chosen)

    hosting = quote.revision.lines.get(role="managed_hosting")
    assert hosting.floor_unit_price == contract.floor.amount <= hosting.unit_price
    assert hosting.cost_unit_price == round(contract.cost.total.amount, 2)


def test_a_send_waiting_for_approval_emails_the_managers_once_per_content(
    rep, manager, django_capture_on_commit_callbacks, eager_celery, settings
):
    from django.core import mail

    manager.email = "boss@example.com"
    manager.save()
    quote = quote_make(rep)  # 2 x 25,000.00
    _terms(rep, quote, "12")

    for _attempt in range(2):  # the rep tries twice: one e-mail
        with django_capture_on_commit_callbacks(execute=True), pytest.raises(ValidationError):
            _send(rep, quote)
    [message] = mail.outbox
    assert message.to == ["boss@example.com"]
    assert quote.number in message.subject
    assert "approval" in message.subject
    assert "12.00 %" in message.body  # what the manager will be asked to approve
    assert "6,000.00" in message.body  # the amount at stake
    assert f"#approval-{quote.pk}" in message.body

    _terms(rep, quote, "15")  # new content: the managers hear of it
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ValidationError):
        _send(rep, quote)
    assert len(mail.outbox) == 2
    assert "15.00 %" in mail.outbox[1].body


# --- 4. The customer link shows only what was sent ----------------------------------------------


def test_attack_unsent_discounted_draft_does_not_appear_on_the_customer_page(client, rep):
    quote = quote_make(rep)
    _send(rep, quote)
    quote.refresh_from_db()
    sent_total = money(totals(quote).contract.total.amount, "EUR")
    _terms(rep, quote, "45")  # the rep's unapproved draft revision b
    draft_total = money(totals(quote).contract.total.amount, "EUR")
    assert sent_total != draft_total

    page = client.get(reverse("sales:quote_public", args=[quote.token])).content.decode()

    assert sent_total in page
    assert draft_total not in page


def test_attack_a_quote_never_sent_has_no_customer_page(client, rep):
    draft = quote_make(rep)  # a 45 % draft a rep is still working on, say
    _terms(rep, draft, "45")

    assert client.get(reverse("sales:quote_public", args=[draft.token])).status_code == 404
    assert client.get(reverse("sales:quote_public_pdf", args=[draft.token])).status_code == 404


def test_attack_the_pdf_link_gives_the_sent_revision_not_the_draft(client, rep):
    quote = quote_make(rep)
    _send(rep, quote)
    _terms(rep, quote, "45")  # revision b, a draft
    quote.refresh_from_db()
    draft_total = money(totals(quote).contract.total.amount, "EUR")

    response = client.get(reverse("sales:quote_public_pdf", args=[quote.token]))

    assert response.status_code == 200
    assert draft_total.replace("\u00a0", " ") not in _pdf_text(response.content)


def _pdf_text(document: bytes) -> str:
    import io

    from pypdf import PdfReader

    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(document)).pages)
