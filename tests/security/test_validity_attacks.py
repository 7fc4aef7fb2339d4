"""A quote's validity as a way around the price rules: ``valid_until`` 9999-12-31 freezes today's
catalog prices and exchange rate for ever, a date in the past makes a quote nobody can accept.

A date before today is refused, naming the field; a date more than ``QUOTE_VALIDITY_MAX_DAYS``
after today is one more reason a sales manager must approve the revision before it is sent (as a
discount over the threshold is). Each test is named after the attack and asserts the exact
answer; a refusal changes nothing.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from engine.commerce.workflow import validity_needs_approval
from quotes.models import Quote
from quotes.sales import services
from quotes.sales.selectors import quotes_awaiting_approval
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import TODAY, _user, quote_make
from tests.security.attack_requests import PARTNER_BODY, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

FOREVER = dt.date(9999, 12, 31)
NEEDS_A_MANAGER = (
    "The quote is valid until 9999-12-31, more than the 90 days a sales rep may grant: a sales "
    "manager must approve it before the quote is sent."
)


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def manager(django_user_model):
    return _user(django_user_model, "manager", services.MANAGER_GROUP)


def _terms(user, quote, valid_until: dt.date, today: dt.date = TODAY):
    return services.quote_terms_update(
        user=user,
        quote=quote,
        discount_pct=Decimal(0),
        valid_until=valid_until,
        contract_months=12,
        today=today,
    )


def _send(user, quote, today: dt.date = TODAY) -> None:
    services.quote_send(user=user, quote=quote, today=today, failed_checks_acknowledged=True)


def test_validity_rule_allows_exactly_the_maximum():
    assert not validity_needs_approval(TODAY + dt.timedelta(90), TODAY, 90)
    assert validity_needs_approval(TODAY + dt.timedelta(91), TODAY, 90)
    assert validity_needs_approval(FOREVER, TODAY, 90)
    assert not validity_needs_approval(FOREVER, TODAY, None)


# --- A date in the past ---------------------------------------------------------------------------


def test_valid_until_in_the_past_is_refused_naming_the_field(rep):
    quote = quote_make(rep)
    before = quote.current_revision.valid_until

    with pytest.raises(ValidationError) as refused:
        _terms(rep, quote, TODAY - dt.timedelta(days=1))

    assert refused.value.message_dict == {
        "valid_until": ["Valid until: 1 December 2026 is in the past; choose today or a later day."]
    }
    quote.refresh_from_db()
    assert quote.current_revision.valid_until == before
    assert quote.revisions.count() == 1


def test_valid_until_in_the_past_on_a_sent_quote_makes_no_new_revision(rep):
    quote = quote_make(rep)
    _send(rep, quote)

    with pytest.raises(ValidationError):
        _terms(rep, quote, dt.date(2000, 1, 1))

    quote.refresh_from_db()
    assert (quote.status, quote.revisions.count()) == ("sent", 1)


def test_valid_until_today_is_accepted(rep):
    revision = _terms(rep, quote_make(rep), TODAY)

    assert revision.valid_until == TODAY


def test_staff_terms_form_with_a_past_date_changes_nothing(client, rep):
    quote = quote_make(rep)
    before = quote.current_revision.valid_until
    client.force_login(rep)

    response = client.post(
        reverse("sales:terms_update", args=[quote.pk]),
        {"discount_pct": "0", "valid_until": "2000-01-01", "contract_months": "12"},
        follow=True,
    )

    shown = [str(message) for message in response.context["messages"]]
    assert shown == ["Valid until: 1 January 2000 is in the past; choose today or a later day."]
    quote.refresh_from_db()
    assert quote.current_revision.valid_until == before


# --- A date beyond the policy ---------------------------------------------------------------------


def test_valid_until_9999_12_31_cannot_be_sent_by_a_sales_rep(rep):
    quote = quote_make(rep)
    _terms(rep, quote, FOREVER)

    with pytest.raises(ValidationError) as refused:
        _send(rep, quote)

    assert refused.value.messages == [NEEDS_A_MANAGER]
    quote.refresh_from_db()
    assert quote.status == "draft"


def test_validity_beyond_policy_goes_to_the_managers_approval_queue(rep):
    quote = quote_make(rep)
    _terms(rep, quote, FOREVER)

    waiting = quotes_awaiting_approval(today=TODAY)

    assert [item.quote.pk for item in waiting] == [quote.pk]


def test_validity_beyond_policy_is_sent_once_a_manager_approved_it(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, TODAY + dt.timedelta(days=180))

    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    _send(rep, quote)

    quote.refresh_from_db()
    assert quote.status == "sent"
    assert quotes_awaiting_approval(today=TODAY) == []


def test_lengthening_an_approved_validity_needs_a_new_approval(rep, manager):
    quote = quote_make(rep)
    _terms(rep, quote, TODAY + dt.timedelta(days=180))
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)

    _terms(rep, quote, FOREVER)

    with pytest.raises(ValidationError) as refused:
        _send(rep, quote)
    assert refused.value.messages == [NEEDS_A_MANAGER]


def test_validity_up_to_the_policy_needs_no_approval(rep):
    quote = quote_make(rep)
    _terms(rep, quote, TODAY + dt.timedelta(days=90))

    _send(rep, quote)

    quote.refresh_from_db()
    assert quote.status == "sent"
    assert quotes_awaiting_approval(today=TODAY) == []


def test_validity_policy_is_a_setting(rep, settings):
    settings.QUOTE_VALIDITY_MAX_DAYS = 30
    quote = quote_make(rep)
    _terms(rep, quote, TODAY + dt.timedelta(days=31))

    with pytest.raises(ValidationError, match="more than the 30 days a sales rep may grant"):
        _send(rep, quote)


def test_quote_page_says_why_a_long_validity_waits_for_a_manager(client, rep):
    today = timezone.localdate()
    quote = quote_make(rep)
    _terms(rep, quote, FOREVER, today=today)
    client.force_login(rep)

    response = client.get(reverse("sales:quote_detail", args=[quote.pk]))

    assert response.context["validity_approval"] == {"pending": True, "max_days": 90}
    assert "more than the 90 days a sales rep may grant" in response.content.decode()
    assert "The effective discount of" not in response.content.decode()


# --- Partners' quotes -------------------------------------------------------------------------


def test_partner_quote_validity_is_the_default_within_policy_and_not_settable(client, settings):
    _partner, raw = partner_key()
    body = PARTNER_BODY | {"valid_until": "9999-12-31"}

    response = post_json(client, reverse("api:quote-list"), body, **auth(raw))

    assert response.status_code == 201, response.content[:500]
    valid_until = dt.date.fromisoformat(response.json()["valid_until"])
    today = timezone.localdate()
    assert valid_until == today + dt.timedelta(days=settings.QUOTE_VALIDITY_DAYS)
    assert not validity_needs_approval(valid_until, today, settings.QUOTE_VALIDITY_MAX_DAYS)
    assert Quote.objects.get().revision.valid_until == valid_until
