"""Schemathesis over the whole OpenAPI schema, against the WSGI app in-process.

Every operation gets generated requests (valid and invalid) as anonymous and as a partner; each
response must not be a 5xx, must have a documented status code and content type, and must match
its documented schema. Throttles are lifted here: they are tested on their own.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from gpuquote.wsgi import application
from quotes.api.auth import AnonymousThrottle, PartnerKeyThrottle
from tests.api_fixtures import auth, partner_key

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)


@pytest.fixture
def api_world(db, seed_catalog, monkeypatch, example_dns):
    """The catalog and a partner with a key; requests keep the test's database connection.
    Webhook URLs are resolved when registered: DNS is faked (``example_dns``), no lookup leaves."""
    # Calling the WSGI app directly fires request_started/finished, whose handler closes a
    # connection inside a transaction (the test's); Django's test client unhooks it the same way.
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    for throttle in (AnonymousThrottle, PartnerKeyThrottle):
        rates = dict.fromkeys(throttle.THROTTLE_RATES, "100000/minute")
        monkeypatch.setattr(throttle, "THROTTLE_RATES", rates)
    _partner, raw = partner_key("Schemathesis Partner")
    yield auth(raw)
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_holds_under_generated_requests(case, api_world):
    case.call_and_validate(headers=api_world, checks=CHECKS)


@schema.include(method="GET").parametrize()
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_anonymous_reads_are_documented_refusals_or_answers(case, api_world):
    case.call_and_validate(checks=CHECKS)
