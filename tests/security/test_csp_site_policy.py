"""The site policy built once (gpuquote.core.csp): a response nothing changes gets exactly the
header django-csp itself writes; a response a decorator or a nonce changes goes through
django-csp; a settings change is seen."""

from __future__ import annotations

from typing import Any

import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY, NONCE, NONE, SELF
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from gpuquote.core.csp import SitePolicyCSPMiddleware


def _answers(path: str = "/", **response_attributes: object) -> tuple[Any, Any]:
    """(the library's response, ours) to the same request."""
    answers = []
    for middleware_class in (CSPMiddleware, SitePolicyCSPMiddleware):
        request = RequestFactory().get(path)
        response = HttpResponse("ok")
        for name, value in response_attributes.items():
            setattr(response, name, value)
        middleware = middleware_class(lambda request, response=response: response)
        answers.append(middleware(request))
    return answers[0], answers[1]


def test_a_plain_response_gets_the_librarys_header():
    library, ours = _answers()
    assert ours[HEADER] == library[HEADER]
    assert "frame-ancestors 'none'" in ours[HEADER]
    assert HEADER_REPORT_ONLY not in ours


def test_a_decorated_response_is_left_to_the_library():
    update = {"style-src": ["'unsafe-inline'"]}
    library, ours = _answers(_csp_update=update)
    assert ours[HEADER] == library[HEADER]
    assert "'unsafe-inline'" in ours[HEADER]
    _library, exempt = _answers(_csp_exempt=True)
    assert HEADER not in exempt


@pytest.mark.parametrize(
    "policy",
    [
        {"DIRECTIVES": {"default-src": [NONE]}},
        {"DIRECTIVES": {"default-src": [SELF]}, "EXCLUDE_URL_PREFIXES": ["/excluded"]},
    ],
)
def test_a_changed_setting_and_report_only_policies_are_followed(policy):
    with override_settings(
        CONTENT_SECURITY_POLICY=policy, CONTENT_SECURITY_POLICY_REPORT_ONLY=policy
    ):
        for path in ("/", "/excluded/page"):
            library, ours = _answers(path)
            for header in (HEADER, HEADER_REPORT_ONLY):
                assert ours.get(header) == library.get(header), (path, header)
    library, ours = _answers()
    assert ours[HEADER] == library[HEADER]  # back to the site's policy


def test_a_nonce_asked_for_by_the_page_is_left_to_the_library():
    policy = {"DIRECTIVES": {"default-src": [SELF], "script-src": [SELF, NONCE]}}
    headers = []
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        for middleware_class in (CSPMiddleware, SitePolicyCSPMiddleware):
            request = RequestFactory().get("/")
            middleware = middleware_class(lambda request: HttpResponse("ok"))
            middleware.process_request(request)
            nonce = str(request.csp_nonce)  # type: ignore[attr-defined]  # the page uses it
            response = middleware.process_response(request, HttpResponse("ok"))
            headers.append(response[HEADER].replace(nonce, "<nonce>"))
    assert headers[1] == headers[0]
    assert "'nonce-<nonce>'" in headers[1]
