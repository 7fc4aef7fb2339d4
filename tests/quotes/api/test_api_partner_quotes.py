"""Quotes over the partner API: keys, isolation, idempotency, listing, PDF, throttling."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from gpuquote.api.signing import signature_verify
from gpuquote.core.outbox import outbox_jobs_drain
from quotes.api.auth import AnonymousThrottle, PartnerKeyThrottle
from quotes.models import ApiKey, Quote, Webhook, WebhookDelivery
from quotes.partners.keys import api_key_revoke
from quotes.sales import services as quote_services
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import _user

pytestmark = pytest.mark.django_db

QUOTES = reverse("api:quote-list")
BODY = {
    "customer": {
        "company": "Analytical Engines SA",
        "contact_name": "Ada Lovelace",
        "email": "ada@example.com",
        "country": "fr",
    },
    "workload": {"task": "inference", "model": "llama-3.1-8b"},
    "environment": "production",
    "deployment": "managed",
    "region": "FR",
    "currency": "EUR",
    "horizon_years": 3,
}
PROBLEM_KEYS = {"type", "title", "status", "detail", "message", "errors"}


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


@pytest.fixture
def acme():
    return partner_key("Acme Cloud")


@pytest.fixture
def globex():
    return partner_key("Globex AI")


def _create(client, raw, body=BODY, **headers):
    return client.post(QUOTES, body, content_type="application/json", headers=auth(raw) | headers)


def _detail(quote_id: int) -> str:
    return reverse("api:quote-detail", kwargs={"pk": quote_id})


def _pdf(quote_id: int) -> str:
    return reverse("api:quote-pdf", kwargs={"pk": quote_id})


# --- Who may call ---------------------------------------------------------------------------


def test_anonymous_gets_401_with_the_problem_shape_everywhere(client, acme):
    quote_id = _create(client, acme[1]).json()["id"]
    for response in (
        client.get(QUOTES),
        client.post(QUOTES, BODY, content_type="application/json"),
        client.get(_detail(quote_id)),
        client.get(_pdf(quote_id)),
    ):
        assert response.status_code == 401
        assert response["WWW-Authenticate"].startswith("Api-Key")
        body = response.json()
        assert set(body) == PROBLEM_KEYS
        assert body["status"] == 401


def test_revoked_expired_and_forged_keys_are_refused(client, acme):
    _partner, raw = acme
    assert client.get(QUOTES, headers=auth(raw)).status_code == 200
    _key, expired = partner_key("Acme Cloud", expires_at=timezone.now() - dt.timedelta(seconds=1))
    forged = raw[:-4] + ("AAAA" if not raw.endswith("AAAA") else "BBBB")

    api_key_revoke(key=ApiKey.objects.get(prefix=raw.split("_")[1]))

    for key in (raw, expired, forged, "gq_nothex0_" + "x" * 43, "not-a-key"):
        response = client.get(QUOTES, headers=auth(key))
        assert response.status_code == 401, key
        assert "unknown, expired or revoked" in response.json()["detail"]


def test_bearer_works_and_last_use_is_recorded(client, acme):
    partner, raw = acme
    key = ApiKey.objects.get(partner=partner)
    assert key.last_used_at is None

    assert client.get(QUOTES, headers=auth(raw, scheme="Bearer")).status_code == 200

    key.refresh_from_db()
    assert key.last_used_at is not None


def test_the_key_cannot_be_recovered_from_the_database(acme):
    partner, raw = acme
    key = ApiKey.objects.get(partner=partner)
    stored = " ".join(str(value) for value in ApiKey.objects.values().get(pk=key.pk).values())
    assert raw not in stored
    assert raw.split("_", 2)[2] not in stored  # the secret part appears nowhere
    assert key.key_hash == hashlib.sha256(raw.encode()).hexdigest()


# --- Creating, idempotency --------------------------------------------------------------------


def test_a_partner_creates_a_priced_quote_with_its_tco(client, acme):
    partner, raw = acme

    response = _create(client, raw)

    assert response.status_code == 201, response.json()
    body = response.json()
    quote = Quote.objects.get(pk=body["id"])
    assert quote.origin == "partner_api"
    assert quote.partner == partner
    assert quote.created_by is None
    assert response["Location"].endswith(_detail(quote.pk))
    assert body["number"] == quote.number
    assert body["status"] == "draft"
    assert body["customer"]["country"] == "FR"
    # Managed hosting asked for: the host's monthly fee, the support level (the catalog's
    # default, included in the fee) and the setup; no hardware sold
    assert [(line["kind"], line["recurrence"], line["role"]) for line in body["lines"]] == [
        ("service", "monthly", "managed_hosting"),
        ("service", "monthly", "service_tier"),
        ("service", "one_off", "managed_setup"),
    ]
    assert body["lines"][1]["unit_price"] == "0.00"
    assert body["tco"]["service_tier"]["code"] == "standard"
    contract = body["tco"]["managed_offer"]
    signed = next(t for t in contract["terms"] if t["months"] == contract["contract_months"])
    assert body["lines"][0]["unit_price"] == signed["monthly"]
    answer = body["recommendation"]
    assert answer["managed_months"] == contract["contract_months"]
    assert answer["cheapest"] in {"on_premises", "managed", "cloud", "cloud_reserved"}
    assert body["totals"]["currency"] == "EUR"
    assert body["tco"]["horizon_months"] == 36
    assert body["history"][0]["to_status"] == "draft"
    assert body["links"]["checklist_pdf"].endswith("/checklist.pdf")
    assert body["links"]["customer"] is None  # a quote never sent has no customer page


def test_the_customer_link_appears_once_the_quote_is_sent(client, acme, django_user_model):
    _partner, raw = acme
    quote = Quote.objects.get(pk=_create(client, raw).json()["id"])
    rep = _user(django_user_model, "rep", quote_services.REP_GROUP)
    quote_services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)

    body = client.get(_detail(quote.pk), headers=auth(raw)).json()

    assert body["links"]["customer"] == quote_services.quote_public_url(quote)
    assert client.get(body["links"]["customer"]).status_code == 200


def test_a_partner_quote_bills_the_service_tier_it_names(client, acme):
    raw = acme[1]

    body = _create(client, raw, BODY | {"service_tier": "24x7"}).json()

    tier = next(line for line in body["lines"] if line["role"] == "service_tier")
    fee = next(line for line in body["lines"] if line["role"] == "managed_hosting")
    assert tier["recurrence"] == "monthly"
    assert tier["unit_price"] == "450.00"
    assert tier["quantity"] == fee["quantity"]  # per server
    assert "24×7" in tier["description"]
    # The answer's monthly figure is what the quote bills each month: fee and support.
    servers = Decimal(fee["quantity"])
    monthly = (Decimal(fee["unit_price"]) + Decimal("450.00")) * servers
    assert Decimal(body["recommendation"]["managed_monthly"]) == monthly
    support = Decimal(body["tco"]["options"]["managed"]["by_category"]["support"])
    assert support == Decimal("450.00") * servers * body["tco"]["horizon_months"]


def test_an_unknown_service_tier_is_refused_naming_the_field(client, acme):
    response = _create(client, acme[1], BODY | {"service_tier": "platinum"})

    assert response.status_code == 400
    assert "service_tier" in response.json()["errors"]
    assert Quote.objects.count() == 0


def test_the_same_idempotency_key_and_body_return_the_same_quote(client, acme):
    raw = acme[1]
    first = _create(client, raw, BODY, **{"Idempotency-Key": "order-42"})
    again = _create(client, raw, BODY, **{"Idempotency-Key": "order-42"})

    assert first.status_code == 201
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert Quote.objects.count() == 1

    other_body = BODY | {"horizon_years": 5}
    conflict = _create(client, raw, other_body, **{"Idempotency-Key": "order-42"})
    assert conflict.status_code == 409
    assert conflict.json()["status"] == 409
    assert Quote.objects.count() == 1

    assert _create(client, raw).status_code == 201  # no key: a new quote each time
    assert Quote.objects.count() == 2


def test_keys_are_per_partner(client, acme, globex):
    first = _create(client, acme[1], BODY, **{"Idempotency-Key": "same"})
    second = _create(client, globex[1], BODY, **{"Idempotency-Key": "same"})

    assert second.status_code == 201
    assert second.json()["id"] != first.json()["id"]


def test_bad_fields_are_400s_naming_them(client, acme):
    body = BODY | {
        "workload": {"task": "inference", "model": "no-such-model"},
        "customer": BODY["customer"] | {"email": "nope"},
        "horizon_years": 40,
    }

    response = _create(client, acme[1], body)

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "customer.email" in errors
    assert "horizon_years" in errors
    assert Quote.objects.count() == 0
    bad_workload = _create(client, acme[1], BODY | {"workload": {"task": "x"}})
    assert "workload.task" in bad_workload.json()["errors"]
    long_key = _create(client, acme[1], BODY, **{"Idempotency-Key": "k" * 201})
    assert "Idempotency-Key" in long_key.json()["errors"]


# --- Isolation, staff ---------------------------------------------------------------------------


def test_another_partners_quote_is_a_404_and_never_listed(client, acme, globex):
    quote_id = _create(client, acme[1]).json()["id"]
    _create(client, globex[1])

    for url in (_detail(quote_id), _pdf(quote_id)):
        response = client.get(url, headers=auth(globex[1]))
        assert response.status_code == 404
        assert response.json()["status"] == 404
    listed = client.get(QUOTES, headers=auth(globex[1])).json()
    assert quote_id not in [quote["id"] for quote in listed["results"]]
    assert listed["count"] == 1
    assert client.get(_detail(quote_id), headers=auth(acme[1])).status_code == 200


def test_sales_staff_see_every_quote_through_their_session(client, acme, globex, django_user_model):
    _create(client, acme[1])
    _create(client, globex[1])
    client.force_login(_user(django_user_model, "rep", "sales rep"))

    listed = client.get(QUOTES).json()

    assert listed["count"] == 2
    refused = client.post(QUOTES, BODY, content_type="application/json")
    assert refused.status_code == 403


def test_a_signed_in_user_outside_the_sales_team_sees_nothing(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("visitor", password="x"))
    assert client.get(QUOTES).status_code == 403


# --- Listing ------------------------------------------------------------------------------------


def test_list_is_paginated_and_filtered(client, acme):
    raw = acme[1]
    ids = [_create(client, raw).json()["id"] for _ in range(3)]
    Quote.objects.filter(pk=ids[0]).update(status="sent")

    page = client.get(QUOTES, {"page_size": 2}, headers=auth(raw)).json()
    assert page["count"] == 3
    assert len(page["results"]) == 2
    assert "page=2" in page["next"]
    sent = client.get(QUOTES, {"status": "sent"}, headers=auth(raw)).json()
    assert [quote["id"] for quote in sent["results"]] == [ids[0]]
    today = timezone.localdate()
    later = (today + dt.timedelta(days=1)).isoformat()
    assert client.get(QUOTES, {"created_after": later}, headers=auth(raw)).json()["count"] == 0
    assert client.get(QUOTES, {"created_before": later}, headers=auth(raw)).json()["count"] == 3
    bad = client.get(QUOTES, {"status": "lost", "created_after": "yesterday"}, headers=auth(raw))
    assert bad.status_code == 400
    assert set(bad.json()["errors"]) == {"status", "created_after"}


# --- PDF ----------------------------------------------------------------------------------------


def test_the_pdf_downloads_and_errors_stay_json(client, acme):
    raw = acme[1]
    quote_id = _create(client, raw).json()["id"]

    response = client.get(_pdf(quote_id), headers=auth(raw) | {"Accept": "application/pdf"})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content[:5] == b"%PDF-"
    missing = client.get(_pdf(999_999), headers=auth(raw) | {"Accept": "application/pdf"})
    assert missing.status_code == 404
    assert missing["Content-Type"] == "application/problem+json"


# --- Throttling ---------------------------------------------------------------------------------


def test_each_key_has_its_own_bucket_and_429_says_when_to_retry(client, acme, globex, monkeypatch):
    rates = PartnerKeyThrottle.THROTTLE_RATES | {"partner": "3/minute"}
    monkeypatch.setattr(PartnerKeyThrottle, "THROTTLE_RATES", rates)

    answers = [client.get(QUOTES, headers=auth(acme[1])).status_code for _ in range(4)]

    assert answers == [200, 200, 200, 429]
    throttled = client.get(QUOTES, headers=auth(acme[1]))
    assert 0 < int(throttled["Retry-After"]) <= 60
    assert throttled.json()["status"] == 429
    assert client.get(QUOTES, headers=auth(globex[1])).status_code == 200


def test_anonymous_calculators_are_throttled_per_client(client, monkeypatch):
    rates = AnonymousThrottle.THROTTLE_RATES | {"anon": "2/minute"}
    monkeypatch.setattr(AnonymousThrottle, "THROTTLE_RATES", rates)
    models = reverse("api:models")

    answers = [client.get(models).status_code for _ in range(3)]

    assert answers == [200, 200, 429]
    assert int(client.get(models)["Retry-After"]) > 0


# --- Following a quote by webhook -----------------------------------------------------------------


def test_the_partner_hears_its_quote_being_sent_by_a_signed_webhook(
    client, acme, globex, httpserver_ipv4, eager_celery, django_capture_on_commit_callbacks,
    django_user_model, outbound_allows_loopback,
):  # fmt: skip
    partner, raw = acme
    quote_id = _create(client, raw).json()["id"]
    # Registered directly: over the API, production rules refuse a plain-http 127.0.0.1 URL.
    hook = Webhook.objects.create(partner=partner, url=httpserver_ipv4.url_for("/hooks"))
    Webhook.objects.create(partner=globex[0], url=httpserver_ipv4.url_for("/other"))
    httpserver_ipv4.expect_request("/hooks", method="POST").respond_with_data("ok")
    rep = _user(django_user_model, "rep", "sales rep")

    with django_capture_on_commit_callbacks(execute=True):
        quote_services.quote_send(
            user=rep, quote=Quote.objects.get(pk=quote_id), failed_checks_acknowledged=True
        )
    assert outbox_jobs_drain() == 1  # embedded mode: sent by the drain process

    [(request, _response)] = httpserver_ipv4.log
    assert request.path == "/hooks"
    assert request.headers["GPUQuote-Event"] == "quote.status_changed"
    body = request.get_data()
    signed = request.headers["GPUQuote-Signature"]
    assert signature_verify(hook.secret, signed, body, now=int(time.time()))
    event = json.loads(body)
    assert event["data"]["quote_id"] == quote_id
    assert (event["data"]["previous_status"], event["data"]["status"]) == ("draft", "sent")
    assert WebhookDelivery.objects.get(webhook=hook).status == "succeeded"
    assert not WebhookDelivery.objects.filter(webhook__partner=globex[0]).exists()
    deliveries = client.get(f"/api/v1/webhooks/{hook.pk}/deliveries/", headers=auth(raw)).json()
    assert deliveries["results"][0]["attempts"][0]["response_status"] == 200


def test_problems_speak_the_callers_language(client):
    response = client.get(QUOTES, headers={"Accept-Language": "fr"})

    body = response.json()
    assert body["type"].endswith("/unauthenticated")  # the stable key, whatever the language
    assert body["title"] == "Authentification requise"


def test_listing_costs_the_same_queries_for_two_or_twelve_quotes(client, acme):
    partner, raw = acme

    def add_quotes(count: int) -> None:  # straight through the service: no computation needed
        for _ in range(count):
            quote_services.quote_create(
                user=None, origin="partner_api", partner=partner, company="Acme",
                contact_name="Ada", email="ada@example.com", country="FR",
                lines=[quote_services.LineInput(kind="service", description="Support",
                                                quantity=Decimal(1), unit_price=Decimal(100))],
            )  # fmt: skip

    add_quotes(2)
    client.get(QUOTES, headers=auth(raw))  # the key's first use writes last_used_at
    with CaptureQueriesContext(connection) as two:
        assert client.get(QUOTES, headers=auth(raw)).json()["count"] == 2
    add_quotes(10)
    with CaptureQueriesContext(connection) as twelve:
        assert client.get(QUOTES, headers=auth(raw)).json()["count"] == 12

    assert len(twelve) == len(two)


def test_every_wizard_uptime_answer_is_accepted(client, acme):
    response = _create(client, acme[1], BODY | {"uptime": "flexible", "deployment": "not_sure"})

    assert response.status_code == 201, response.json()
    assert "uptime" in _create(client, acme[1], BODY | {"uptime": "sometimes"}).json()["errors"]
