"""Request bodies the input attack tests start from, and the check of a problem-details answer.

``assert_problem``'s asserts are rewritten by pytest (see tests/security/conftest.py).
"""

from __future__ import annotations

from typing import Any

PROBLEM = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "message", "errors"}


def assert_problem(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert set(body) == PROBLEM_KEYS
    assert body["status"] == status
    return body


def post_json(client, path: str, body: Any, **headers: str):
    return client.post(path, body, content_type="application/json", headers=headers)


WORKLOAD = {"task": "inference", "model": "llama-3.1-8b"}

PARTNER_BODY = {
    "customer": {"company": "Analytical Engines SA", "contact_name": "Ada Lovelace",
                 "email": "ada@example.com", "country": "fr"},
    "workload": WORKLOAD,
    "environment": "production",
    "deployment": "managed",
}  # fmt: skip

QUOTE = {"company": "Initech", "contact_name": "Peter", "email": "p@initech.example",
         "country": "FR", "language": "en", "currency": "EUR"}  # fmt: skip
