"""/metrics: who may read it, and what it says — django-prometheus's
request metrics, the calculators' answer cache, Celery tasks, quotes by status, pending webhook
deliveries and price source staleness."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json

import pytest
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from catalog.models import PriceSource
from tests.factories import price_source_make, quote_make, staff_user_make

pytestmark = pytest.mark.django_db

TOKEN = "t" * 32


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _samples(response) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


# --- Who may read it ------------------------------------------------------------------------


def test_without_token_or_networks_production_has_no_metrics(client, settings):
    settings.DEBUG = False
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = ()

    assert client.get("/metrics").status_code == 404


def test_development_lets_the_loopback_read_them_and_no_one_else(client, settings):
    settings.DEBUG = True
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = ()

    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 403


def test_the_token_opens_them_and_a_wrong_one_does_not(client, settings):
    settings.DEBUG = False
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_NETWORKS = ()

    ok = client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    wrong = client.get("/metrics", REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION="Bearer nope")
    missing = client.get("/metrics", REMOTE_ADDR="127.0.0.1")

    assert ok.status_code == 200
    assert ok["Content-Type"].startswith("text/plain; version=")
    assert wrong.status_code == 403
    assert wrong["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert missing.status_code == 403  # production: the loopback is not trusted by itself


def test_an_allowed_network_reads_them_without_token(client, settings):
    settings.DEBUG = False
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = (ipaddress.ip_network("10.20.0.0/16"),)

    assert client.get("/metrics", REMOTE_ADDR="10.20.3.4").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.21.3.4").status_code == 403
    # The address is the TCP peer's: a forwarded header does not make a stranger a neighbour.
    forged = client.get("/metrics", REMOTE_ADDR="198.51.100.7", HTTP_X_FORWARDED_FOR="10.20.3.4")
    assert forged.status_code == 403


def test_settings_refuse_a_short_token_and_a_malformed_network(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from gpuquote.env import env_networks

    monkeypatch.setenv("METRICS_ALLOWED_NETWORKS", "10.0.0.0/8, not-a-network")
    with pytest.raises(ImproperlyConfigured, match="METRICS_ALLOWED_NETWORKS: 'not-a-network'"):
        env_networks("METRICS_ALLOWED_NETWORKS")


# --- What it says ---------------------------------------------------------------------------


@pytest.fixture
def scrape(client, settings):
    settings.METRICS_TOKEN = TOKEN

    def read() -> dict:
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200
        return _samples(response)

    return read


def test_requests_are_counted_per_view_with_their_latency(client, scrape):
    before = _value(
        "django_http_responses_total_by_status_view_method_total",
        status="200",
        view="livez",
        method="GET",
    )
    client.get("/livez")
    client.get("/livez")

    samples = scrape()

    key = (
        "django_http_responses_total_by_status_view_method_total",
        (("method", "GET"), ("status", "200"), ("view", "livez")),
    )
    assert samples[key] == before + 2
    assert (
        "django_http_requests_latency_seconds_by_view_method_count",
        (("method", "GET"), ("view", "livez")),
    ) in samples


def test_the_answer_cache_counts_computed_and_kept_answers(client, scrape):
    body = json.dumps(
        {"task": "inference", "model": "llama-3.1-8b", "inference": {"concurrent_requests": 977}}
    )
    computed = _value("gpuquote_answer_cache_lookups_total", endpoint="sizing", result="computed")
    kept = _value("gpuquote_answer_cache_lookups_total", endpoint="sizing", result="process")

    for _ in range(3):
        assert client.post("/api/v1/sizing/", body, content_type="application/json").status_code
    samples = scrape()

    assert samples[
        (
            "gpuquote_answer_cache_lookups_total",
            (("endpoint", "sizing"), ("result", "computed")),
        )
    ] == (computed + 1)
    assert samples[
        ("gpuquote_answer_cache_lookups_total", (("endpoint", "sizing"), ("result", "process")))
    ] == (kept + 2)


def test_quotes_are_counted_by_status(scrape):
    rep = staff_user_make()
    quote_make(user=rep)
    quote_make(user=rep)

    samples = scrape()

    assert samples[("gpuquote_quotes", (("status", "draft"),))] == 2
    assert samples[("gpuquote_quotes", (("status", "accepted"),))] == 0


def test_a_source_past_its_schedule_is_stale_and_a_disabled_one_is_not(scrape):
    late = price_source_make(name="Late supplier", schedule="17 4 * * *")
    off = price_source_make(name="Switched off", schedule="17 4 * * *", enabled=False)
    fresh = price_source_make(name="New supplier", schedule="17 4 * * *")
    two_days_ago = timezone.now() - dt.timedelta(days=2)
    PriceSource.objects.filter(pk__in=[late.pk, off.pk]).update(created_at=two_days_ago)

    samples = scrape()

    def stale(source: PriceSource) -> float:
        labels = (("kind", "supplier"), ("source", source.name))
        return samples[("gpuquote_price_source_stale", labels)]

    assert stale(late) == 1
    assert stale(off) == 0
    assert stale(fresh) == 0  # created now: its first run is not due yet
    assert ("gpuquote_webhook_deliveries_pending", ()) in samples


def test_celery_tasks_run_in_process_are_counted_with_their_duration(eager_celery, scrape):
    from quotes.tasks import expire_quotes

    name = expire_quotes.name
    runs = _value("gpuquote_celery_tasks_total", task=name, state="succeeded")
    timed = _value("gpuquote_celery_task_duration_seconds_count", task=name)

    expire_quotes.delay().get()
    samples = scrape()

    assert samples[("gpuquote_celery_tasks_total", (("state", "succeeded"), ("task", name)))] == (
        runs + 1
    )
    key = ("gpuquote_celery_task_duration_seconds_count", (("task", name),))
    assert samples[key] == timed + 1


def test_a_failing_task_is_counted_as_failed(eager_celery):
    from gpuquote.celery import app

    @app.task(name="tests.metrics_always_fails")
    def always_fails() -> None:
        raise RuntimeError("boom")

    name = "tests.metrics_always_fails"
    before = _value("gpuquote_celery_tasks_total", task=name, state="failed")
    app.conf.task_eager_propagates = False  # as in a worker: the failure is recorded, not raised
    try:
        result = always_fails.delay()
    finally:
        app.conf.task_eager_propagates = True

    assert result.failed()

    assert _value("gpuquote_celery_tasks_total", task=name, state="failed") == before + 1
