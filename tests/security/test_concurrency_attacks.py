"""Attacks by parallel requests on the embedded default (SQLite): no "database is locked" 500s,
and a quote request repeated (in parallel, or by a double click) is stored once.

The in-process tests check the rule; the last test runs the real thing: gunicorn (several
processes and threads) on a SQLite file, eight parallel customers accepting one quote and eight
parallel posts of one quote request.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from quotes.models import QuoteRequest
from quotes.wizard.services import quote_request_create
from tests.factories import stored_result_make
from tests.quotes.wizard.test_wizard_views import QUOTE, _result, _walk
from tests.quotes.wizard.wizard_cases import FINE_TUNING
from tests.workers import Gunicorn, manage

PARALLEL = 8
REQUEST_TIMEOUT_S = 60
ALREADY_RECORDED = "Your quote request is already recorded"


def _request_fields(email: str = "ada@example.com") -> dict[str, object]:
    return {
        "name": "Ada",
        "company": "ACME",
        "email": email,
        "country": "FR",
        "consent": True,
    }


@pytest.mark.django_db
def test_a_repeated_quote_request_is_stored_once_and_the_visitor_told(client):
    result = _result(_walk(client, FINE_TUNING))
    url = reverse("wizard:quote_request", kwargs={"token": result.token})
    sent = reverse("wizard:quote_sent", kwargs={"token": result.token})

    first = client.post(url, QUOTE)
    again = client.post(url, QUOTE | {"email": " ADA@Example.COM ", "name": "Ada L."})

    assert (first.status_code, first["Location"]) == (302, sent)
    assert (again.status_code, again["Location"]) == (302, f"{sent}?already=1")
    request = QuoteRequest.objects.get()
    assert (request.email, request.name) == ("ada@example.com", "Ada Lovelace")  # unchanged
    assert ALREADY_RECORDED in client.get(again["Location"]).content.decode()
    assert ALREADY_RECORDED not in client.get(first["Location"]).content.decode()


@pytest.mark.django_db
def test_the_service_returns_the_recorded_request_on_a_repeat():
    result = stored_result_make()

    first, created = quote_request_create(result=result, **_request_fields("Ada@Example.com"))
    again, created_again = quote_request_create(result=result, **_request_fields())

    assert (created, created_again, again.pk) == (True, False, first.pk)
    assert first.email == "ada@example.com"
    assert QuoteRequest.objects.count() == 1


@pytest.mark.django_db
def test_a_lost_race_returns_the_winners_request(monkeypatch):
    """The parallel twin commits between our check and our insert: the constraint refuses our
    row and the service returns the twin's."""
    result = stored_result_make()
    full_clean = QuoteRequest.full_clean

    def twin_commits_meanwhile(self, *args, **kwargs):
        full_clean(self, *args, **kwargs)
        QuoteRequest.objects.create(
            result=result, name="Twin", company="ACME", email=self.email, country="FR", consent=True
        )

    monkeypatch.setattr(QuoteRequest, "full_clean", twin_commits_meanwhile)

    request, created = quote_request_create(result=result, **_request_fields())

    assert (created, request.name) == (False, "Twin")
    assert QuoteRequest.objects.count() == 1


def test_sqlite_takes_the_write_lock_at_begin_and_waits_for_it():
    database = django_settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("the embedded default only: DATABASE_URL points at another database")
    assert database["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert database["OPTIONS"]["timeout"] == 20


# --- The real thing: gunicorn on a SQLite file --------------------------------------------------

SETUP = """
import json
from decimal import Decimal
from django.contrib.auth.models import Group, User
from quotes.sales import services
from tests.factories import stored_result_make

rep = User.objects.create_user(username="rep", password="not-a-real-password")
rep.groups.add(Group.objects.get_or_create(name=services.REP_GROUP)[0])
line = services.LineInput(
    kind="part", sku="GPU-H100", description="H100", quantity=Decimal(2),
    unit_price=Decimal("25000.00"),
)
quote = services.quote_create(
    user=rep, origin="staff", company="Acme", contact_name="Ada", email="ada@example.com",
    country="FR", lines=[line],
)
services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
result = stored_result_make()
print("SETUP=" + json.dumps({"quote": quote.token, "result": result.token}))
"""


class Site(Gunicorn):
    """A gunicorn on 127.0.0.1 with 3 processes x 3 threads, all on one SQLite file."""

    def __init__(self, tmp_path: Path) -> None:
        self.database = tmp_path / "gpuquote.sqlite3"
        self.env = os.environ | {
            "DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{self.database}",
            "REDIS_URL": "",  # the embedded default: tasks in-process, local cache
            "QUOTE_REQUEST_RATE": "1000/m",  # this test is about locks, not rate limits
            "ALLOWED_HOSTS": "127.0.0.1",
        }
        self._manage("migrate", "--noinput")
        setup = self._manage("shell", "-c", SETUP)
        self.tokens = json.loads(re.search(r"^SETUP=(.*)$", setup, re.M).group(1))
        super().__init__(tmp_path / "gunicorn.log", env=self.env, workers=3, threads=3)

    def _manage(self, *args: str) -> str:
        return manage(self.env, *args, timeout=120)

    def rows(self, sql: str) -> list[tuple]:
        with sqlite3.connect(self.database) as db:
            return db.execute(sql).fetchall()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _csrf(site: Site, path: str) -> tuple[str, str]:
    """(cookie, form token) from a GET of the page holding the form."""
    with urllib.request.urlopen(site.url(path), timeout=REQUEST_TIMEOUT_S) as page:  # noqa: S310
        cookie = page.headers["Set-Cookie"].split(";")[0]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
    return cookie, token.group(1)


def _post(site: Site, path: str, data: dict[str, str], csrf: tuple[str, str]) -> int:
    cookie, token = csrf
    body = urllib.parse.urlencode(data | {"csrfmiddlewaretoken": token}).encode()
    request = urllib.request.Request(  # noqa: S310
        site.url(path), data=body, headers={"Cookie": cookie}, method="POST"
    )
    try:
        with urllib.request.build_opener(_NoRedirect).open(request, timeout=REQUEST_TIMEOUT_S):
            pass
    except urllib.error.HTTPError as answer:  # 3xx (not followed), 4xx, 5xx
        return answer.code
    return 200


@pytest.fixture
def site(tmp_path) -> Iterator[Site]:
    running = Site(tmp_path)
    yield running
    running.stop()


def test_parallel_accepts_and_quote_requests_on_sqlite_give_no_500_and_no_duplicate(site):
    quote_page = f"/q/{site.tokens['quote']}/"
    accept = {"name": "Ada Lovelace", "decision": "accept"}
    request_page = f"/r/{site.tokens['result']}/quote/"
    request = {key: str(value) for key, value in QUOTE.items()}
    csrf = _csrf(site, quote_page)

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        accepts = list(pool.map(lambda _: _post(site, quote_page, accept, csrf), range(PARALLEL)))
        requests = list(
            pool.map(lambda _: _post(site, request_page, request, csrf), range(PARALLEL))
        )

    # One customer answer wins (302); the others see the answered quote (200 with the reason).
    assert sorted(accepts) == [200] * (PARALLEL - 1) + [302], site.output()
    assert requests == [302] * PARALLEL, site.output()
    assert site.rows("SELECT status FROM quotes_quote") == [("accepted",)]
    assert site.rows("SELECT count(*) FROM quotes_quoteevent WHERE kind = 'customer_answer'") == [
        (1,)
    ]
    assert site.rows("SELECT email FROM quotes_quoterequest") == [("ada@example.com",)]
