"""Partner webhook deliveries: signed with the webhook's secret, retried until the receiver
answers 2xx, recorded per attempt; timeouts, unreachable receivers and redirects.

The receiver is pytest-httpserver on 127.0.0.1; tasks run in-process (``eager_celery``, autouse
in tests/quotes/conftest.py).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from werkzeug import Response as ReceiverResponse

from gpuquote.api.signing import SIGNATURE_HEADER, signature_verify
from gpuquote.celery import app
from quotes.models import DeliveryStatus, Webhook
from quotes.partners.webhooks import delivery as webhook_delivery
from quotes.partners.webhooks.delivery import WebhookDeliveryError, webhook_deliver
from quotes.tasks import WEBHOOK_MAX_RETRIES, deliver_webhook
from tests.quotes.partners.webhook_cases import HOOK, attempts, delivery_make, webhook_make
from tests.workers import wait_until

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]


def test_a_delivery_is_signed_with_the_webhook_secret_over_the_exact_body(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook = webhook_make(acme[0], receiver.url_for(HOOK))
    delivery = delivery_make(webhook, data={"quote_id": 7, "note": "café"})

    assert deliver_webhook.delay(delivery.pk).get() is True

    (request, _response) = receiver.log[0]
    body = request.get_data()
    assert signature_verify(
        webhook.secret, request.headers[SIGNATURE_HEADER], body, now=int(time.time())
    )
    assert not signature_verify(
        "whsec_other", request.headers[SIGNATURE_HEADER], body, now=int(time.time())
    )
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["GPUQuote-Event"] == "quote.status_changed"
    assert request.headers["GPUQuote-Delivery"] == str(delivery.event_id)
    assert request.headers["User-Agent"] == "GPUQuote-Webhooks/1"
    sent = json.loads(body)
    assert sent == delivery.payload
    assert set(sent) == {"id", "type", "created_at", "data"}
    assert (sent["id"], sent["type"]) == (str(delivery.event_id), "quote.status_changed")
    assert sent["data"] == {"quote_id": 7, "note": "café"}
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 1)
    assert delivery.delivered_at is not None
    [attempt] = delivery.attempts.all()
    assert (attempt.number, attempt.response_status, attempt.error) == (1, 200, "")
    assert attempt.duration_ms >= 0


@pytest.mark.usefixtures("eager_retries")
def test_a_failing_receiver_is_retried_until_it_answers_2xx(receiver, acme):
    for status in (500, 500, 204):
        receiver.expect_ordered_request(HOOK, method="POST").respond_with_data("", status=status)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    assert deliver_webhook.delay(delivery.pk).get() is True

    receiver.check_assertions()
    assert attempts(delivery) == [(1, 500, ""), (2, 500, ""), (3, 204, "")]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 3)
    # Every try is signed afresh, with the same body and event id.
    bodies = {request.get_data() for request, _ in receiver.log}
    assert len(bodies) == 1
    assert {request.headers["GPUQuote-Delivery"] for request, _ in receiver.log} == {
        str(delivery.event_id)
    }


@pytest.mark.usefixtures("eager_retries")
def test_a_receiver_always_failing_ends_failed_after_the_last_retry(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data("down", status=500)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    assert deliver_webhook.delay(delivery.pk).get() is False

    tries = WEBHOOK_MAX_RETRIES + 1
    assert tries == 9
    assert attempts(delivery) == [(n, 500, "") for n in range(1, tries + 1)]
    assert len(receiver.log) == tries
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count, delivery.delivered_at) == (
        DeliveryStatus.FAILED,
        tries,
        None,
    )


def test_a_delivery_that_succeeded_is_not_sent_again(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    assert deliver_webhook.delay(delivery.pk).get() is True
    assert deliver_webhook.delay(delivery.pk).get() is True  # the task ran twice

    assert len(receiver.log) == 1
    assert attempts(delivery) == [(1, 200, "")]


def test_a_non_2xx_answer_raises_for_the_task_to_retry(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data("nope", status=410)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    with pytest.raises(WebhookDeliveryError, match="HTTP 410"):
        webhook_deliver(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.PENDING, 1)


def test_an_unreachable_receiver_is_recorded_as_unreachable_only(acme, outbound_allows_loopback):
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delivery = delivery_make(webhook_make(acme[0], f"http://127.0.0.1:{port}/hook"))

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    # The partner does not read "connection refused" (a port scanner); the logs do.
    assert attempts(delivery) == [(1, None, "unreachable")]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED


def test_a_slow_receiver_times_out(receiver, acme, monkeypatch):
    monkeypatch.setattr(webhook_delivery, "DELIVERY_TIMEOUT_S", 0.2)
    answer = threading.Event()

    def slow(request):
        answer.wait(timeout=10)  # holds the answer until the sender has given up
        return ReceiverResponse("late")

    receiver.expect_request(HOOK, method="POST").respond_with_handler(slow)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    try:
        with pytest.raises(WebhookDeliveryError, match="timed out"):
            webhook_deliver(delivery_id=delivery.pk)
    finally:
        answer.set()

    assert attempts(delivery) == [(1, None, "unreachable")]
    # The late answer is logged before the next test reuses the receiver.
    wait_until(lambda: receiver.log, timeout=5, what="the late answer to be logged")


def test_a_redirect_is_not_followed(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data(
        "", status=307, headers={"Location": receiver.url_for("/elsewhere")}
    )

    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False
    assert attempts(delivery) == [(1, 307, "")]
    assert [request.path for request, _ in receiver.log] == [HOOK]


def test_a_webhook_switched_off_after_the_event_is_not_called(receiver, acme):
    webhook = webhook_make(acme[0], receiver.url_for(HOOK))
    delivery = delivery_make(webhook)
    Webhook.objects.filter(pk=webhook.pk).update(is_active=False)

    assert deliver_webhook.delay(delivery.pk).get() is False

    assert receiver.log == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.FAILED, 0)


def test_the_task_is_named_acks_late_and_retries_only_delivery_errors():
    assert deliver_webhook.name == "quotes.deliver_webhook"
    assert app.tasks["quotes.deliver_webhook"].name == deliver_webhook.name
    assert (deliver_webhook.acks_late, deliver_webhook.reject_on_worker_lost) == (True, True)
    assert deliver_webhook.autoretry_for == (WebhookDeliveryError,)
    assert deliver_webhook.max_retries == 8
    assert (
        deliver_webhook.retry_backoff,
        deliver_webhook.retry_backoff_max,
        deliver_webhook.retry_jitter,
    ) == (30, 3600, True)
