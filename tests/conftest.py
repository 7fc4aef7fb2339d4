"""Shared fixtures. Tests are hermetic: nothing leaves 127.0.0.1."""

from __future__ import annotations

import pytest


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
    from catalog import selectors

    selectors._SNAPSHOTS.clear()
    yield
    selectors._SNAPSHOTS.clear()


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
