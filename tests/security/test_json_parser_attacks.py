"""JSON that exhausts the parser: deep nesting, lone surrogates, huge
objects and bodies are refused with a problem-details answer before validation.

Each test is named after the attack and asserts the exact answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from quotes.models import Quote
from tests.api_fixtures import auth, partner_key
from tests.security.attack_requests import PARTNER_BODY, WORKLOAD, assert_problem, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog", "no_huge_int")]


def test_json_nested_ten_thousand_levels_is_a_400(client):
    body = '{"task": ' + "[" * 10_000 + "]" * 10_000 + "}"

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 400)

    assert problem["detail"] == "The JSON body is nested more than 32 levels deep."
    assert problem["errors"] == {}


def test_json_nested_just_too_deep_is_a_400(client):
    body: dict[str, object] = {"task": "inference"}
    for _level in range(40):
        body = {"a": body}

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 400)

    assert problem["detail"] == "The JSON body is nested more than 32 levels deep."


def test_json_lone_surrogate_is_refused_naming_the_field(client):
    _partner, raw = partner_key()
    body = json.dumps(PARTNER_BODY).replace("Ada Lovelace", "Ada \\ud800")

    response = post_json(client, reverse("api:quote-list"), body, **auth(raw))

    assert assert_problem(response, 400)["errors"] == {
        "customer.contact_name": ["Contains an invalid character (a lone UTF-16 surrogate)."]
    }
    assert Quote.objects.count() == 0


def test_json_lone_surrogate_in_a_key_is_refused(client):
    body = '{"task": "inference", "\\udfff": 1}'

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 400)

    assert problem["errors"] == {
        "non_field_errors": ["Contains an invalid character (a lone UTF-16 surrogate)."]
    }


def test_json_two_hundred_thousand_keys_are_refused_before_validation(
    client, monkeypatch, settings
):
    from quotes.api import workload as api_workload

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000_000  # the body is 3.3 MB: under the limits
    settings.API_BODY_LIMITS = {"calculator": 10_000_000, "default": 10_000_000}

    def must_not_run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("validation ran on an oversized body")

    monkeypatch.setattr(api_workload, "workload_from_dict", must_not_run)
    body = json.dumps({"task": "inference"} | {f"k{i}": 1 for i in range(200_000)})

    response = post_json(client, "/api/v1/sizing/", body)

    problem = assert_problem(response, 400)
    assert problem["detail"] == "The JSON body has more than 1000 keys."
    assert len(response.content) < 1000


def test_many_unknown_fields_report_the_first_twenty_and_a_count(client):
    body = {"task": "inference", "model": "llama-3.1-8b"} | {f"extra{i:03}": 1 for i in range(300)}

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 400)

    assert len(problem["errors"]) == 20
    assert list(problem["errors"])[:2] == ["extra000", "extra001"]
    assert problem["detail"] == "The request has invalid fields: the first 20 of 300 are listed."


def test_oversized_json_body_is_a_413_problem(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps(WORKLOAD | {"model": "x" * 20_000})

    problem = assert_problem(post_json(client, "/api/v1/sizing/", body), 413)

    assert problem["detail"] == "The request body is larger than 10000 bytes."
    assert problem["type"] == "https://gpuquote.example/problems/payload-too-large"


def test_oversized_form_body_on_the_api_is_a_413_problem(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000

    response = client.post("/api/v1/sizing/", {"task": "x" * 20_000})

    assert assert_problem(response, 413)["detail"] == "The request body is larger than 10000 bytes."


def test_api_errors_carry_the_problem_content_type(client):
    assert_problem(client.get("/api/v1/no-such-thing/"), 404)
    assert_problem(client.post("/api/v1/quotes/", {}, content_type="application/json"), 401)
    assert_problem(client.post("/api/v1/sizing/", "{", content_type="application/json"), 400)
