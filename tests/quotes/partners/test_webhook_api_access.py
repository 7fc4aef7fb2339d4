"""Who sees a partner's webhooks: their owner through the API (anonymous callers, revoked keys
and other partners are refused), staff read-only through the API and the admin.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from quotes.models import Webhook, WebhookDelivery
from quotes.partners.keys import api_key_revoke
from quotes.tasks import deliver_webhook
from tests.api_fixtures import auth
from tests.quotes.partners.webhook_cases import (
    HOOK,
    WEBHOOKS,
    deliveries_url,
    delivery_make,
    detail_url,
    ping_url,
    webhook_make,
)

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


# --- API: authentication and isolation ----------------------------------------------------------


def test_anonymous_callers_get_401(client, acme):
    webhook = webhook_make(acme[0], "https://acme.example/")

    for method, url in (
        ("get", WEBHOOKS),
        ("post", WEBHOOKS),
        ("get", detail_url(webhook)),
        ("patch", detail_url(webhook)),
        ("delete", detail_url(webhook)),
        ("get", deliveries_url(webhook)),
        ("post", ping_url(webhook)),
    ):
        response = getattr(client, method)(url, content_type="application/json")
        assert response.status_code == 401, (method, url)
        assert response.json()["type"].endswith("/unauthenticated")
    assert Webhook.objects.get() == webhook


def test_a_revoked_key_gets_401(client, acme):
    partner, raw = acme
    webhook_make(partner, "https://acme.example/")
    api_key_revoke(key=partner.api_keys.get())

    response = client.get(WEBHOOKS, headers=auth(raw))

    assert response.status_code == 401
    assert response.json()["detail"] == "The API key is unknown, expired or revoked."


def test_another_partners_webhook_is_not_found(client, acme, globex):
    webhook = webhook_make(acme[0], "https://acme.example/")
    delivery_make(webhook)
    before = Webhook.objects.values().get()
    headers = auth(globex[1])

    for method, url, body in (
        ("get", detail_url(webhook), None),
        ("patch", detail_url(webhook), {"is_active": False}),
        ("delete", detail_url(webhook), None),
        ("get", deliveries_url(webhook), None),
        ("post", ping_url(webhook), None),
    ):
        response = getattr(client, method)(
            url, data=body, content_type="application/json", headers=headers
        )
        assert response.status_code == 404, (method, url)
        assert response.json()["type"].endswith("/not-found")

    assert Webhook.objects.values().get() == before
    assert WebhookDelivery.objects.count() == 1
    assert client.get(WEBHOOKS, headers=headers).json()["results"] == []


def test_the_owner_sees_its_webhook(client, acme, globex):
    own = webhook_make(acme[0], "https://acme.example/")
    webhook_make(globex[0], "https://globex.example/")

    listed = client.get(WEBHOOKS, headers=auth(acme[1])).json()
    one = client.get(detail_url(own), headers=auth(acme[1]))

    assert listed["count"] == 1
    assert [row["id"] for row in listed["results"]] == [own.pk]
    assert one.status_code == 200
    body = one.json()
    assert dt.datetime.fromisoformat(body.pop("created_at")) == own.created_at
    assert body == {
        "id": own.pk,
        "partner": "Acme Cloud",
        "url": "https://acme.example/",
        "events": ["quote.status_changed", "price.changed"],
        "is_active": True,
    }


def test_staff_see_every_webhook_but_cannot_register_one(client, staff_user, acme, globex):
    webhook_make(acme[0], "https://acme.example/")
    webhook_make(globex[0], "https://globex.example/")
    client.force_login(staff_user)

    listed = client.get(WEBHOOKS).json()
    refused = client.post(
        WEBHOOKS, {"url": "https://staff.example/"}, content_type="application/json"
    )

    assert sorted(row["partner"] for row in listed["results"]) == ["Acme Cloud", "Globex AI"]
    assert refused.status_code == 403
    assert "partner's API key" in refused.json()["detail"]
    assert Webhook.objects.count() == 2


# --- Admin ----------------------------------------------------------------------------------------


def test_the_admin_shows_webhooks_without_their_secret_and_deliveries_read_only(
    client, staff_user, receiver, acme
):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook = webhook_make(acme[0], receiver.url_for(HOOK))
    delivery = delivery_make(webhook)
    deliver_webhook.delay(delivery.pk)
    client.force_login(staff_user)

    pages = {
        "webhooks": client.get(reverse("admin:quotes_webhook_changelist")),
        "webhook": client.get(reverse("admin:quotes_webhook_change", args=[webhook.pk])),
        "deliveries": client.get(reverse("admin:quotes_webhookdelivery_changelist")),
        "delivery": client.get(reverse("admin:quotes_webhookdelivery_change", args=[delivery.pk])),
    }

    assert {name: page.status_code for name, page in pages.items()} == dict.fromkeys(pages, 200)
    assert webhook.secret not in pages["webhook"].content.decode()
    assert 'name="is_active"' in pages["webhook"].content.decode()  # the one editable field
    delivery_page = pages["delivery"].content.decode()
    assert 'name="_save"' not in delivery_page  # view only
    assert str(delivery.event_id) in delivery_page
    assert "Webhook attempts" in delivery_page  # the inline
    assert client.get(reverse("admin:quotes_webhookdelivery_add")).status_code == 403
    assert client.get(reverse("admin:quotes_webhook_add")).status_code == 403
