"""The webhook API's deliveries: listed newest first with their attempts, and a ping sent to
one active webhook.

The receiver is pytest-httpserver on 127.0.0.1; tasks run in-process (``eager_celery``, autouse
in tests/quotes/conftest.py).
"""

from __future__ import annotations

import json

import pytest

from gpuquote.core.outbox import outbox_jobs_drain
from quotes.models import DeliveryStatus, WebhookDelivery
from quotes.tasks import deliver_webhook
from tests.api_fixtures import auth
from tests.quotes.partners.webhook_cases import (
    HOOK,
    WEBHOOKS,
    deliveries_url,
    delivery_make,
    ping_url,
    webhook_make,
)

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


@pytest.mark.usefixtures("eager_retries")
def test_deliveries_are_listed_newest_first_with_their_attempts(
    client, receiver, acme, django_assert_num_queries
):
    for status in (500, 200):
        receiver.expect_ordered_request(HOOK, method="POST").respond_with_data("", status=status)
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook = webhook_make(acme[0], receiver.url_for(HOOK))
    first = delivery_make(webhook, data={"n": 1})
    deliver_webhook.delay(first.pk)
    second = delivery_make(webhook, data={"n": 2})
    deliver_webhook.delay(second.pk)
    client.get(WEBHOOKS, headers=auth(acme[1]))  # the key's last use is recorded once a minute

    # key, webhook, count, deliveries, attempts: the same for 2 deliveries as for 20.
    with django_assert_num_queries(5):
        response = client.get(deliveries_url(webhook), headers=auth(acme[1]))

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [row["id"] for row in body["results"]] == [second.pk, first.pk]
    older = body["results"][1]
    assert (older["event_type"], older["status"], older["attempt_count"]) == (
        "quote.status_changed",
        "succeeded",
        2,
    )
    assert older["event_id"] == str(first.event_id)
    assert older["payload"]["data"] == {"n": 1}
    assert [(a["number"], a["response_status"], a["error"]) for a in older["attempts"]] == [
        (1, 500, ""),
        (2, 200, ""),
    ]
    assert body["results"][0]["attempts"][0]["response_status"] == 200

    for n in range(18):
        delivery_make(webhook, data={"n": n + 3})
    with django_assert_num_queries(5):
        assert client.get(deliveries_url(webhook), headers=auth(acme[1])).json()["count"] == 20


def test_a_ping_is_delivered_to_that_webhook_only(
    client, receiver, acme, django_capture_on_commit_callbacks
):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook = webhook_make(acme[0], receiver.url_for(HOOK), events=["price.changed"])
    webhook_make(acme[0], receiver.url_for("/other"))

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(ping_url(webhook), headers=auth(acme[1]))
    assert receiver.log == []  # embedded mode: never sent inside the request
    assert outbox_jobs_drain() == 1

    assert response.status_code == 202
    assert response.json()["event_type"] == "webhook.ping"
    [(request, _)] = receiver.log
    assert request.headers["GPUQuote-Event"] == "webhook.ping"
    assert json.loads(request.get_data())["data"] == {"webhook_id": webhook.pk}
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED


def test_an_inactive_webhook_cannot_be_pinged(client, acme):
    webhook = webhook_make(acme[0], "https://acme.example/", is_active=False)

    response = client.post(ping_url(webhook), headers=auth(acme[1]))

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["is_active"]
    assert not WebhookDelivery.objects.exists()
