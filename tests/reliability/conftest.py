"""Faults on real services: PostgreSQL (DATABASE_URL), a private redis-server and real Celery
workers. CI sets DATABASE_URL and REDIS_URL; without them these tests are skipped.

The shared Redis (REDIS_URL) is never stopped: each test starts its own redis-server on a free
127.0.0.1 port from 6390 and points this process's Celery broker, and its workers, at it.

The modules of SELF_CONTAINED need none of these services (a Redis that is down is a closed
port): they run in every test run, unmarked."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuquote.celery import app
from tests.workers import RedisServer, Worker, free_port

REDIS_URL = os.environ.get("REDIS_URL", "")
DATABASE_URL = os.environ.get("DATABASE_URL", "")
PRIVATE_REDIS_FIRST_PORT = 6390
SELF_CONTAINED = {"test_redis_outage.py"}


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    reasons = []
    if not REDIS_URL:
        reasons.append("REDIS_URL (CI runs these tests with Redis)")
    if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
        reasons.append(
            "DATABASE_URL on PostgreSQL (a worker or server process cannot share SQLite's "
            "in-memory test database)"
        )
    if not RedisServer.available():
        reasons.append("redis-server on the PATH (a private broker to stop and start)")
    for item in items:
        path = Path(item.fspath)
        if path.is_relative_to(here) and path.name not in SELF_CONTAINED:
            item.add_marker(pytest.mark.integration)
            if reasons:
                item.add_marker(pytest.mark.skip(reason="needs " + "; ".join(reasons)))


@pytest.fixture
def private_redis(tmp_path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, as this process's Celery broker."""
    server = RedisServer(tmp_path, free_port(PRIVATE_REDIS_FIRST_PORT))
    server.start()
    saved = app.conf.broker_url
    _broker_use(server.url)
    yield server
    _broker_use(saved)
    server.stop()


def _broker_use(url: str) -> None:
    app.conf.broker_url = url
    app._pool = None  # the connection pools are rebuilt on the next send (as after a fork)
    app.amqp._producer_pool = None


@pytest.fixture
def start_worker(private_redis, tmp_path, settings) -> Iterator[Callable[..., Worker]]:
    """Workers on the private broker (Celery's default queue), the test database, and allowed
    to deliver webhooks to the test's receiver on 127.0.0.1."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]
    workers: list[Worker] = []

    def start() -> Worker:
        env = {
            "REDIS_URL": private_redis.url,
            "OUTBOUND_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
            "DEBUG": os.environ.get("DEBUG", "true"),  # http:// receivers on 127.0.0.1
        }
        worker = Worker(tmp_path / f"worker-{len(workers)}.log", env=env)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
