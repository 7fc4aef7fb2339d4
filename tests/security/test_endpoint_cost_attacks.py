"""Attack: one anonymous request to a public page that costs much more than the page is worth.

- a 2.4 MB form body posted to a wizard step, the result page's forms or the customer's quote
  page: the CSRF middleware would parse all of it before the view runs; it is refused with a
  413 before anything reads it (``FORM_BODY_BYTES``);
- the customer's quote PDF (half a second of CPU each) fetched again and again from its link:
  rendered once per state of the quote, then served from the cache;
- the API's OpenAPI document (about 100 ms to generate): made once per process and language.

The work is counted (bodies parsed, PDFs rendered), never timed."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

from gpuquote.api.schema_view import schema_cache_clear
from quotes.models import WizardResult
from quotes.sales import public_views, services
from tests.quotes.sales.test_quote_services import _user, sent_quote_make
from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

FORM = "application/x-www-form-urlencoded"
OVERSIZED = 70_000  # over FORM_BODY_BYTES (64 KB), far under DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """The declared length of every request body Django parsed into ``request.POST``."""
    lengths: list[int] = []
    real = HttpRequest._load_post_and_files

    def load(self: HttpRequest) -> None:
        lengths.append(int(self.META.get("CONTENT_LENGTH") or 0))
        real(self)

    monkeypatch.setattr(HttpRequest, "_load_post_and_files", load)
    return lengths


@pytest.fixture
def browser() -> Client:
    """A client that passes the CSRF check as a browser does (the token in cookie and form), so
    the CSRF middleware reads the body of whatever gets past the limit."""
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("wizard:start"))
    return client


@pytest.fixture
def result() -> WizardResult:
    return wizard_result_make(Client(), FINE_TUNING_WITH_BUDGET)


@pytest.fixture
def sent(django_user_model):
    return sent_quote_make(_user(django_user_model, "rep", services.REP_GROUP))


def _form_paths(result: WizardResult, sent: Any) -> list[str]:
    token = {"token": result.token}
    return [
        reverse("home"),
        reverse("wizard:step", kwargs={"step": "project"}),
        reverse("wizard:step", kwargs={"step": "deployment"}),
        reverse("wizard:reset"),
        reverse("wizard:result_reprice", kwargs=token),
        reverse("wizard:result_recompute", kwargs=token),
        reverse("wizard:result_use_budget", kwargs=token),
        reverse("wizard:quote_request", kwargs=token),
        reverse("sales:quote_public", args=[sent.token]),
        reverse("sales:login"),
        reverse("set_language"),
    ]


def _post(client: Client, path: str, size: int):
    token = client.cookies["csrftoken"].value
    data = {"csrfmiddlewaretoken": token, "message": "x" * size}
    return client.post(path, data)


def test_an_oversized_public_form_is_refused_before_its_body_is_read(browser, result, sent, parsed):
    for path in _form_paths(result, sent):
        response = _post(browser, path, OVERSIZED)

        assert response.status_code == 413, path
        assert response.content.decode() == "The request body is larger than 65536 bytes."
    assert parsed == []


def test_a_form_under_the_limit_is_read_as_before(browser, result, parsed):
    # The longest legitimate form: a quote request's 4,000-character message, percent-encoded
    # at 6 bytes a character (é), with the other fields.
    path = reverse("wizard:quote_request", kwargs={"token": result.token})
    data = {
        "csrfmiddlewaretoken": browser.cookies["csrftoken"].value,
        "name": "Ada",
        "company": "Analytical Engines",
        "email": "ada@example.com",
        "country": "FR",
        "message": "é" * 4000,
        "consent": "on",
    }

    response = browser.post(path, urlencode(data), content_type=FORM)  # as a browser posts it

    assert response.status_code == 302
    assert len(parsed) == 1
    assert 24_000 < parsed[0] < 65_536


def test_a_form_limit_is_the_setting(browser, settings, parsed):
    settings.FORM_BODY_BYTES = 100

    response = _post(browser, reverse("wizard:reset"), 200)

    assert response.status_code == 413
    assert parsed == []


def test_the_customer_quote_pdf_is_rendered_once_per_state_of_the_quote(client, sent, monkeypatch):
    renders: list[int] = []
    real_render = public_views.quote_pdf_render

    def render(**kwargs: Any) -> bytes:
        renders.append(kwargs["revision"].pk)
        return real_render(**kwargs)

    monkeypatch.setattr(public_views, "quote_pdf_render", render)
    path = reverse("sales:quote_public_pdf", args=[sent.token])

    documents = [client.get(path).content for _ in range(3)]

    assert renders == [sent.revision.pk]
    assert documents[0] == documents[1] == documents[2]
    assert documents[0].startswith(b"%PDF")

    sent.save()  # any change to the quote: a new document
    client.get(path)

    assert len(renders) == 2


def test_the_api_schema_is_generated_once_per_language(client, monkeypatch):
    schema_cache_clear()
    made: list[str] = []
    real_get_schema = SchemaGenerator.get_schema

    def get_schema(self: SchemaGenerator, *args: Any, **kwargs: Any) -> Any:
        made.append(translation.get_language())
        return real_get_schema(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", get_schema)
    path = reverse("api:schema")

    answers = [client.get(path + "?format=json") for _ in range(3)]
    client.get(path)  # YAML: the same document, rendered again
    french = client.get(path + "?format=json&lang=fr")

    assert made == ["en", "fr"]
    assert {a.status_code for a in answers} == {200}
    assert answers[0].json() == answers[2].json()
    assert french.status_code == 200
    schema_cache_clear()
