"""/healthz against a real worker and a real beat: it fails before they run,
passes once beat has sent the heartbeat and a worker has run it, and names the worker once that
worker stops, while beat keeps sending. Every process shares this test's private Redis (broker
and cache) and the test database; the heartbeat's age limit is lowered to 20 s (a heartbeat
every 5 s) to keep the test short."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.workers import Beat, Gunicorn, wait_until, worker_database_url

pytestmark = pytest.mark.django_db(transaction=True)

MAX_AGE_S = 20


def _health(server: Gunicorn) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(server.url("/healthz"), timeout=10) as response:  # noqa: S310
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_healthz_follows_the_worker_and_beat(private_redis, start_worker, tmp_path):
    env = os.environ | {
        "DATABASE_URL": worker_database_url(os.environ["DATABASE_URL"]),
        "DB_CONN_MAX_AGE": "0",
        "REDIS_URL": private_redis.url,
        "HEALTH_HEARTBEAT_MAX_AGE_SECONDS": str(MAX_AGE_S),
        "DEBUG": "true",
    }
    server = Gunicorn(tmp_path / "gunicorn.log", env=env, workers=1, threads=2)
    beat: Beat | None = None
    try:
        status, body = _health(server)
        assert status == 503
        assert body["checks"]["worker"] == "no worker has run the heartbeat"
        assert body["checks"]["broker"] == "ok"

        worker = start_worker()
        beat = Beat(tmp_path / "beat.log", env=env)
        wait_until(
            lambda: _health(server)[0] == 200,
            timeout=MAX_AGE_S * 2,
            what="/healthz to pass with a worker and beat",
            interval=1,
            process=beat,
        )
        assert _health(server)[1]["checks"] == {
            "database": "ok",
            "cache": "ok",
            "broker": "ok",
            "worker": "ok",
            "beat": "ok",
        }

        worker.stop()
        wait_until(
            lambda: _health(server)[1]["checks"]["worker"].startswith("last seen"),
            timeout=MAX_AGE_S * 3,
            what="/healthz to name the stopped worker",
            interval=1,
            process=beat,
        )
        status, body = _health(server)
        assert status == 503
        assert body["checks"]["beat"] == "ok"  # beat still sends; nobody runs them
    finally:
        if beat is not None:
            beat.stop()
        server.stop()
