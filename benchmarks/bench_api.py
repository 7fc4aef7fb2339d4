"""The REST calculators over Django's full request cycle, on the seed catalog.

Target: p95 of POST /api/v1/configurations/ under 100 ms with the seed catalog,
computed (the answer cache off) and cached (the same request again).
Uses the development database that `make bench` prepares (migrated, catalog loaded).
"""

from __future__ import annotations

import json

from benchmarks.timing import django_setup, measure, report

REQUESTS = [
    {
        "workload": {
            "task": "inference",
            "model": "llama-3.1-70b",
            "inference": {"concurrent_requests": 16, "sequence_length": 8192},
        },
        "environment": "production",
    },
    {
        "workload": {
            "task": "fine_tuning",
            "model": "llama-3.1-8b",
            "training": {"method": "lora"},
        },
        "environment": "experiment",
    },
    {
        "workload": {
            "task": "pretraining",
            "model": "llama-3.1-8b",
            "training": {"training_tokens": 10**11, "deadline_days": 30, "sharding": "zero3"},
        },
        "environment": "production",
        "currency": "USD",
    },
]


def main() -> bool:
    django_setup()
    from django.test import Client, override_settings
    from rest_framework.settings import api_settings

    client = Client(HTTP_HOST="localhost")
    bodies = [json.dumps(r) for r in REQUESTS]
    ok = True
    # Throttling would turn a benchmark into a 429 test: measure the work, not the limiter.
    classes = api_settings.DEFAULT_THROTTLE_CLASSES
    api_settings.DEFAULT_THROTTLE_CLASSES = []
    try:
        for seconds, suffix in ((0, "computed"), (3600, "cached: the same request again")):
            with override_settings(ANSWER_CACHE_SECONDS=seconds):
                for path, label, target in (
                    ("/api/v1/configurations/", "POST /api/v1/configurations/", 100.0),
                    ("/api/v1/tco/", "POST /api/v1/tco/ (build + TCO)", None),
                ):
                    samples = []
                    for body in bodies:

                        def call(body=body, path=path):
                            response = client.post(path, body, content_type="application/json")
                            assert response.status_code == 200, response.content[:300]

                        samples += measure(call, runs=60)
                    ok &= report(f"{label}, {suffix}", samples, target_p95_ms=target)
    finally:
        api_settings.DEFAULT_THROTTLE_CLASSES = classes
    return ok
