"""Attacks on the after-commit jobs: a partner's broken webhook, or a broker refusing a job,
must not break the staff "send" or the customer "accept", nor drop the other jobs queued with it.

The tests commit for real (``transaction=True``): the after-commit jobs then run inside the
request, as in production, and the test client returns the answer the browser would get.
Tasks run in-process (``eager_celery``), as in embedded mode, where webhook deliveries are the
exception: they never run in the request but in the drain process (``outbox_jobs_drain``).
"""

from __future__ import annotations

import socket

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from kombu.exceptions import OperationalError

from gpuquote.core.outbox import outbox_jobs_drain, outbox_jobs_redispatch
from quotes.models import (
    DeliveryStatus,
    OutboxJob,
    QuoteEvent,
    QuoteEventKind,
    Webhook,
    WebhookDelivery,
)
from quotes.partners.webhooks import delivery as webhook_delivery
from quotes.sales import services
from quotes.tasks import WEBHOOK_MAX_RETRIES, deliver_webhook, send_quote_email
from tests.api_fixtures import partner_key
from tests.quotes.sales.test_quote_services import _user, quote_make

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _in_process(eager_celery, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]
    settings.SALES_NOTIFICATION_EMAIL = "sales@example.com"


@pytest.fixture
def broker_mode(settings):
    """Every job queued after the commit, as with a broker (whose refusals these tests fake)."""
    settings.EMBEDDED_BACKGROUND_TASKS = []


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def browser() -> Client:
    """A client that answers 500 as the browser would, instead of raising the error."""
    return Client(raise_request_exception=False)


def _closed_port() -> int:
    """A 127.0.0.1 port nobody listens on: connections to it are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def partner_quote(rep):
    partner, _raw = partner_key("Acme Cloud")
    Webhook.objects.create(partner=partner, url=f"http://127.0.0.1:{_closed_port()}/hook")
    return quote_make(rep, partner=partner)


def _send(browser: Client, rep, quote):
    browser.force_login(rep)
    return browser.post(
        reverse("sales:quote_action", args=[quote.pk]),
        {"action": "send", "acknowledge_checks": "on"},
    )


def _accept(browser: Client, quote):
    return browser.post(
        reverse("sales:quote_public", args=[quote.token]),
        {"name": "Ada Lovelace", "decision": "accept"},
    )


def test_send_with_an_unreachable_webhook_still_mails_the_quote(browser, rep, partner_quote):
    response = _send(browser, rep, partner_quote)

    assert response.status_code == 302
    partner_quote.refresh_from_db()
    assert partner_quote.status == "sent"
    assert [message.to for message in mail.outbox] == [["ada@example.com"]]
    assert (
        QuoteEvent.objects.filter(quote=partner_quote, kind=QuoteEventKind.EMAIL_SENT).count() == 1
    )
    delivery = WebhookDelivery.objects.get()
    assert (delivery.attempt_count, delivery.status) == (0, DeliveryStatus.PENDING)


def test_accept_with_an_unreachable_webhook_still_notifies_sales(browser, rep, partner_quote):
    services.quote_send(user=rep, quote=partner_quote, failed_checks_acknowledged=True)
    mail.outbox.clear()

    response = _accept(browser, partner_quote)

    assert response.status_code == 302
    partner_quote.refresh_from_db()
    assert partner_quote.status == "accepted"
    assert [message.to for message in mail.outbox] == [["sales@example.com"]]
    answer = QuoteEvent.objects.get(quote=partner_quote, kind=QuoteEventKind.CUSTOMER_ANSWER)
    notified = QuoteEvent.objects.get(quote=partner_quote, kind=QuoteEventKind.STAFF_NOTIFIED)
    assert notified.data == {"answer_event": answer.pk, "to": "sales@example.com"}


def _refuse(*_args, **_kwargs):
    raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.mark.usefixtures("broker_mode")
def test_send_when_the_webhook_job_cannot_be_enqueued(browser, rep, partner_quote, monkeypatch):
    monkeypatch.setattr(deliver_webhook, "apply_async", _refuse)
    monkeypatch.setattr(deliver_webhook, "delay", _refuse)

    response = _send(browser, rep, partner_quote)

    assert response.status_code == 302
    assert [message.to for message in mail.outbox] == [["ada@example.com"]]
    # The refused job is kept, not lost: the periodic re-dispatch will queue it again.
    [job] = OutboxJob.objects.filter(dispatched_at__isnull=True)
    delivery = WebhookDelivery.objects.get()
    assert (job.task, job.args, job.attempts) == (deliver_webhook.name, [delivery.pk], 1)
    assert "Connection refused" in job.last_error
    assert delivery.attempt_count == 0


@pytest.mark.usefixtures("broker_mode")
def test_accept_when_the_webhook_job_cannot_be_enqueued(browser, rep, partner_quote, monkeypatch):
    services.quote_send(user=rep, quote=partner_quote, failed_checks_acknowledged=True)
    mail.outbox.clear()
    monkeypatch.setattr(deliver_webhook, "apply_async", _refuse)
    monkeypatch.setattr(deliver_webhook, "delay", _refuse)

    response = _accept(browser, partner_quote)

    assert response.status_code == 302
    assert [message.to for message in mail.outbox] == [["sales@example.com"]]
    assert QuoteEvent.objects.filter(kind=QuoteEventKind.STAFF_NOTIFIED).count() == 1


@pytest.mark.usefixtures("broker_mode")
def test_an_e_mail_refused_by_the_broker_goes_out_once_when_it_is_back(
    browser, rep, partner_quote, monkeypatch
):
    with monkeypatch.context() as broker_down:
        broker_down.setattr(send_quote_email, "apply_async", _refuse)
        broker_down.setattr(send_quote_email, "delay", _refuse)
        response = _send(browser, rep, partner_quote)
    assert response.status_code == 302
    assert mail.outbox == []
    assert OutboxJob.objects.filter(task=send_quote_email.name, dispatched_at=None).count() == 1

    # The broker is back: the periodic re-dispatch queues the job; a second run finds nothing.
    assert outbox_jobs_redispatch(older_than_s=0) == 1
    assert outbox_jobs_redispatch(older_than_s=0) == 0
    assert [message.to for message in mail.outbox] == [["ada@example.com"]]
    assert not OutboxJob.objects.filter(task=send_quote_email.name, dispatched_at=None).exists()


# --- Embedded mode: a partner's receiver never runs inside somebody else's request -------------


@pytest.fixture
def outbound_calls(monkeypatch) -> list[str]:
    """The URLs webhook deliveries called through the SSRF-guarded outbound helper."""
    calls: list[str] = []
    real = webhook_delivery.outbound_request

    def counted(url, **kwargs):
        calls.append(url)
        return real(url, **kwargs)

    monkeypatch.setattr(webhook_delivery, "outbound_request", counted)
    return calls


@pytest.fixture
def answering_quote(rep, httpserver_ipv4):
    """A partner's quote whose webhook answers 200."""
    httpserver_ipv4.expect_request("/hook", method="POST").respond_with_data("ok")
    partner, _raw = partner_key("Acme Cloud")
    Webhook.objects.create(partner=partner, url=httpserver_ipv4.url_for("/hook"))
    return quote_make(rep, partner=partner)


