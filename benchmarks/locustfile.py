"""Locust users for ``benchmarks/bench_load.py``, one class per scenario (chosen by name).

Closed loop: every user sends its next request as soon as the last one answered (no think time),
so the server, not the users' pacing, sets the rate. A response counts as a success only with
the expected status; any other is a failure named ``HTTP <status>`` (``no response`` when the
connection failed), which is how ``bench_load`` tells wrong answers from broken connections.

Results: with ``BENCH_LOAD_CSV=<prefix>`` set, the final statistics are written when the test
stops, as ``<prefix>_stats.csv`` and ``<prefix>_failures.csv`` in the format of locust's own
``--csv``. Not ``--csv`` itself: locust rewrites those files once a second and does not rewrite
them at exit, so they miss the last second's requests (and any failure in it).

By hand, against a running server (the quote user needs a partner's key)::

    BENCH_API_KEY=<raw key> locust -f benchmarks/locustfile.py --headless -u 8 -r 8 -t 60s \
        --host http://127.0.0.1:8000 QuoteCreateUser
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import random
from collections.abc import Iterator
from typing import Any

from locust import constant, events, task
from locust.contrib.fasthttp import FastHttpUser
from locust.env import Environment
from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

API_KEY_VARIABLE = "BENCH_API_KEY"
CSV_PREFIX_VARIABLE = "BENCH_LOAD_CSV"
UNEXPECTED = "HTTP "  # prefix of the failure message of a response with an unexpected status
NO_RESPONSE = "no response"

CONFIGURATION_BODIES: list[dict[str, Any]] = [
    {"workload": {"task": "inference", "model": "llama-3.1-8b"}, "environment": "production"},
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
]

QUOTE_BODY = {
    "customer": {
        "company": "Bench Co",
        "contact_name": "Load Test",
        "email": "bench@example.com",
        "country": "FR",
    },
    "workload": {"task": "inference", "model": "llama-3.1-8b"},
    "environment": "production",
    "deployment": "managed",
    "region": "FR",
    "currency": "EUR",
    "horizon_years": 3,
}


def _client_address() -> str:
    """A client among many, as the load balancer names it (``NUM_PROXIES=1``): real traffic is
    many people each well under the anonymous rate, not one address at a thousand requests a
    second, so every request comes from an address drawn from 10.0.0.0/8 (16.7 million)."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


class ExpectingUser(FastHttpUser):
    """A user whose requests fail unless they get exactly the expected status."""

    abstract = True
    wait_time = constant(0)

    def expect(self, method: str, path: str, *, status: int, **kwargs: Any) -> None:
        headers = {**kwargs.pop("headers", {}), "X-Forwarded-For": _client_address()}
        with self.client.request(
            method, path, catch_response=True, headers=headers, **kwargs
        ) as response:
            if response.status_code == status:
                response.success()
            elif response.status_code == 0:
                response.failure(f"{NO_RESPONSE}: {response.error!r}")
            else:
                response.failure(f"{UNEXPECTED}{response.status_code}")


class TrivialUser(ExpectingUser):
    """The baseline: a Django JSON view that touches no database."""

    @task
    def livez(self) -> None:
        self.expect("GET", "/livez", status=200)


class ConfigurationsUser(ExpectingUser):
    """Anonymous ``POST /api/v1/configurations/``, the three bodies in turn."""

    def on_start(self) -> None:
        self.bodies = itertools.cycle([json.dumps(body) for body in CONFIGURATION_BODIES])

    @task
    def configurations(self) -> None:
        self.expect(
            "POST",
            "/api/v1/configurations/",
            status=200,
            data=next(self.bodies),
            headers={"Content-Type": "application/json"},
        )


def _new_workloads() -> Iterator[dict[str, Any]]:
    """Workloads no one asked before: the 70B service at a user count and a context length
    drawn at random (4,000 x 6,145 pairs, each user its own generator): the few thousand
    requests of a 10-s run repeat under one pair on average. Before, the count alone walked
    4,000 values from four starting points, so about half the requests repeated one."""
    draw = random.Random()  # seeded from the system: every user its own draws
    while True:
        yield {
            "task": "inference",
            "model": "llama-3.1-70b",
            "inference": {
                "concurrent_requests": draw.randint(1, 4000),
                "sequence_length": draw.randint(2048, 8192),
            },
        }


class CalculatorUser(ExpectingUser):
    """Anonymous calls of one calculator: ``bodies()`` gives what to send, in turn."""

    abstract = True
    path = ""

    def bodies(self) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def on_start(self) -> None:
        self.sent = (json.dumps(body) for body in self.bodies())

    @task
    def calculate(self) -> None:
        self.expect(
            "POST",
            self.path,
            status=200,
            data=next(self.sent),
            headers={"Content-Type": "application/json"},
        )


class SizingUser(CalculatorUser):
    """``POST /api/v1/sizing/`` with the workloads users pick most (recurring)."""

    path = "/api/v1/sizing/"

    def bodies(self) -> Iterator[dict[str, Any]]:
        return itertools.cycle([body["workload"] for body in CONFIGURATION_BODIES])


class NewSizingUser(SizingUser):
    """``POST /api/v1/sizing/``, every workload new."""

    def bodies(self) -> Iterator[dict[str, Any]]:
        return _new_workloads()


class NewConfigurationsUser(CalculatorUser):
    """``POST /api/v1/configurations/``, every workload new."""

    path = "/api/v1/configurations/"

    def bodies(self) -> Iterator[dict[str, Any]]:
        return ({"workload": w, "environment": "production"} for w in _new_workloads())


class TcoUser(CalculatorUser):
    """``POST /api/v1/tco/`` for the recurring workloads, in France over 3 years."""

    path = "/api/v1/tco/"

    def bodies(self) -> Iterator[dict[str, Any]]:
        return itertools.cycle([body | {"region": "FR"} for body in CONFIGURATION_BODIES])


class NewTcoUser(TcoUser):
    """``POST /api/v1/tco/``, every workload new."""

    def bodies(self) -> Iterator[dict[str, Any]]:
        return (
            {"workload": w, "environment": "production", "region": "FR"} for w in _new_workloads()
        )


class QuoteCreateUser(ExpectingUser):
    """A partner's ``POST /api/v1/quotes/`` (its key in ``BENCH_API_KEY``): a new quote each."""

    def on_start(self) -> None:
        self.headers = {
            "Content-Type": "application/json",
            "Authorization": f"Api-Key {os.environ[API_KEY_VARIABLE]}",
        }
        self.body = json.dumps(QUOTE_BODY)

    @task
    def quote_create(self) -> None:
        self.expect("POST", "/api/v1/quotes/", status=201, data=self.body, headers=self.headers)


@events.test_stop.add_listener
def final_stats_write(environment: Environment, **_kwargs: Any) -> None:
    """The statistics once every user has stopped (see the module docstring)."""
    prefix = os.environ.get(CSV_PREFIX_VARIABLE)
    if not prefix:
        return
    writer = StatsCSV(environment, PERCENTILES_TO_REPORT)
    with open(f"{prefix}_stats.csv", "w", newline="") as stats_file:
        writer.requests_csv(csv.writer(stats_file))
    with open(f"{prefix}_failures.csv", "w", newline="") as failures_file:
        writer.failures_csv(csv.writer(failures_file))
