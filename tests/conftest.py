"""Shared fixtures. Tests are hermetic: nothing leaves 127.0.0.1."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

REDIS_DB_FIRST_WORKER = 10  # xdist worker gwN caches in Redis database 10 + N


def pytest_configure(config):
    """Under pytest-xdist (``make test`` runs 2 workers) each worker caches in its own Redis
    database: throttle counters and ``cache.clear()`` must not reach the other worker's tests.
    Test databases are already per worker (pytest-django suffixes their names)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return
    from django.conf import settings

    cache = settings.CACHES["default"]
    if cache["BACKEND"].endswith("RedisCache"):
        database = REDIS_DB_FIRST_WORKER + int(worker[2:])
        cache["LOCATION"] = urlsplit(cache["LOCATION"])._replace(path=f"/{database}").geturl()


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user(
        username="staff", password="not-a-real-password", is_staff=True, is_superuser=True
    )


@pytest.fixture(autouse=True)
def _fresh_catalog_snapshots(request):
    """Snapshots are cached per process; each database test starts from its own catalog."""
    if request.node.get_closest_marker("django_db") is None:
        yield  # pure unit tests: no Django needed (they also run with -p no:django)
        return
    from catalog.selectors import snapshot

    snapshot._SNAPSHOTS.clear()
    yield
    snapshot._SNAPSHOTS.clear()


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Throttle counters live in the cache (Redis in CI): each test starts with none."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture
def eager_celery():
    """For tests that mean in-process tasks even when REDIS_URL points at a real broker (CI):
    the task runs at once, its errors propagate. The real-worker tests are in tests/integration."""
    from gpuquote.celery import app

    saved = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def outbound_allows_loopback(settings):
    """Test receivers and feed servers listen on 127.0.0.1: allow that address, and only it, as
    an operator allows an internal supplier (the SSRF guard refuses it otherwise)."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]


PUBLIC_TEST_ADDRESS = "93.184.215.14"  # what example.com resolved to; nothing connects to it


@pytest.fixture
def example_dns(monkeypatch):
    """Hermetic DNS for URLs registered (and resolved) but not called: ``*.example`` and
    ``*.test`` names (RFC 2606) resolve to a public address, ``localhost`` to 127.0.0.1, other
    names to nothing."""
    import socket

    real = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        try:  # an address literal: no DNS involved
            return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        name = str(host).lower().rstrip(".")
        if name == "localhost":
            address = "127.0.0.1"
        elif name.endswith((".example", ".test")):
            address = PUBLIC_TEST_ADDRESS
        else:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
