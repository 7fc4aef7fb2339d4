"""SSRF through partner webhooks: registration refuses internal hosts,
delivery re-checks the address it connects to, and partners never read connection errors.

Every outbound request goes through ``gpuquote.core.outbound`` (tested in test_ssrf_policy.py).
DNS is faked (``dns`` in tests/security/conftest.py): nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import socket

import pytest
from django.urls import reverse

from quotes.models import DeliveryStatus, Webhook, WebhookAttempt
from quotes.partners.webhooks.delivery import webhook_deliver
from quotes.partners.webhooks.events import webhook_event_emit
from tests.api_fixtures import auth, partner_key
from tests.security.ssrf_targets import NOT_PUBLIC, NOT_RESOLVED, PUBLIC_V4, fake_getaddrinfo

WEBHOOKS = reverse("api:webhooks")


# --- Webhooks: registration ---------------------------------------------------------------------


@pytest.fixture
def acme(db):
    return partner_key("Acme Cloud")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://localtest.me/hook", NOT_PUBLIC),
        ("https://127.0.0.1.nip.io/hook", NOT_PUBLIC),
        ("https://metadata.google.internal/computeMetadata/v1/", NOT_PUBLIC),
        ("https://[64:ff9b::7f00:1]/hook", NOT_PUBLIC),
        ("https://[::ffff:127.0.0.1]/hook", NOT_PUBLIC),
        ("https://mixed.example/hook", NOT_PUBLIC),
        ("https://nowhere.invalid/hook", NOT_RESOLVED),
    ],
)
def test_webhook_registration_refuses_a_host_resolving_to_a_private_address(
    client, dns, acme, url, message
):
    response = client.post(
        WEBHOOKS, {"url": url}, content_type="application/json", headers=auth(acme[1])
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"url": [message]}
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_webhook_change_to_a_private_host_changes_nothing(client, dns, acme):
    webhook = Webhook.objects.create(partner=acme[0], url="https://acme.example/hook")

    response = client.patch(
        reverse("api:webhook", kwargs={"webhook_id": webhook.pk}),
        {"url": "https://localtest.me/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"url": [NOT_PUBLIC]}
    webhook.refresh_from_db()
    assert webhook.url == "https://acme.example/hook"


@pytest.mark.django_db
def test_webhook_registration_accepts_a_public_host(client, dns, acme):
    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 201
    assert Webhook.objects.get().url == "https://acme.example/hook"


# --- Webhooks: delivery -------------------------------------------------------------------------


def _delivery(webhook: Webhook):
    return webhook_event_emit(
        partner_ids=[webhook.partner_id], event_type="quote.status_changed", data={"n": 1}
    )[0]


def _attempts(delivery) -> list[tuple]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("number", "response_status", "error")
    )


@pytest.mark.django_db
def test_webhook_dns_rebinding_to_metadata_is_refused_at_delivery(dns, acme, connects):
    """Registered while public; the name then resolves to the metadata service."""
    webhook = Webhook.objects.create(partner=acme[0], url="https://rebind.example/hook")
    dns["rebind.example"] = [PUBLIC_V4]
    delivery = _delivery(webhook)
    dns["rebind.example"] = ["169.254.169.254"]

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    assert connects == []
    assert _attempts(delivery) == [(1, None, "unreachable")]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED


@pytest.mark.django_db
def test_webhook_connects_to_the_vetted_address_without_resolving_again(
    dns, acme, connects, httpserver, settings, monkeypatch
):
    """A name answering a private address on the second lookup gets no second lookup."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1/32"]
    lookups: list[str] = []
    answers = iter([["127.0.0.1"], ["169.254.169.254"], ["169.254.169.254"]])
    fake = fake_getaddrinfo(dns)

    def counting(host, *args, **kwargs):
        if host == "rebind.example":
            lookups.append(host)
            dns[host] = next(answers)
        return fake(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    url = f"http://rebind.example:{httpserver.port}/hook"
    webhook = Webhook.objects.create(partner=acme[0], url=url)
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is True

    assert lookups == ["rebind.example"]
    assert [address[0] for address in connects] == ["127.0.0.1"]
    [(request, _response)] = httpserver.log
    assert request.headers["Host"] == f"rebind.example:{httpserver.port}"


@pytest.mark.django_db
def test_partners_never_read_connection_errors(client, acme, settings):
    """A port scan through webhooks: every failure reads "unreachable", whatever happened."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    webhook = Webhook.objects.create(partner=acme[0], url=f"http://127.0.0.1:{port}/hook")
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    response = client.get(
        reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk}),
        headers=auth(acme[1]),
    )
    [row] = response.json()["results"]
    assert [(a["number"], a["response_status"], a["error"]) for a in row["attempts"]] == [
        (1, None, "unreachable")
    ]


@pytest.mark.django_db
def test_a_webhook_to_loopback_is_not_called_without_the_allow_setting(acme, httpserver):
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    webhook = Webhook.objects.create(partner=acme[0], url=httpserver.url_for("/hook"))
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    assert httpserver.log == []
    assert _attempts(delivery) == [(1, None, "unreachable")]


@pytest.mark.django_db
def test_connection_errors_stored_before_the_fix_are_not_shown_to_partners(client, acme):
    webhook = Webhook.objects.create(partner=acme[0], url="https://acme.example/hook")
    delivery = _delivery(webhook)
    WebhookAttempt.objects.create(
        delivery=delivery, number=1, error="ConnectionRefusedError: [Errno 111] refused"
    )

    response = client.get(
        reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk}),
        headers=auth(acme[1]),
    )

    [row] = response.json()["results"]
    assert [a["error"] for a in row["attempts"]] == ["unreachable"]


@pytest.mark.django_db
@pytest.mark.parametrize("port", [0, 25, 6379])
def test_webhook_registration_refuses_a_port_outside_the_list(client, dns, acme, port):
    response = client.post(
        WEBHOOKS,
        {"url": f"https://acme.example:{port}/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "url": ["Use port 443, 80, 8443: other ports are not called."]
    }
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_webhook_registration_accepts_port_8443(client, dns, acme):
    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example:8443/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 201
