"""Fixtures of the partner webhook tests: two partners with their keys, a local receiver, and
Celery retries that run in-process."""

from __future__ import annotations

import pytest

from gpuquote.celery import app
from tests.api_fixtures import partner_key


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
