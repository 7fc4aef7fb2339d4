"""Shared fixtures. Tests are hermetic: nothing leaves 127.0.0.1."""

from __future__ import annotations

import pytest


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user(
        username="staff", password="not-a-real-password", is_staff=True, is_superuser=True
    )


@pytest.fixture(autouse=True)
def _fresh_catalog_snapshots():
    """Snapshots are cached per process; each test starts from its own database."""
    from catalog import selectors

    selectors._SNAPSHOTS.clear()
    yield
    selectors._SNAPSHOTS.clear()
