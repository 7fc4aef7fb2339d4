"""The staff dashboard: what each new request asks for, the managers' approval queue; and the
VAT number the staff set on a quote."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quotes.models import QuoteRevision
from quotes.sales import services
from quotes.sales.selectors import quotes_awaiting_approval, revision_digest, revision_totals_get
from tests.factories import advice_result_build, quote_request_make, stored_result_make
from tests.quotes.sales.test_quote_services import _user, quote_make

pytestmark = pytest.mark.django_db

VALID = timezone.localdate() + dt.timedelta(30)


@pytest.fixture(autouse=True)
def _roles():
    call_command("setup_roles", stdout=StringIO())


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def manager(django_user_model):
    return _user(django_user_model, "manager", services.MANAGER_GROUP)


def _dashboard(client):
    return client.get(reverse("sales:dashboard")).content.decode()


def _discounted(rep, pct: int):
    quote = quote_make(rep)
    services.quote_terms_update(
        user=rep, quote=quote, discount_pct=Decimal(pct), valid_until=VALID, contract_months=12
    )
    return quote


# --- New requests --------------------------------------------------------------------------------


def test_a_request_shows_its_configuration_and_amount(client, rep):
    request = quote_request_make(
        result=stored_result_make(advice=advice_result_build(deployment="on_premises")),
        vat_number="DE136491529",
        country="DE",
    )
    client.force_login(rep)

    page = _dashboard(client)

    row = page.split(f'id="request-{request.pk}"')[1].split("</tr>")[0]
    assert (
        'data-label="Configuration" class="request-configuration">2 servers × 8 NVIDIA H100' in row
    )
    assert 'class="request-amount">€460,000 to buy</td>' in row
    assert "VAT number DE136491529" in row
    assert "Germany" in row


# --- The approval queue --------------------------------------------------------------------------


def test_a_rep_sees_no_approval_queue(client, rep):
    _discounted(rep, 15)
    client.force_login(rep)

    page = _dashboard(client)

    assert 'id="approvals"' not in page
    assert "Discounts waiting for your approval" not in page


def test_a_manager_sees_the_quotes_waiting_for_approval(client, rep, manager):
    waiting = _discounted(rep, 15)
    within = _discounted(rep, 5)  # within the 10 % a rep may grant
    approved = _discounted(rep, 20)
    services.quote_discount_approve(user=manager, quote=approved)
    client.force_login(manager)
    assert manager.has_perm("quotes.approve_discount")

    page = _dashboard(client)

    queue = page.split('id="approvals"')[1].split("</section>")[0]
    assert f'id="approval-{waiting.pk}"' in queue
    assert f'href="/staff/quotes/{waiting.pk}/"' in queue
    assert f'action="/staff/quotes/{waiting.pk}/approve/"' in queue
    assert "15&nbsp;%" in queue  # the figure and its unit on one line
    assert f'id="approval-{within.pk}"' not in queue
    assert f'id="approval-{approved.pk}"' not in queue


def test_a_larger_discount_than_the_approved_one_waits_again(rep, manager):
    quote = _discounted(rep, 15)
    services.quote_discount_approve(user=manager, quote=quote)
    assert quotes_awaiting_approval(today=timezone.localdate()) == []

    services.quote_terms_update(
        user=rep, quote=quote, discount_pct=Decimal(25), valid_until=VALID, contract_months=12
    )

    [item] = quotes_awaiting_approval(today=timezone.localdate())
    assert (item.quote.pk, item.effective_discount_pct, item.approved_discount_pct) == (
        quote.pk,
        Decimal("25.00"),
        Decimal("15.00"),
    )


def _shown_digest(quote):
    """The digest the approve form carries: the revision's content as shown."""
    quote.refresh_from_db()
    revision = quote.current_revision
    return revision_digest(
        quote=quote, revision=revision, totals=revision_totals_get(quote=quote, revision=revision)
    )


def test_approving_from_the_queue(client, rep, manager):
    quote = _discounted(rep, 15)
    client.force_login(manager)
    queue = client.get(reverse("sales:dashboard")).content.decode()
    assert f'name="digest" value="{_shown_digest(quote)}"' in queue

    response = client.post(
        reverse("sales:quote_approve", args=[quote.pk]),
        {"digest": _shown_digest(quote)},
        follow=True,
    )

    assert response.redirect_chain == [(reverse("sales:dashboard"), 302)]
    page = response.content.decode()
    assert f"Discount of quote {quote.number} approved." in page
    assert "No discount waits for approval." in page
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert (revision.approved_discount_pct, revision.approved_by) == (Decimal("15.00"), manager)


def test_a_rep_cannot_approve_from_the_queue_url(client, rep):
    quote = _discounted(rep, 15)
    client.force_login(rep)

    response = client.post(
        reverse("sales:quote_approve", args=[quote.pk]),
        {"digest": _shown_digest(quote)},
        follow=True,
    )

    assert response.redirect_chain == [(reverse("sales:dashboard"), 302)]
    assert '<p class="error-message">' in response.content.decode()
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert revision.approved_discount_pct is None


def test_the_queue_costs_the_same_for_one_quote_or_five(client, rep, manager):
    client.force_login(manager)
    _discounted(rep, 15)
    with CaptureQueriesContext(connection) as one:
        _dashboard(client)
    for _ in range(4):
        _discounted(rep, 15)
    with CaptureQueriesContext(connection) as five:
        page = _dashboard(client)

    assert len(five) == len(one)
    assert page.count('id="approval-') == 5


# --- The VAT number on a quote -------------------------------------------------------------------


def test_the_staff_set_a_vat_number_and_the_reverse_charge_applies(client, rep):
    quote = quote_make(rep, country="DE")
    client.force_login(rep)
    url = reverse("sales:customer_update", args=[quote.pk])

    response = client.post(
        url, {"country": "DE", "vat_number": "de136491529", "is_business": "on"}, follow=True
    )

    assert "Saved." in response.content.decode()
    quote.refresh_from_db()
    assert quote.vat_number == "DE136491529"
    totals = revision_totals_get(quote=quote, revision=quote.revision)
    assert str(totals.vat_regime) == "reverse_charge"
    assert totals.one_off.vat.amount == 0


def test_a_wrong_vat_number_is_refused_naming_the_field(client, rep):
    quote = quote_make(rep, country="DE")
    client.force_login(rep)

    response = client.post(
        reverse("sales:customer_update", args=[quote.pk]),
        {"country": "DE", "vat_number": "DE136491520", "is_business": "on"},
        follow=True,
    )

    assert (
        "VAT number: This VAT number is not valid for Germany: it must start with DE and its "
        "check digits must be right."
    ) in response.content.decode()
    quote.refresh_from_db()
    assert quote.vat_number == ""


def test_changing_the_vat_number_of_a_sent_quote_makes_its_next_revision(client, rep):
    quote = quote_make(rep, country="DE")
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    client.force_login(rep)

    client.post(
        reverse("sales:customer_update", args=[quote.pk]),
        {"country": "DE", "vat_number": "DE136491529", "is_business": "on"},
    )

    quote.refresh_from_db()
    assert (quote.status, quote.revision.label, quote.vat_number) == ("draft", "B", "DE136491529")
    sent = quote.revisions.get(index=0)
    assert sent.sent_totals["vat_regime"] == "eu_french_vat"  # the document as it was sent
