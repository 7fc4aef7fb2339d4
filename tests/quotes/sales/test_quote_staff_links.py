"""What the staff pages say in the staff's language, and the customer's link they hand over:
the dashboard's status chips, the absolute link on a quote."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user, quote_make, sent_quote_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _page(client, url: str, language: str = "en") -> str:
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _chips(page: str) -> dict[str, str]:
    return dict(re.findall(r'<span class="figure-label status-(\w+)">([^<]*)</span>', page))


def test_the_french_dashboard_names_each_status_in_french(client, rep):
    quote_make(rep)
    client.force_login(rep)

    chips = _chips(_page(client, reverse("sales:dashboard"), "fr"))

    assert chips == {
        "draft": "brouillon",
        "sent": "envoyé",
        "accepted": "accepté",
        "declined": "refusé",
        "expired": "expiré",
    }


def test_the_english_dashboard_keeps_the_english_names(client, rep):
    client.force_login(rep)

    chips = _chips(_page(client, reverse("sales:dashboard")))

    assert chips["draft"] == "draft"
    assert chips["sent"] == "sent"


def test_a_quote_never_sent_shows_its_absolute_link_and_when_it_will_work(client, rep, settings):
    settings.SITE_URL = "https://quotes.example.com/"
    quote = quote_make(rep)
    client.force_login(rep)

    page = _page(client, reverse("sales:quote_detail", args=[quote.pk]))

    link = f"https://quotes.example.com/q/{quote.token}/"
    assert f'<input type="url" id="customer-link-url" value="{link}" readonly' in page
    assert "The link works once the quote is sent" in page
    assert f'<a href="{link}">' not in page


def test_a_sent_quote_links_to_the_customer_page(client, rep, settings):
    settings.SITE_URL = "https://quotes.example.com"
    quote = sent_quote_make(rep)
    client.force_login(rep)

    page = _page(client, reverse("sales:quote_detail", args=[quote.pk]), "fr")

    link = f"https://quotes.example.com/q/{quote.token}/"
    assert f'id="customer-link-url" value="{link}"' in page
    assert f'<a href="{link}">Ouvrir la page du client</a>' in page
    assert "once the quote is sent" not in page
