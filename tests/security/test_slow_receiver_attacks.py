"""Attack: a webhook receiver that drips its answer a byte at a time, each byte just inside the
per-read timeout, holds the worker for minutes. One deadline bounds the whole attempt."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from gpuquote.core.outbound import OutboundPolicy, outbound_request

LOOPBACK = OutboundPolicy.from_entries(["127.0.0.1/32"])


@pytest.fixture
def dripping_server() -> Iterator[tuple[str, list[int]]]:
    """An HTTP server answering one byte every 0.2 s, forever; the bytes it sent."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sent: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        conn, _address = listener.accept()
        with conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nX-Drip: " + b"a" * 10_000:
                if stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return
                sent.append(byte)
                time.sleep(0.2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook", sent
    stop.set()
    listener.close()
    thread.join(timeout=2)


def test_a_dripping_receiver_is_cut_off_at_the_attempt_deadline(dripping_server):
    url, sent = dripping_server

    request = outbound_request(
        url, policy=LOOPBACK, method="POST", body=b"{}", timeout_s=10, deadline_s=1
    )
    with pytest.raises(TimeoutError, match="no complete answer within 1 s"), request as response:
        response.read()

    # 0.2 s a byte: about 5 bytes in the second; without the deadline it reads on for 2000 s
    assert len(sent) <= 10


def test_a_prompt_receiver_is_unaffected_by_the_deadline(httpserver):
    httpserver.expect_request("/hook").respond_with_data("ok")

    with outbound_request(httpserver.url_for("/hook"), policy=LOOPBACK, method="POST",
                          body=b"{}", timeout_s=10, deadline_s=5) as response:  # fmt: skip
        assert response.read() == b"ok"
        assert response.status == 200


def test_webhook_attempts_run_on_their_own_queue():
    from celery import current_app

    from quotes.tasks import deliver_webhook, send_quote_email

    router = current_app.amqp.router

    assert router.route({}, deliver_webhook.name)["queue"].name == "webhooks"
    assert router.route({}, send_quote_email.name)["queue"].name == "celery"


@pytest.mark.django_db
def test_a_dripping_webhook_receiver_ends_as_a_timed_out_attempt(dripping_server, settings):
    from quotes.partners.webhooks import delivery

    settings.WEBHOOK_DELIVERY_DEADLINE_S = 1
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1/32"]
    url, sent = dripping_server

    result = delivery._post(url=url, body=b"{}", headers={})

    assert result.status is None
    assert result.error == "TimeoutError: no complete answer within 1 s"
    assert result.duration_ms < 5_000
    assert len(sent) <= 10


@pytest.mark.django_db
def test_a_partner_cannot_time_a_failed_connection(dripping_server, settings, client):
    """How long a connection took to fail tells a refused port from a filtered one: a timing
    port scanner. The partner reads null; the operator still has the recorded duration."""
    from quotes.models import WebhookAttempt
    from quotes.partners.webhooks.delivery import webhook_deliver
    from tests.api_fixtures import auth, partner_key
    from tests.quotes.partners.webhook_cases import deliveries_url, delivery_make, webhook_make

    settings.WEBHOOK_DELIVERY_DEADLINE_S = 1
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1/32"]
    url, _sent = dripping_server
    partner, raw = partner_key("Acme Cloud")
    delivery = delivery_make(webhook_make(partner, url))

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    [attempt] = WebhookAttempt.objects.filter(delivery=delivery)
    assert attempt.response_status is None
    assert attempt.duration_ms >= 1000  # recorded: cut off at the 1 s deadline
    body = client.get(deliveries_url(delivery.webhook), headers=auth(raw)).json()
    [shown] = body["results"][0]["attempts"]
    assert (shown["error"], shown["duration_ms"]) == ("unreachable", None)
