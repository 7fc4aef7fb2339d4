"""/livez, /readyz and /healthz: what each checks, the JSON they answer, and the heartbeat marks
behind /healthz's worker and beat checks (tests/reliability runs them with a real worker and
beat)."""

from __future__ import annotations

import time

import pytest
from celery.signals import before_task_publish
from django.core.cache import cache
from django.db import DatabaseError

from gpuquote.ops import health
from gpuquote.ops.heartbeat import BEAT_MARK, HEARTBEAT_TASK, WORKER_MARK, heartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def with_workers(settings):
    """Production with a broker: tasks go to workers, so /healthz checks them."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.HEALTH_HEARTBEAT_MAX_AGE_SECONDS = 60


def test_livez_checks_nothing_but_the_process(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/livez")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_runs_a_query_and_reads_the_cache(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "cache": "ok"}}
    assert "no-store" in response["Cache-Control"]


def test_readyz_fails_with_503_naming_the_database(client, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise DatabaseError("connection refused to 10.1.2.3")

    monkeypatch.setattr(health.connection, "cursor", refuse)

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing"
    assert body["checks"]["database"] == "the database does not answer"
    assert "10.1.2.3" not in response.content.decode()  # no address leaks out


def test_healthz_embedded_checks_database_and_cache_and_says_tasks_run_in_process(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True

    response = client.get("/healthz", HTTP_ACCEPT="*/*")  # a monitor's curl: JSON, not HTML

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    checks = response.json()["checks"]
    assert checks["database"] == "ok"
    assert checks["cache"] == "ok"
    assert checks["tasks"] == health.EAGER
    assert "worker" not in checks


def test_healthz_fails_when_no_worker_ran_the_heartbeat_and_beat_never_sent_it(
    client, with_workers
):
    response = client.get("/healthz")

    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["database"] == "ok"
    assert checks["broker"] == "ok"
    assert checks["worker"] == "no worker has run the heartbeat"
    assert checks["beat"] == "beat has not sent the heartbeat"


def test_healthz_passes_with_fresh_marks_and_fails_when_they_age(client, with_workers, settings):
    heartbeat()  # what a worker runs
    before_task_publish.send(sender=HEARTBEAT_TASK)  # what beat's publish fires

    fresh = client.get("/healthz")

    assert fresh.status_code == 200, fresh.json()
    assert fresh.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "broker": "ok", "worker": "ok", "beat": "ok"},
    }

    cache.set(WORKER_MARK, time.time() - 90)  # the worker stopped 90 s ago

    stale = client.get("/healthz")

    assert stale.status_code == 503
    assert stale.json()["checks"]["worker"].startswith("last seen 90 s ago (limit 60 s)")
    assert stale.json()["checks"]["beat"] == "ok"


def test_a_published_heartbeat_marks_beat_and_other_tasks_do_not():
    cache.delete(BEAT_MARK)
    before_task_publish.send(sender="quotes.expire_quotes")
    assert cache.get(BEAT_MARK) is None

    before_task_publish.send(sender=HEARTBEAT_TASK)
    assert time.time() - cache.get(BEAT_MARK) < 5


def test_the_heartbeat_is_on_beats_schedule_and_expires_rather_than_piles_up(settings):
    entries = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == HEARTBEAT_TASK]

    assert len(entries) == 1
    assert entries[0]["schedule"] * 2 < settings.HEALTH_HEARTBEAT_MAX_AGE_SECONDS
    assert entries[0]["options"]["expires"] <= settings.HEALTH_HEARTBEAT_MAX_AGE_SECONDS
    assert heartbeat.name == HEARTBEAT_TASK
    # The name queued messages and beat schedules carry: moving the module must not change it.
    assert HEARTBEAT_TASK == "gpuquote.heartbeat"


def test_health_checks_answer_only_get(client):
    for path in ("/livez", "/readyz", "/healthz"):
        assert client.post(path).status_code == 405, path
