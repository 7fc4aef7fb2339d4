"""Redis down: the site and the API keep answering, never a 500 (docs/operations.md, "Redis").

Redis is "down" as a closed port on 127.0.0.1: the production cache backend (the one the
settings name when REDIS_URL is set) pointed at it refuses every connection at once. Each
request must succeed as it would with an empty cache, the limits letting it through, every
failure counted in ``gpuquote_cache_errors_total`` and logged (once per pause). The login lockout
counts in the database and still locks out; /readyz says the cache does not answer.

No service needed (tests/reliability/conftest.py, SELF_CONTAINED): this runs in every test run.
"""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from prometheus_client import REGISTRY

from gpuquote.core import cache as cache_module
from gpuquote.core.roles import REP_GROUP
from quotes.models import WizardResult
from tests.api_fixtures import auth, partner_key
from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET

pytestmark = pytest.mark.django_db

# The backend production names for REDIS_URL (tests/gpuquote/settings/test_settings.py checks
# that it is this one).
REDIS_BACKEND = "gpuquote.core.cache.FailOpenRedisCache"
CLOSED_PORT = "redis://127.0.0.1:1/0"  # port 1: nothing listens, the connection is refused
SIZING = reverse("api:sizing")
SIZING_BODY = {
    "task": "inference",
    "model": "llama-3.1-8b",
    "precision": "bf16",
    "inference": {"concurrent_requests": 4, "sequence_length": 4096},
}
PASSWORD = "correct-horse-battery-staple"
CACHE_LOGGER = "gpuquote.core.cache"


@pytest.fixture
def redis_down(settings):
    """Both caches (answers and request limits) on a Redis that refuses every connection."""
    down = {"BACKEND": REDIS_BACKEND, "LOCATION": CLOSED_PORT, "KEY_PREFIX": "gpuquote"}
    settings.CACHES = {"default": dict(down), "limits": dict(down)}


@pytest.fixture
def browser():
    """A client that answers a server error with the 500 page instead of raising it."""
    return Client(raise_request_exception=False)


def _cache_errors(operation: str) -> float:
    found = REGISTRY.get_sample_value("gpuquote_cache_errors_total", {"operation": operation})
    return found or 0.0


def _cache_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == CACHE_LOGGER]


def test_the_anonymous_calculator_answers_and_counts_each_cache_failure(
    redis_down, browser, settings, caplog, monkeypatch
):
    monkeypatch.setattr(cache_module, "monotonic", lambda: 1000.0)  # the requests take no time
    settings.REST_FRAMEWORK = settings.REST_FRAMEWORK | {
        "DEFAULT_THROTTLE_RATES": {"anon": "1/minute", "partner": "1/minute"}
    }
    gets, sets = _cache_errors("get"), _cache_errors("set")

    with caplog.at_level(logging.WARNING, logger=CACHE_LOGGER):
        answers = [
            browser.post(SIZING, SIZING_BODY, content_type="application/json") for _ in range(3)
        ]

    # Three answers over a rate of one a minute: the throttle lets them through (it counts
    # nowhere) rather than refusing everyone or failing.
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert answers[0].json() == answers[2].json()
    # Each request: the throttle reads and writes its history, the answer cache reads the answer
    # and writes it (this process's recent answers then serve the next two: no read).
    assert _cache_errors("get") - gets == 3 + 1
    assert _cache_errors("set") - sets == 3 + 1
    # One warning per cache (the limits' and the answers'): after its first refused connection
    # each stops asking Redis for a few seconds, still counting every operation.
    assert (
        _cache_warnings(caplog)
        == [
            "Cache get failed (ConnectionError): answered as an empty cache, Redis not asked again "
            "for 5 s; the request limits let requests through while the cache fails"
        ]
        * 2
    )


def test_partner_requests_and_wrong_keys_are_answered_not_failed(redis_down, browser):
    _partner, raw = partner_key()

    listed = browser.get(reverse("api:quote-list"), headers=auth(raw))
    refused = browser.get(reverse("api:quote-list"), headers=auth("not-a-key"))

    assert listed.status_code == 200
    assert listed.json()["results"] == []
    # The wrong-key budget is not counted meanwhile; the key is still refused.
    assert refused.status_code == 401
    assert refused["Content-Type"] == "application/problem+json"


def test_the_wizard_result_and_checklist_work_with_the_rate_limits_open(
    redis_down, browser, settings, seed_catalog
):
    settings.WIZARD_RATE = "1/m"
    settings.CHECKLIST_PDF_RATE = "1/m"

    steps = [
        browser.post(reverse("wizard:step", kwargs={"step": step}), data | {"nav": "next"})
        for step, data in FINE_TUNING_WITH_BUDGET.items()
    ]
    result = WizardResult.objects.get()
    page = browser.get(steps[-1]["Location"])
    pdfs = [
        browser.get(reverse("wizard:checklist_pdf", kwargs={"token": result.token}))
        for _ in range(2)
    ]

    # Every step over a rate of one a minute, never a 429 nor a 500.
    assert [s.status_code for s in steps] == [302] * len(FINE_TUNING_WITH_BUDGET)
    assert page.status_code == 200
    assert result.token in page.content.decode()
    assert [p.status_code for p in pdfs] == [200, 200]
    assert pdfs[1].content.startswith(b"%PDF-")


def test_the_login_lockout_counts_in_the_database_and_still_locks_out(
    redis_down, browser, django_user_model
):
    user = django_user_model.objects.create_user(username="rep", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])

    def login(password: str):
        return browser.post(
            "/staff/login/", {"username": "rep", "password": password, "next": "/staff/"}
        )

    guesses = [login("wrong-guess").status_code for _ in range(5)]  # AXES_FAILURE_LIMIT: 5

    assert guesses == [200, 200, 200, 200, 429]
    assert login(PASSWORD).status_code == 429
    # Sessions are in the database too: someone else signs in and stays signed in.
    other = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    other.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])
    signed_in = Client(raise_request_exception=False, REMOTE_ADDR="198.51.100.20")
    answer = signed_in.post(
        "/staff/login/", {"username": "ada", "password": PASSWORD, "next": "/staff/"}
    )
    assert answer.status_code == 302
    assert signed_in.get("/staff/").status_code == 200


def test_readyz_says_the_cache_does_not_answer(redis_down, browser):
    response = browser.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"] == {
        "database": "ok",
        "cache": "the cache does not answer",
    }
