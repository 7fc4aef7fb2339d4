"""The API's session authentication: DRF's, answering at once when there is no session cookie."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from rest_framework.request import Request

from gpuquote.api.auth import SessionCookieAuthentication
from tests.quotes.sales.test_quote_services import _user

QUOTES = reverse("api:quote-list")


def _never_built() -> None:
    raise AssertionError("the lazy user was built for a request without a session cookie")


def test_without_the_cookie_no_user_is_built():
    django_request = RequestFactory().post("/api/v1/sizing/")
    django_request.user = SimpleLazyObject(_never_built)  # type: ignore[assignment]

    assert SessionCookieAuthentication().authenticate(Request(django_request)) is None


@pytest.mark.django_db
def test_with_the_cookie_it_is_drfs_session_authentication(django_user_model):
    rep = _user(django_user_model, "rep", "sales rep")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(rep)

    assert browser.get(QUOTES).status_code == 200  # signed in through the session
    refused = browser.post(QUOTES, {}, content_type="application/json")
    assert refused.status_code == 403  # DRF's CSRF check still runs for a session
    assert "CSRF" in refused.json()["detail"]


@pytest.mark.django_db
def test_an_unknown_session_cookie_is_anonymous():
    browser = Client()
    browser.cookies[settings.SESSION_COOKIE_NAME] = "not-a-session-key"

    assert browser.get(QUOTES).status_code in (401, 403)
