"""Partner webhooks: signed deliveries to a local receiver, retries, events, and the API.

The receiver is pytest-httpserver on 127.0.0.1; tasks run in-process (``eager_celery``, autouse
in tests/quotes/conftest.py). Delivery tests create webhooks with the ORM: the https-only rule
of production (DEBUG off, as under pytest) is the registration's, tested through the API.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from werkzeug import Response as ReceiverResponse

from catalog.models import PriceSource
from catalog.services import price_source_refresh
from gpuquote.api.signing import SIGNATURE_HEADER, signature_verify
from gpuquote.celery import app
from quotes.models import (
    DeliveryStatus,
    Partner,
    QuoteOrigin,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
)
from quotes.partners.keys import api_key_revoke
from quotes.partners.webhooks import delivery as webhook_delivery
from quotes.partners.webhooks.delivery import WebhookDeliveryError, webhook_deliver
from quotes.partners.webhooks.events import (
    PRICE_CHANGES_PER_EVENT,
    webhook_event_emit,
    webhooks_prices_changed,
    webhooks_quote_status_changed,
)
from quotes.partners.webhooks.registration import WEBHOOKS_PER_PARTNER_MAX
from quotes.sales.services import quote_create
from quotes.tasks import WEBHOOK_MAX_RETRIES, deliver_webhook
from tests.api_fixtures import auth, partner_key
from tests.factories import cpu_make, gpu_make, price_make
from tests.workers import wait_until

# Names resolve without the network (*.example: a public address); receivers on 127.0.0.1 are
# allowed explicitly through ``outbound_allows_loopback`` (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]

HOOK = "/hook"
WEBHOOKS = reverse("api:webhooks")


def detail_url(webhook: Webhook) -> str:
    return reverse("api:webhook", kwargs={"webhook_id": webhook.pk})


def deliveries_url(webhook: Webhook) -> str:
    return reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk})


def ping_url(webhook: Webhook) -> str:
    return reverse("api:webhook-ping", kwargs={"webhook_id": webhook.pk})


def webhook_make(partner: Partner, url: str, **fields) -> Webhook:
    return Webhook.objects.create(partner=partner, url=url, **fields)


def delivery_make(webhook: Webhook, **fields) -> WebhookDelivery:
    return webhook_event_emit(
        partner_ids=[webhook.partner_id],
        event_type=fields.pop("event_type", "quote.status_changed"),
        data=fields.pop("data", {"quote_id": 1}),
    )[0]


def attempts(delivery: WebhookDelivery) -> list[tuple[int, int | None, str]]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("number", "response_status", "error")
    )


@pytest.fixture
def eager_retries(eager_celery):
    """Eager mode re-raises Celery's Retry when it propagates errors; let apply() retry instead
    (eager retries run at once: the backoff countdown is not slept)."""
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = True


@pytest.fixture
def acme():
    return partner_key("Acme Cloud")


@pytest.fixture
def globex():
    return partner_key("Globex AI")


@pytest.fixture
def receiver(httpserver_ipv4, outbound_allows_loopback):
    return httpserver_ipv4


# --- Delivery -----------------------------------------------------------------------------------


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


# --- Events -------------------------------------------------------------------------------------


def test_an_event_goes_to_every_subscribed_active_webhook_with_one_event_id(
    acme, globex, django_capture_on_commit_callbacks
):
    everything = webhook_make(acme[0], "https://acme.example/all")
    quotes_only = webhook_make(globex[0], "https://globex.example/q", events=["price.changed"])
    prices = webhook_make(globex[0], "https://globex.example/p", events=["quote.status_changed"])
    webhook_make(acme[0], "https://acme.example/off", is_active=False)
    dormant = Partner.objects.create(name="Dormant", is_active=False)
    webhook_make(dormant, "https://dormant.example/")

    with django_capture_on_commit_callbacks() as callbacks:
        deliveries = webhook_event_emit(
            partner_ids=None, event_type="price.changed", data={"amount": Decimal("1.50")}
        )

    assert {d.webhook_id for d in deliveries} == {everything.pk, quotes_only.pk}
    assert prices.pk not in {d.webhook_id for d in deliveries}
    assert len({d.event_id for d in deliveries}) == 1
    assert len(callbacks) == 2  # one task per delivery, queued after commit
    stored = WebhookDelivery.objects.get(webhook=everything)
    assert stored.status == DeliveryStatus.PENDING
    assert stored.payload["id"] == str(stored.event_id)
    assert stored.payload["type"] == "price.changed"
    assert stored.payload["data"] == {"amount": "1.50"}
    assert dt.datetime.fromisoformat(stored.payload["created_at"]) <= timezone.now()


def test_an_event_for_some_partners_reaches_only_theirs(acme, globex):
    webhook_make(acme[0], "https://acme.example/")
    webhook_make(globex[0], "https://globex.example/")

    deliveries = webhook_event_emit(
        partner_ids=[globex[0].pk], event_type="quote.status_changed", data={}
    )

    assert [d.webhook.partner for d in deliveries] == [globex[0]]


def test_an_event_without_subscribers_creates_nothing(acme):
    assert webhook_event_emit(partner_ids=None, event_type="price.changed", data={}) == []
    assert not WebhookDelivery.objects.exists()
    with pytest.raises(ValueError, match="unknown webhook event"):
        webhook_event_emit(partner_ids=None, event_type="quote.deleted", data={})


@transaction.atomic
def _emit_then_fail() -> None:
    webhook_event_emit(partner_ids=None, event_type="price.changed", data={})
    raise RuntimeError("the caller's transaction fails")


def test_a_rolled_back_event_leaves_no_delivery_and_sends_nothing(
    acme, receiver, django_capture_on_commit_callbacks
):
    webhook_make(acme[0], receiver.url_for(HOOK))

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError, match="transaction fails"),
    ):
        _emit_then_fail()

    assert callbacks == []
    assert not WebhookDelivery.objects.exists()
    assert receiver.log == []


def _partner_quote(partner: Partner | None):
    return quote_create(
        user=None,
        origin=QuoteOrigin.PARTNER_API if partner else QuoteOrigin.STAFF,
        company="Lab GmbH",
        contact_name="Ada",
        email="ada@lab.example",
        country="DE",
        partner=partner,
    )


def test_a_partner_quote_changing_status_notifies_that_partner_only(
    receiver, acme, globex, django_capture_on_commit_callbacks
):
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    own = webhook_make(acme[0], receiver.url_for(HOOK))
    other = webhook_make(globex[0], receiver.url_for("/globex"))
    quote = _partner_quote(acme[0])

    with django_capture_on_commit_callbacks(execute=True):
        deliveries = webhooks_quote_status_changed(
            quote=quote, from_status="draft", to_status="sent"
        )

    assert [d.webhook_id for d in deliveries] == [own.pk]
    assert not WebhookDelivery.objects.filter(webhook=other).exists()
    [(request, _)] = receiver.log
    sent = json.loads(request.get_data())
    assert sent["type"] == "quote.status_changed"
    assert sent["data"] == {
        "quote_id": quote.pk,
        "number": quote.number,
        "status": "sent",
        "previous_status": "draft",
        "revision": "A",
        "updated_at": quote.updated_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED


def test_a_quote_without_a_partner_notifies_nobody(acme, staff_user):
    webhook_make(acme[0], "https://acme.example/")
    quote = quote_create(
        user=staff_user,
        origin=QuoteOrigin.STAFF,
        company="Lab GmbH",
        contact_name="Ada",
        email="ada@lab.example",
        country="DE",
    )

    assert webhooks_quote_status_changed(quote=quote, from_status="draft", to_status="sent") == []
    assert not WebhookDelivery.objects.exists()


FEED_DAY = "2026-11-30"


def test_a_price_refresh_sends_the_changed_prices_to_every_partner(
    receiver, acme, globex, django_capture_on_commit_callbacks
):
    gpu, cpu = gpu_make(sku="GPU-W"), cpu_make(sku="CPU-W")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=dt.date(2026, 10, 1))
    price_make(cpu, amount=Decimal("500.00"), observed_on=dt.date(2026, 10, 1))
    feed = (
        "sku,price,currency,observed_on\n"
        f"GPU-W,1100.00,EUR,{FEED_DAY}\nCPU-W,500.00,EUR,{FEED_DAY}\n"
    )
    receiver.expect_request("/feed").respond_with_data(feed)
    receiver.expect_request(HOOK, method="POST").respond_with_data("ok")
    webhook_make(acme[0], receiver.url_for(HOOK))
    webhook_make(globex[0], receiver.url_for(HOOK))
    webhook_make(globex[0], "https://globex.example/q", events=["quote.status_changed"])
    source = PriceSource.objects.create(
        name="Distributor EU",
        kind="supplier",
        location=receiver.url_for("/feed"),
        format="csv",
        currency="EUR",
    )

    with django_capture_on_commit_callbacks(execute=True):
        run = price_source_refresh(source_id=source.pk)

    assert run.status == "applied"
    deliveries = WebhookDelivery.objects.filter(event_type="price.changed")
    assert deliveries.count() == 2
    assert set(deliveries.values_list("status", flat=True)) == {DeliveryStatus.SUCCEEDED}
    hooks = [request for request, _ in receiver.log if request.path == HOOK]
    assert len(hooks) == 2
    sent = json.loads(hooks[0].get_data())
    assert sent["type"] == "price.changed"
    assert sent["data"] == {
        "source": "Distributor EU",
        "count": 1,
        "truncated": False,
        "prices": [
            {
                "sku": "GPU-W",
                "kind": "gpu",
                "price_kind": "purchase",
                "currency": "EUR",
                "old_amount": "1000.00",
                "new_amount": "1100.00",
                "observed_on": FEED_DAY,
            }
        ],
    }


def test_a_rejected_price_feed_sends_nothing(receiver, acme, django_capture_on_commit_callbacks):
    gpu_make(sku="GPU-R")
    receiver.expect_request("/feed").respond_with_data(
        "sku,price,currency,observed_on\nGPU-R,1.00,EUR,2026-11-30\nNOPE,2.00,EUR,2026-11-30\n"
    )
    webhook_make(acme[0], receiver.url_for(HOOK))
    source = PriceSource.objects.create(
        name="Bad",
        kind="supplier",
        location=receiver.url_for("/feed"),
        format="csv",
        currency="EUR",
    )

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = price_source_refresh(source_id=source.pk)

    assert run.status == "rejected"
    assert callbacks == []
    assert not WebhookDelivery.objects.exists()


def test_a_price_event_carries_at_most_the_cap_and_says_it_was_truncated(acme):
    webhook_make(acme[0], "https://acme.example/")
    changed = [{"sku": f"SKU-{n}", "new_amount": Decimal(n)} for n in range(501)]

    [delivery] = webhooks_prices_changed(source_name="Big", changed=changed, changed_total=900)

    data = delivery.payload["data"]
    assert PRICE_CHANGES_PER_EVENT == 500
    assert (data["count"], data["truncated"], len(data["prices"])) == (900, True, 500)
    assert data["prices"][-1] == {"sku": "SKU-499", "new_amount": "499"}
    assert webhooks_prices_changed(source_name="Quiet", changed=[]) == []


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


# --- API: register, change, delete ---------------------------------------------------------------


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


# --- API: deliveries and ping -------------------------------------------------------------------


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
