"""Fixtures of the security tests: every test in the default language, a fake DNS and a record of
connections for the SSRF tests, the loaded catalog and a spy on ``int()`` for the input attacks."""

from __future__ import annotations

import builtins
import socket
import time
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import django_ratelimit.core as ratelimit_core
import pytest
from django.utils import translation

from gpuquote.core import numbers
from quotes.wizard.forms import fields as wizard_fields
from tests.security.ssrf_targets import DNS, fake_getaddrinfo

# The input attack tests check error answers with a helper: let pytest explain its asserts too.
pytest.register_assert_rewrite("tests.security.attack_requests")


@pytest.fixture(autouse=True)
def _default_language():
    """A test client request with ``Accept-Language: fr`` leaves French active in the thread
    (LocaleMiddleware activates it, nothing resets it); messages built outside a request, such as
    ``full_clean()``'s, would then depend on which test ran before."""
    translation.deactivate()


@pytest.fixture(autouse=True)
def _one_rate_window(monkeypatch):
    """django-ratelimit counts in fixed windows: a flood test whose requests straddle a window's
    end (slow PDF renders on a busy 2-core CI machine) would see its count reset and get a 200
    where a 429 is due. The limiter's clock stands still for the length of a test."""
    now = time.time()
    monkeypatch.setattr(ratelimit_core, "time", SimpleNamespace(time=lambda: now))


@pytest.fixture
def dns(monkeypatch) -> dict[str, list[str]]:
    table = dict(DNS)
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo(table))
    return table


@pytest.fixture
def connects(monkeypatch) -> list[tuple]:
    """Every socket address a connection was opened to."""
    seen: list[tuple] = []
    real_connect = socket.socket.connect

    def connect(self, address):
        seen.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


@pytest.fixture
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


class _IntSpyMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, builtins.int)


class _IntSpy(builtins.int, metaclass=_IntSpyMeta):
    """``int`` that refuses, loudly and at once, to convert a huge Decimal (the 50 s attack)."""

    def __new__(cls, value: Any = 0, *args: Any) -> int:  # type: ignore[misc]
        if isinstance(value, Decimal) and value.is_finite() and value and value.adjusted() > 60:
            raise AssertionError(f"int() of a Decimal of {value.adjusted() + 1} digits")
        return builtins.int(value, *args)


@pytest.fixture
def no_huge_int(monkeypatch):
    """Every module that turns parsed numbers into ints uses the spy instead of the builtin."""
    for module in (wizard_fields, numbers):
        monkeypatch.setattr(module, "int", _IntSpy, raising=False)
