"""Attacks on the perimeter: floods of the anonymous HTML endpoints,
missing browser policy, plain-HTTP health checks, forged countries and VAT numbers, and
answers on closed quotes. Each test names the attack and asserts GPUQuote's exact answer."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format

from quotes.models import Quote, QuoteEvent, QuoteRequest, WizardResult
from quotes.pdf import render as pdf_render
from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user, quote_make
from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET, wizard_result_make

pytestmark = pytest.mark.django_db

QUOTE_REQUEST = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines",
    "email": "ada@example.com",
    "country": "FR",
    "consent": "on",
}
ATTACKER = "203.0.113.7"
NEIGHBOUR = "198.51.100.20"


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


def _step(client, step: str, *, address: str = ATTACKER, **extra):
    return client.post(
        reverse("wizard:step", kwargs={"step": step}),
        FINE_TUNING_WITH_BUDGET[step] | {"nav": "next"},
        REMOTE_ADDR=address,
        **extra,
    )


def _assert_too_many_requests(response, *, text: str = "Too many requests") -> None:
    assert response.status_code == 429
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert 0 < int(response["Retry-After"]) <= 60 * 60
    assert text in response.content.decode()


# --- Floods of the anonymous HTML endpoints -------------------------------------------------------


@override_settings(WIZARD_RATE="3/m")
def test_wizard_post_flood_is_answered_429_and_computes_nothing(client):
    for step in ("project", "data", "usage"):
        assert _step(client, step).status_code == 302

    response = _step(client, "deployment")

    _assert_too_many_requests(response)
    assert not WizardResult.objects.exists()


@override_settings(WIZARD_RATE="1/m")
def test_wizard_flood_page_is_translated(client):
    _step(client, "project")

    response = _step(client, "data", HTTP_ACCEPT_LANGUAGE="fr")

    _assert_too_many_requests(response, text="Trop de requêtes")


@override_settings(WIZARD_RATE="1/m")
def test_wizard_flood_does_not_limit_other_addresses_or_pages(client):
    _step(client, "project")
    assert _step(client, "data").status_code == 429

    assert _step(client, "data", address=NEIGHBOUR).status_code == 302
    assert client.get(reverse("wizard:step", kwargs={"step": "usage"})).status_code == 200


@override_settings(WIZARD_RATE="1/m")
def test_wizard_flood_with_rotated_forwarded_for_is_still_limited(client):
    _step(client, "project", HTTP_X_FORWARDED_FOR="192.0.2.1")

    response = _step(client, "data", HTTP_X_FORWARDED_FOR="192.0.2.2")

    _assert_too_many_requests(response)


@override_settings(QUOTE_REQUEST_RATE="1/h")
def test_quote_request_flood_is_answered_429_and_stores_nothing(client):
    result = wizard_result_make(client, REMOTE_ADDR=NEIGHBOUR)
    url = reverse("wizard:quote_request", kwargs={"token": result.token})
    assert client.post(url, QUOTE_REQUEST, REMOTE_ADDR=ATTACKER).status_code == 302

    response = client.post(url, QUOTE_REQUEST | {"email": "eve@example.com"}, REMOTE_ADDR=ATTACKER)

    _assert_too_many_requests(response)
    assert list(QuoteRequest.objects.values_list("email", flat=True)) == ["ada@example.com"]


@override_settings(CHECKLIST_PDF_RATE="2/m")
def test_checklist_pdf_flood_is_answered_429(client):
    result = wizard_result_make(client, REMOTE_ADDR=NEIGHBOUR)
    url = reverse("wizard:checklist_pdf", kwargs={"token": result.token})
    for _ in range(2):
        assert client.get(url, REMOTE_ADDR=ATTACKER).status_code == 200

    response = client.get(url, REMOTE_ADDR=ATTACKER)

    _assert_too_many_requests(response)


def test_checklist_pdf_downloads_render_once_per_result_and_language(client, monkeypatch):
    renders: list[str] = []
    real_render = pdf_render.render_pdf

    def spy(template_name, context):
        renders.append(template_name)
        return real_render(template_name, context)

    monkeypatch.setattr(pdf_render, "render_pdf", spy)
    result = wizard_result_make(client, REMOTE_ADDR=NEIGHBOUR)
    url = reverse("wizard:checklist_pdf", kwargs={"token": result.token})

    first = client.get(url)
    second = client.get(url, HTTP_ACCEPT_LANGUAGE="fr")

    assert renders == ["pdf/checklist.html"]
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert second["Content-Type"] == "application/pdf"
    assert second["Content-Disposition"] == first["Content-Disposition"]
    assert second["Cache-Control"] == "private, no-store"


# --- Health checks over plain HTTP behind TLS redirection -----------------------------------------


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
@override_settings(SECURE_SSL_REDIRECT=True, CELERY_TASK_ALWAYS_EAGER=True)
def test_plain_http_health_checks_are_answered_not_redirected(client, path):
    response = client.get(path)

    assert response.status_code == 200
    assert response.json()["status"] == "ok"


@override_settings(SECURE_SSL_REDIRECT=True)
def test_plain_http_pages_still_redirect_to_https(client):
    response = client.get("/wizard/project/")

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/wizard/project/"


# --- Answering a closed quote says why ------------------------------------------------------------


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _sent(rep) -> Quote:
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    quote.refresh_from_db()
    return quote


def _answer(client, quote: Quote, decision: str = "accept", **extra):
    url = reverse("sales:quote_public", args=[quote.token])
    return client.post(url, {"name": "Mallory", "decision": decision}, **extra)


def _events(quote: Quote) -> list[tuple[str, str]]:
    return list(quote.events.order_by("pk").values_list("kind", "to_status"))


def test_accepting_an_already_accepted_quote_says_when_it_was_accepted(client, rep):
    quote = _sent(rep)
    services.quote_answer_record(user=rep, quote=quote, accept=True)
    event = QuoteEvent.objects.get(quote=quote, to_status="accepted")
    before = _events(quote)

    response = _answer(client, quote, "decline")

    page = response.content.decode()
    when = date_format(timezone.localtime(event.created_at), "DATE_FORMAT")
    assert response.status_code == 200
    assert f"This quote was already accepted on {when}." in page
    assert 'role="alert"' in page
    quote.refresh_from_db()
    assert quote.status == "accepted"
    assert _events(quote) == before


def test_answering_a_declined_quote_says_it_was_declined(client, rep):
    quote = _sent(rep)
    services.quote_answer_record(user=rep, quote=quote, accept=False)
    event = QuoteEvent.objects.get(quote=quote, to_status="declined")

    response = _answer(client, quote)

    when = date_format(timezone.localtime(event.created_at), "DATE_FORMAT")
    assert f"This quote was declined on {when}." in response.content.decode()
    quote.refresh_from_db()
    assert quote.status == "declined"


def test_accepting_an_expired_quote_says_when_it_expired(client, rep):
    quote = _sent(rep)
    revision = quote.current_revision
    valid_until = timezone.localdate() - dt.timedelta(days=1)
    type(revision).objects.filter(pk=revision.pk).update(valid_until=valid_until)
    before = _events(quote)

    response = _answer(client, quote, HTTP_ACCEPT_LANGUAGE="fr")

    page = response.content.decode()
    assert response.status_code == 200
    assert f"Ce devis a expiré le {_french_date(valid_until)}." in page
    quote.refresh_from_db()
    assert quote.status == "sent"
    assert _events(quote) == before


def _french_date(day: dt.date) -> str:
    with translation.override("fr"):
        return date_format(day, "DATE_FORMAT")
