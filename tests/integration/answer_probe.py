"""A web process of its own for ``test_answer_versions``: for each line read on stdin
("configurations" or "tco"), it asks the app (the whole middleware stack and view, through
Django's test client) the same fixed question and writes one JSON line on stdout: the status,
a digest of the body, and the GPU and price of the first option. Run as
``python -m tests.integration.answer_probe`` with the test's environment."""

from __future__ import annotations

import hashlib
import json
import os
import sys

import django

from gpuquote.env import set_default_settings_module

SERVE_8B = {"task": "inference", "model": "llama-3.1-8b", "inference": {"concurrent_requests": 8}}
QUESTIONS = {
    "configurations": (
        "/api/v1/configurations/",
        {"workload": SERVE_8B, "environment": "production"},
    ),
    "tco": ("/api/v1/tco/", {"workload": SERVE_8B, "environment": "production", "region": "FR"}),
}


def answer(client, name: str) -> dict[str, object]:
    path, question = QUESTIONS[name]
    response = client.post(path, json.dumps(question), content_type="application/json")
    body = json.loads(response.content)
    option = body["options"][0] if name == "configurations" else body["configuration"]
    gpu = next(line for line in option["parts"] if line["kind"] == "gpu")
    return {
        "status": response.status_code,
        "digest": hashlib.sha256(response.content).hexdigest(),
        "gpu": gpu["sku"],
        "price": option["totals"]["price"],
        "pid": os.getpid(),
    }


def main() -> None:
    set_default_settings_module()  # as manage.py: the test's profile, else DEBUG picks
    django.setup()
    from django.test import Client

    client = Client()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps(answer(client, line.strip())), flush=True)


if __name__ == "__main__":
    main()
