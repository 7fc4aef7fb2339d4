"""Attack: one anonymous request that costs seconds of CPU (a 2.6 MB body of ``[[0],[0],…]``,
or an object holding a million-item array). Each calculator refuses it before the work: the
size before ``json.loads``, the shape before ``json.loads``, the node count while parsing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuquote.api import parsers
from tests.security.attack_requests import WORKLOAD, assert_problem, post_json

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

CALCULATORS = ["/api/v1/sizing/", "/api/v1/configurations/", "/api/v1/tco/"]


@pytest.fixture
def loads_calls(monkeypatch) -> list[int]:
    """The size of every body the API's parser gave ``json.loads`` (the only caller passing an
    ``object_pairs_hook``)."""
    calls: list[int] = []
    real_loads = json.loads

    def loads(text: str, **kwargs: Any) -> Any:
        if "object_pairs_hook" in kwargs:
            calls.append(len(text))
        return real_loads(text, **kwargs)

    monkeypatch.setattr(parsers.json, "loads", loads)
    return calls


@pytest.fixture
def body_checks(monkeypatch) -> list[Any]:
    calls: list[Any] = []
    real_check = parsers.json_body_check

    def check(data: Any) -> None:
        calls.append(data)
        real_check(data)

    monkeypatch.setattr(parsers, "json_body_check", check)
    return calls


@pytest.mark.parametrize("path", CALCULATORS)
def test_calculator_body_over_its_limit_is_refused_before_json_loads(client, path, loads_calls):
    body = json.dumps(WORKLOAD | {"model": "x" * 70_000})  # under DATA_UPLOAD_MAX_MEMORY_SIZE

    problem = assert_problem(post_json(client, path, body), 413)

    assert problem["detail"] == "The request body is larger than 65536 bytes."
    assert loads_calls == []


@pytest.mark.parametrize("path", CALCULATORS)
def test_calculator_array_of_arrays_is_refused_before_json_loads(client, path, loads_calls):
    body = "[" + ",".join(["[0]"] * 10_000) + "]"  # 40 KB: under the limit

    problem = assert_problem(post_json(client, path, body), 400)

    assert problem["errors"] == {"non_field_errors": ["Expected a JSON object."]}
    assert loads_calls == []


@pytest.mark.parametrize("path", CALCULATORS)
def test_calculator_object_with_a_huge_array_is_refused_while_parsing(
    client, path, loads_calls, body_checks
):
    body = json.dumps(WORKLOAD | {"x": [0] * 20_000}, separators=(",", ":"))  # 40 KB

    problem = assert_problem(post_json(client, path, body), 400)

    assert problem["detail"] == "The JSON body has an array of more than 1000 items."
    assert len(loads_calls) == 1
    assert body_checks == []  # the walk after parsing never ran


@pytest.mark.parametrize("path", CALCULATORS)
def test_calculator_many_small_arrays_are_refused_on_the_node_count(client, path, body_checks):
    body = json.dumps(WORKLOAD | {f"k{i}": [0] * 900 for i in range(8)}, separators=(",", ":"))

    problem = assert_problem(post_json(client, path, body), 400)

    assert problem["detail"] == "The JSON body has more than 5000 keys and array items."
    assert body_checks == []


@pytest.mark.parametrize("path", CALCULATORS)
def test_calculator_form_body_over_its_limit_is_refused_on_its_declared_length(client, path):
    response = client.post(path, {"task": "x" * 70_000})

    assert assert_problem(response, 413)["detail"] == (
        "The request body is larger than 65536 bytes."
    )
