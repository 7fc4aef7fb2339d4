"""Faults under real services: the broker (Redis) down while a quote is sent, PostgreSQL dropping
the app's connections under load, a worker killed mid-delivery. Bounded waits, 127.0.0.1 only.
Fixtures and skip rules: tests/reliability/conftest.py."""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from kombu import Connection
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from gpuquote.core.outbox import outbox_jobs_redispatch
from quotes.models import (
    DeliveryStatus,
    OutboxJob,
    QuoteEvent,
    QuoteEventKind,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
)
from quotes.partners.webhooks.delivery import DELIVERY_HEADER, NO_ANSWER_RECORDED
from quotes.partners.webhooks.events import webhook_ping
from quotes.sales import services
from quotes.tasks import send_quote_email
from tests.api_fixtures import partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.workers import Gunicorn, http_server, wait_until, worker_database_url

pytestmark = pytest.mark.django_db(transaction=True)

PARALLEL = 8
ROUNDS = 3
REQUEST_TIMEOUT_S = 30


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


# --- (a) Redis down while a quote is sent ------------------------------------------------------


def test_a_quote_sent_while_redis_is_down_is_mailed_once_when_it_is_back(
    private_redis, start_worker, rep
):
    worker = start_worker()
    quote = quote_make(rep)
    browser = Client(raise_request_exception=False)
    browser.force_login(rep)

    private_redis.stop()
    response = browser.post(
        reverse("sales:quote_action", args=[quote.pk]),
        {"action": "send", "acknowledge_checks": "on"},
    )

    # The request succeeds: the quote is sent, the e-mail job is kept in the outbox.
    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.status == "sent"
    job = OutboxJob.objects.get(task=send_quote_email.name)
    assert (job.dispatched_at, job.attempts) == (None, 1)
    assert not QuoteEvent.objects.filter(kind=QuoteEventKind.EMAIL_SENT).exists()

    # Redis is back; beat runs the re-dispatch (quotes.outbox_redispatch, every minute).
    private_redis.start()
    assert outbox_jobs_redispatch(older_than_s=0) == 1

    wait_until(
        lambda: QuoteEvent.objects.filter(kind=QuoteEventKind.EMAIL_SENT).exists(),
        what="the e-mail sent by the worker",
        process=worker,
    )
    job.refresh_from_db()
    assert job.dispatched_at is not None
    assert outbox_jobs_redispatch(older_than_s=0) == 0
    assert QuoteEvent.objects.filter(quote=quote, kind=QuoteEventKind.EMAIL_SENT).count() == 1
    mailed = worker.log_path.read_text(errors="replace")  # the console e-mail backend
    assert mailed.count("To: ada@example.com") == 1


# --- (b) PostgreSQL drops the app's connections under load -------------------------------------


class WebServer(Gunicorn):
    """gunicorn (2 processes x 2 threads) on the test database, keeping its connections open
    between requests (``DB_CONN_MAX_AGE``), as in production."""

    def __init__(self, log_path: Path) -> None:
        env = os.environ | {
            "DATABASE_URL": worker_database_url(os.environ["DATABASE_URL"]),
            "DB_CONN_MAX_AGE": "600",
        }
        super().__init__(log_path, env=env, workers=2, threads=2)

    def get(self, path: str) -> int:
        url = self.url(path)
        try:
            with urllib.request.urlopen(url, timeout=REQUEST_TIMEOUT_S) as answer:  # noqa: S310
                answer.read()
                return answer.status
        except urllib.error.HTTPError as answer:
            return answer.code


@pytest.fixture
def web_server(tmp_path) -> Iterator[WebServer]:
    server = WebServer(tmp_path / "gunicorn.log")
    yield server
    server.stop()


def _terminate_app_connections() -> int:
    """What a PostgreSQL restart does to the app: every other session on its database ends."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_requests_after_postgresql_dropped_the_connections_succeed(web_server, rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    page = f"/q/{quote.token}/"
    during: list[int] = []
    stop = threading.Event()

    def load() -> None:  # requests in flight while the connections are dropped
        while not stop.is_set() and len(during) < 500:
            during.append(web_server.get(page))

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        assert list(pool.map(lambda _: web_server.get(page), range(PARALLEL))) == [200] * PARALLEL
        loader = threading.Thread(target=load)
        loader.start()
        try:
            for _round in range(ROUNDS):
                # The app's persistent connections are there to be dropped.
                assert _terminate_app_connections() >= 1, web_server.output()
                after = list(pool.map(lambda _: web_server.get(page), range(PARALLEL)))
                assert after == [200] * PARALLEL, web_server.output()
        finally:
            stop.set()
            loader.join(timeout=REQUEST_TIMEOUT_S)
    assert during, "no request ran during the faults"
    assert web_server.get(page) == 200


# --- (c) A worker killed mid-delivery ------------------------------------------------------------


class DedupingReceiver:
    """A partner's receiver: it acts on each ``GPUQuote-Delivery`` id once and answers 200 to
    every copy. The first request hangs until released (its worker is killed meanwhile)."""

    def __init__(self) -> None:
        self.requests: list[str] = []  # delivery id of every HTTP request received
        self.processed: list[str] = []  # delivery ids acted on (once each)
        self.release = threading.Event()

    def __call__(self, request: Request) -> Response:
        delivery_id = request.headers[DELIVERY_HEADER]
        self.requests.append(delivery_id)
        if delivery_id not in self.processed:
            self.processed.append(delivery_id)
        if len(self.requests) == 1:
            self.release.wait(timeout=30)
        return Response("ok")


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    with http_server() as server:
        yield server


def _visibility_timeout_passes(broker_url: str) -> int:
    """Redis hands an unacknowledged message to another worker once the visibility timeout
    (settings.CELERY_BROKER_TRANSPORT_OPTIONS) has passed: kombu's own sweep, run now."""
    with Connection(broker_url, transport_options={"visibility_timeout": 0}) as broker:
        qos = broker.default_channel.qos
        with broker.default_channel.conn_or_acquire() as client:
            unacked = client.hlen(qos.unacked_key)
        qos.restore_visible(num=100)
        return unacked


def test_a_worker_killed_mid_delivery_delivers_the_webhook_once_to_the_partner(
    private_redis, start_worker, receiver
):
    partner_receiver = DedupingReceiver()
    receiver.expect_request("/hook", method="POST").respond_with_handler(partner_receiver)
    partner, _raw = partner_key("Acme Cloud")
    webhook = Webhook.objects.create(partner=partner, url=receiver.url_for("/hook"))
    first = start_worker()

    delivery = webhook_ping(webhook=webhook)  # queued after commit to the private broker
    wait_until(lambda: partner_receiver.requests, what="the first delivery request", process=first)
    first.kill()  # mid-request: no answer recorded, the message never acknowledged (acks_late)
    partner_receiver.release.set()

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.PENDING, 1)
    assert _visibility_timeout_passes(private_redis.url) == 1
    second = start_worker()

    wait_until(
        lambda: WebhookDelivery.objects.filter(
            pk=delivery.pk, status=DeliveryStatus.SUCCEEDED
        ).exists(),
        what="the delivery to succeed",
        process=second,
    )
    event_id = str(delivery.event_id)
    assert partner_receiver.requests == [event_id, event_id]  # two copies on the wire...
    assert partner_receiver.processed == [event_id]  # ...one delivery for the partner
    assert list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("number", "response_status", "error")
    ) == [(1, None, NO_ANSWER_RECORDED), (2, 200, "")]
