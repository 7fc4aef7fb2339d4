"""The API's content negotiation (gpuquote.api.negotiation): the Accept headers clients send
are answered at once, with what DRF's own negotiation gives; any other goes through DRF."""

from __future__ import annotations

import pytest
from django.http import Http404
from django.test import RequestFactory
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request

from gpuquote.api.negotiation import JsonFirstNegotiation

RENDERER_LISTS = [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]]


def _selected(negotiation, accept: str | None, renderers, query: str = ""):
    headers = {} if accept is None else {"accept": accept}
    request = Request(RequestFactory().get("/api/v1/models/" + query, headers=headers))
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except NotAcceptable:
        return "406"
    except Http404:  # ?format= naming no renderer of the view
        return "404"
    return type(renderer).__name__, media_type


@pytest.mark.parametrize("renderers", RENDERER_LISTS)
@pytest.mark.parametrize(
    ("accept", "query"),
    [
        (None, ""),
        ("*/*", ""),
        ("application/json", ""),
        ("application/json; indent=4", ""),
        ("text/html", ""),
        ("text/html,application/xhtml+xml,*/*;q=0.8", ""),
        ("image/png", ""),
        ("*/*", "?format=json"),
        ("*/*", "?format=api"),
    ],
)
def test_the_answer_is_drfs_own(accept, query, renderers):
    ours = _selected(JsonFirstNegotiation(), accept, renderers, query)
    assert ours == _selected(DefaultContentNegotiation(), accept, renderers, query)


def test_the_common_headers_are_not_parsed(monkeypatch):
    def refuse(*_args):
        raise AssertionError("parsed")

    monkeypatch.setattr(DefaultContentNegotiation, "get_accept_list", refuse)
    for accept in (None, "*/*", "application/json"):
        assert _selected(JsonFirstNegotiation(), accept, RENDERER_LISTS[0]) == (
            "JSONRenderer",
            "application/json",
        )
