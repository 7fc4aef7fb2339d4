"""The sales team sets the support level a managed quote bills: one monthly line per
server, replaced when changed, and the quote's PDF lists what the host does under it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from quotes.models import QuoteEvent
from quotes.pdf.quote import quote_document_context
from quotes.sales import services
from quotes.sales.services.build import quote_service_tier_set
from tests.quotes.sales.test_quote_services import _user, wizard_request_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _managed_quote(rep):
    return services.quote_create_from_request(
        user=rep, quote_request=wizard_request_make(deployment="managed")
    )


def _tier_lines(quote):
    quote.refresh_from_db()
    return list(quote.revision.lines.filter(role="service_tier"))


def test_setting_a_tier_bills_it_per_server_and_the_pdf_says_what_the_host_does(rep):
    quote = _managed_quote(rep)
    hosting = quote.revision.lines.get(role="managed_hosting")

    quote_service_tier_set(user=rep, quote=quote, code="24x7")

    (line,) = _tier_lines(quote)
    assert (line.sku, line.unit_price, line.quantity, line.recurrence) == (
        "24x7",
        Decimal("450.00"),
        hosting.quantity,
        "monthly",
    )
    assert line.description.startswith("Assistance")  # the quote's language: French
    shown = quote_document_context(quote=quote)["service_tier"]
    assert shown["code"] == "24x7"
    assert "Les disques système sauvegardés chaque jour" in shown["included_operations"]
    event = QuoteEvent.objects.filter(quote=quote).latest("created_at")
    assert event.data == {"service_tier": "24x7"}


def test_changing_the_tier_replaces_its_line(rep):
    quote = _managed_quote(rep)
    quote_service_tier_set(user=rep, quote=quote, code="24x7")

    quote_service_tier_set(user=rep, quote=quote, code="standard")

    (line,) = _tier_lines(quote)
    assert (line.sku, line.unit_price) == ("standard", Decimal("0.00"))
    assert quote_document_context(quote=quote)["service_tier"]["code"] == "standard"


def test_a_quote_without_managed_hosting_has_no_support_level(rep):
    quote = services.quote_create_from_request(
        user=rep, quote_request=wizard_request_make(deployment="on_premises")
    )

    with pytest.raises(ValidationError):
        quote_service_tier_set(user=rep, quote=quote, code="24x7")
    assert _tier_lines(quote) == []
    assert quote_document_context(quote=quote)["service_tier"] is None


def test_the_staff_page_sets_it_and_refuses_an_unknown_tier(client, rep):
    quote = _managed_quote(rep)
    client.force_login(rep)
    url = reverse("sales:service_tier_set", args=[quote.pk])

    page = client.get(reverse("sales:quote_detail", args=[quote.pk]))
    assert 'id="support-level"' in page.content.decode()
    refused = client.post(url, {"code": "platinum"}, follow=True)
    assert _tier_lines(quote) == []
    assert refused.status_code == 200
    set_ = client.post(url, {"code": "24x7"})
    assert set_.status_code == 302
    assert [line.sku for line in _tier_lines(quote)] == ["24x7"]
