"""The result page cached per process: a stored result never changes, so its decoded
object and its page's context in each language are worked out on the first visit only; every
later visit shows the same page, with its own CSRF token and its own forms."""

from __future__ import annotations

import re
from typing import cast
from unittest import mock

import pytest
from django import forms
from django.urls import reverse
from django.utils import translation

from gpuquote.core.countries import CountryFormField, CountrySelect, country_choices
from quotes.wizard import result_cache
from quotes.wizard.forms import QuoteRequestForm
from tests.quotes.wizard.wizard_cases import INFERENCE, wizard_result_make

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def _without_csrf(html: bytes) -> str:
    return CSRF.sub('name="csrfmiddlewaretoken" value=""', html.decode())


@pytest.mark.django_db
@pytest.mark.usefixtures("seed_catalog")
def test_the_first_visit_works_the_page_out_and_the_next_ones_show_the_same(client):
    result = wizard_result_make(client, INFERENCE)
    url = reverse("wizard:result", kwargs={"token": result.token})
    with (
        mock.patch.object(
            result_cache, "result_context", wraps=result_cache.result_context
        ) as context,
        mock.patch.object(
            result_cache, "result_from_json", wraps=result_cache.result_from_json
        ) as decode,
    ):
        first = client.get(url)
        second = client.get(url)
        french = client.get(url, headers={"accept-language": "fr"})
        client.cookies["django_language"] = "fr"
        french_again = client.get(url)

    assert (context.call_count, decode.call_count) == (2, 1)  # once per language, decoded once
    assert _without_csrf(first.content) == _without_csrf(second.content)
    assert CSRF.search(first.content.decode()) is not None
    assert b"Your GPU server plan" in first.content
    assert "Inférence Llama 3.1 8B" in french.content.decode()
    assert _without_csrf(french.content) == _without_csrf(french_again.content)
    assert f"http://testserver{url}".encode() in first.content  # the visit's own absolute link


@pytest.mark.django_db
@pytest.mark.usefixtures("seed_catalog")
def test_a_quote_request_with_errors_shows_its_own_values_on_the_cached_page(client):
    result = wizard_result_make(client, INFERENCE)
    url = reverse("wizard:result", kwargs={"token": result.token})
    client.get(url)
    answer = client.post(
        reverse("wizard:quote_request", kwargs={"token": result.token}),
        {"name": "Ada", "company": "Engines", "email": "not-an-address", "country": "DE"},
    )

    html = answer.content.decode()
    assert answer.status_code == 200
    assert 'value="not-an-address"' in html
    assert '<option value="DE" selected>' in html


@pytest.mark.parametrize("value", ["", "FR", "de", None])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_cached_country_select_is_the_select_django_renders(value, language):
    attrs = {"id": "id_country", "aria-invalid": "true", "autocomplete": "country"}
    with translation.override(language):
        plain = forms.Select(choices=country_choices()).render("country", value, attrs)
        for _ in range(2):  # rendered, then cached
            cached = CountrySelect(choices=country_choices()).render("country", value, attrs)
            assert cached == plain
    assert len(plain) > 5000  # every country


def test_the_country_field_uses_the_cached_select_for_every_country_only():
    assert isinstance(CountryFormField().widget, CountrySelect)
    assert isinstance(QuoteRequestForm().fields["country"].widget, CountrySelect)
    few = CountryFormField(choices=[("FR", "France"), ("DE", "Germany")])
    widget = cast(forms.Widget, few.widget)  # an instance once the field is built
    assert not isinstance(widget, CountrySelect)  # its own list: never served from the cache
    assert widget.render("country", "DE").count("<option") == 2