def test_embedded_send_calls_no_webhook_in_the_request_the_drain_delivers_it(
    browser, rep, answering_quote, outbound_calls, httpserver_ipv4
):
    response = _send(browser, rep, answering_quote)

    assert response.status_code == 302
    assert [message.to for message in mail.outbox] == [["ada@example.com"]]  # e-mails stay
    assert outbound_calls == []
    assert WebhookDelivery.objects.get().status == DeliveryStatus.PENDING

    assert outbox_jobs_drain() == 1
    assert outbound_calls == [httpserver_ipv4.url_for("/hook")]
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED
    assert outbox_jobs_drain() == 0  # done once


def test_embedded_accept_calls_no_webhook_in_the_request_the_drain_delivers_it(
    browser, rep, answering_quote, outbound_calls
):
    services.quote_send(user=rep, quote=answering_quote, failed_checks_acknowledged=True)
    assert outbox_jobs_drain() == 1  # the "sent" event
    mail.outbox.clear()
    outbound_calls.clear()

    response = _accept(browser, answering_quote)

    assert response.status_code == 302
    assert [message.to for message in mail.outbox] == [["sales@example.com"]]
    assert outbound_calls == []
    accepted = WebhookDelivery.objects.get(payload__data__status="accepted")
    assert accepted.status == DeliveryStatus.PENDING

    assert outbox_jobs_drain() == 1
    assert len(outbound_calls) == 1
    accepted.refresh_from_db()
    assert accepted.status == DeliveryStatus.SUCCEEDED


def test_the_drain_retries_an_unreachable_receiver_later_and_fails_it_at_the_last_try(
    rep, partner_quote, outbound_calls
):
    services.quote_send(user=rep, quote=partner_quote, failed_checks_acknowledged=True)
    assert outbound_calls == []

    # First try: refused; the job waits for its backoff instead of retrying at once.
    assert outbox_jobs_drain() == 1
    job = OutboxJob.objects.get(task=deliver_webhook.name)
    assert (job.dispatched_at, job.attempts, len(outbound_calls)) == (None, 1, 1)
    assert outbox_jobs_drain() == 0  # not due yet
    delivery = WebhookDelivery.objects.get()
    assert (delivery.attempt_count, delivery.status) == (1, DeliveryStatus.PENDING)

    # Due again, at the last try: it is marked failed and the job is done.
    OutboxJob.objects.filter(pk=job.pk).update(
        created_at=job.created_at.replace(year=2000), attempts=WEBHOOK_MAX_RETRIES
    )
    assert outbox_jobs_drain() == 1
    delivery.refresh_from_db()
    assert (delivery.attempt_count, delivery.status) == (2, DeliveryStatus.FAILED)
    job.refresh_from_db()
    assert job.dispatched_at is not None
    assert len(outbound_calls) == 2
