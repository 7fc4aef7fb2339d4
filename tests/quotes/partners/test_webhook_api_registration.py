"""The webhook API's writes: registering (the secret shown once, https-only in production, at
most ten per partner), changing and deleting a webhook.
"""

from __future__ import annotations

import pytest

from quotes.models import Webhook, WebhookDelivery
from quotes.partners.webhooks.registration import WEBHOOKS_PER_PARTNER_MAX
from tests.api_fixtures import auth
from tests.quotes.partners.webhook_cases import WEBHOOKS, delivery_make, detail_url, webhook_make

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


def test_registering_returns_the_secret_once(client, acme):
    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example/hooks", "events": ["price.changed"]},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 201
    body = response.json()
    webhook = Webhook.objects.get()
    assert body["secret"] == webhook.secret
    assert body["secret"].startswith("whsec_")
    assert (body["id"], body["url"], body["events"], body["is_active"]) == (
        webhook.pk,
        "https://acme.example/hooks",
        ["price.changed"],
        True,
    )
    assert webhook.partner == acme[0]
    listed = client.get(WEBHOOKS, headers=auth(acme[1]))
    one = client.get(detail_url(webhook), headers=auth(acme[1]))
    assert "secret" not in listed.json()["results"][0]
    assert "secret" not in one.json()
    assert webhook.secret not in listed.content.decode() + one.content.decode()


def test_a_webhook_subscribes_to_every_event_by_default(client, acme):
    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example/"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.json()["events"] == ["quote.status_changed", "price.changed"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"url": "http://acme.example/"},
            "url",
            "Use an https:// URL: webhooks are sent over TLS only.",
        ),
        ({"url": "ftp://acme.example/"}, "url", "Enter a valid http:// or https:// URL."),
        ({"url": "not a url"}, "url", "Enter a valid http:// or https:// URL."),
        (
            {"url": "https://127.0.0.1/"},
            "url",
            "The URL must point to a public host, not a local or private address.",
        ),
        (
            {"url": "https://10.1.2.3:8443/"},
            "url",
            "The URL must point to a public host, not a local or private address.",
        ),
        (
            {"url": "https://localhost/"},
            "url",
            "The URL must point to a public host, not a local or private address.",
        ),
        ({"url": "https://acme.example/", "events": []}, "events", None),
        ({"url": "https://acme.example/", "events": ["quote.deleted"]}, "events.0", None),
        ({}, "url", "This field is required."),
    ],
)
def test_registration_refuses_bad_input_in_production(client, acme, body, field, message):
    response = client.post(WEBHOOKS, body, content_type="application/json", headers=auth(acme[1]))

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert field in errors, errors
    if message:
        assert errors[field] == [message]
    assert not Webhook.objects.exists()


def test_plain_http_is_accepted_on_development_servers(
    client, acme, settings, outbound_allows_loopback
):
    settings.DEBUG = True

    response = client.post(
        WEBHOOKS,
        {"url": "http://127.0.0.1:9000/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 201
    assert Webhook.objects.get().url == "http://127.0.0.1:9000/hook"


def test_a_partner_registers_at_most_ten_webhooks(client, acme):
    for n in range(WEBHOOKS_PER_PARTNER_MAX):
        webhook_make(acme[0], f"https://acme.example/{n}")

    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example/more"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "non_field_errors": ["A partner may register at most 10 webhooks; delete one first."]
    }
    assert Webhook.objects.count() == 10


def test_the_owner_changes_url_events_and_activity(client, acme):
    webhook = webhook_make(acme[0], "https://acme.example/old")
    secret = webhook.secret

    response = client.patch(
        detail_url(webhook),
        {"url": "https://acme.example/new", "events": ["price.changed"], "is_active": False},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 200
    webhook.refresh_from_db()
    assert (webhook.url, webhook.events, webhook.is_active, webhook.secret) == (
        "https://acme.example/new",
        ["price.changed"],
        False,
        secret,
    )
    assert response.json()["is_active"] is False
    assert "secret" not in response.json()


def test_a_bad_change_changes_nothing(client, acme):
    webhook = webhook_make(acme[0], "https://acme.example/")

    response = client.patch(
        detail_url(webhook),
        {"url": "http://acme.example/", "is_active": False},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["url"]
    webhook.refresh_from_db()
    assert (webhook.url, webhook.is_active) == ("https://acme.example/", True)


def test_the_owner_deletes_a_webhook_with_its_deliveries(client, acme):
    webhook = webhook_make(acme[0], "https://acme.example/")
    delivery_make(webhook)

    response = client.delete(detail_url(webhook), headers=auth(acme[1]))

    assert response.status_code == 204
    assert not Webhook.objects.exists()
    assert not WebhookDelivery.objects.exists()
