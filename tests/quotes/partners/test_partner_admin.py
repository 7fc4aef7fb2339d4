"""Staff issue and revoke partner API keys in the admin; the key is shown once."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotes.models import ApiKey, Partner
from tests.api_fixtures import auth

pytestmark = pytest.mark.django_db

QUOTES = reverse("api:quote-list")


def test_a_key_is_shown_once_works_and_is_revoked_with_the_action(admin_client, client):
    partner = Partner.objects.create(name="Acme Cloud")

    response = admin_client.post(
        reverse("admin:quotes_apikey_add"),
        {"partner": partner.pk, "name": "production", "expires_at_0": "", "expires_at_1": ""},
        follow=True,
    )

    shown = re.search(r"(gq_[0-9a-f]{8}_[A-Za-z0-9_-]{43})", response.content.decode())
    assert shown, "the raw key must appear in the confirmation"
    raw = shown.group(1)
    key = ApiKey.objects.get()
    assert key.created_by is not None
    assert key.created_by.username == "admin"
    assert client.get(QUOTES, headers=auth(raw)).status_code == 200
    page = admin_client.get(reverse("admin:quotes_apikey_change", args=[key.pk])).content
    assert raw.encode() not in page  # never shown again
    assert raw.split("_", 2)[2].encode() not in page

    admin_client.post(
        reverse("admin:quotes_apikey_changelist"),
        {"action": "revoke", "_selected_action": [key.pk]},
    )

    key.refresh_from_db()
    assert key.revoked_at is not None
    assert client.get(QUOTES, headers=auth(raw)).status_code == 401


def test_partner_list_counts_keys_and_quotes(admin_client):
    Partner.objects.create(name="Globex AI")
    response = admin_client.get(reverse("admin:quotes_partner_changelist"))
    assert response.status_code == 200
    assert "Globex AI" in response.content.decode()
