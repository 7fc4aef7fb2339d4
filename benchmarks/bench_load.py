"""The API under load: gunicorn on 127.0.0.1, driven by locust from a second process.

Issue: ``POST /api/v1/configurations/`` and quote creation under load for 60 s with zero errors,
reported as requests/s and p50/p95/p99 next to a bare Django project (``bare_settings``:
SecurityMiddleware and CommonMiddleware, one JSON view) served the same way in the same run, as
a ratio. Targets: every request answered with its expected status (200, or 201 for a new quote),
at least one request per scenario, and the load-test goals (``SCENARIOS``: the calculators at half
the bare view's rate for recurring requests, a fifth for new ones, p99 under 25 ms).

How: gunicorn runs the production settings (``DEBUG=false``, a random ``SECRET_KEY`` per run,
plain HTTP, behind a load balancer: ``NUM_PROXIES=1``) with 2 sync workers on the development
database that ``make bench`` prepared (SQLite in var/, or ``DATABASE_URL``). Each scenario is a
headless locust run of ``BENCH_LOAD_SECONDS`` (default 60) seconds with the user class of
``benchmarks/locustfile.py`` named on the command line; the quote scenario sends a fresh API key
of the partner "Load benchmark", revoked at the end.

Clients: every request comes from an address of its own (``X-Forwarded-For``, drawn from
10.0.0.0/8), as real traffic is many people each far under the anonymous throttle, which runs
at its production rate. One address at a thousand requests a second (the earlier runs, with the
throttle lifted) made DRF pickle a history of a thousand timestamps on every request: ~60 µs a
request that no real client causes. The quote scenario is one partner at full speed: its key's
throttle is raised out of the way over a one-second window.

Users: 8, closed loop (no think time). Two sync workers serve two requests at a time; with 8
users about three more wait in each worker's queue, so a worker never idles between requests,
while locust (one gevent process) stays well under a core: about half a core at /livez's
~800 req/s, under a fifth on the API scenarios. A 10-s sweep on this 2-core machine (shared with
other work, so only indicative) gave /livez 660, 690, 820, 780 req/s with 2, 4, 8, 16 users and
the configurations view 66, 84, 69, 68: throughput stops rising by 8 users, and more users
only lengthen the queue. In a saturated closed loop latency is users / throughput (Little's
law), so the p95 ratio mostly mirrors the req/s ratio; bench_api measures the configurations
view's own time without queueing. Locust shares the 2 cores with the server, so the absolute
numbers are a floor, and the trivial view (the cheapest to serve) suffers most.

Percentiles are locust's: exact to the millisecond below 100 ms, to 10 ms up to 1 s.

Leaves behind: the partner "Load benchmark" and one revoked key per run. The quotes the run
created (with their revisions, lines, events) and the wizard results stored with them are
deleted; the quote counter of the year has moved on (numbers are never reused, by design).

Run: ``BENCH_LOAD_SECONDS=10 python -m benchmarks bench_load`` (or ``make bench``);
``BENCH_LOAD_ONLY=configurations,tco`` runs only the scenarios named (and the baseline).
"""

from __future__ import annotations

import collections
import csv
import http.client
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.timing import django_setup
from tests.workers import WaitTimeout, wait_until

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
BIN = Path(sys.executable).parent  # gunicorn and locust of the same virtualenv
USERS = 8
WORKERS = 2
DEFAULT_SECONDS = 60
PARTNER_NAME = "Load benchmark"
READY_TIMEOUT_S = 30
STOP_GRACE_S = 5
DELETE_CHUNK = 500
UNEXPECTED_STATUS = re.compile(r"HTTP (\d{3})")


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    label: str
    user_class: str  # in benchmarks/locustfile.py
    server: str = "app"  # "bare": the bare Django project of benchmarks/bare_settings.py
    # The load-test goals: req/s at least this share of the bare view's, p99 under this.
    min_ratio: float | None = None
    max_p99_ms: float | None = None


# The calculators within 2x of a bare view for the requests real traffic repeats, 5x
# for new ones, p99 under 25 ms; quote creation within 10x.
RECURRING, NEW, P99_MS, QUOTES = 0.5, 0.2, 25.0, 0.1
SCENARIOS = (
    Scenario("bare", "bare Django view (baseline)", "TrivialUser", server="bare"),
    Scenario("trivial", "GET /livez", "TrivialUser"),
    Scenario("sizing", "POST /api/v1/sizing/ (recurring)", "SizingUser", "app", RECURRING, P99_MS),
    Scenario("sizing_new", "POST /api/v1/sizing/ (new)", "NewSizingUser", "app", NEW, P99_MS),
    Scenario(
        "configurations",
        "POST /api/v1/configurations/ (recurring)",
        "ConfigurationsUser",
        "app",
        RECURRING,
        P99_MS,
    ),
    Scenario(
        "configurations_new",
        "POST /api/v1/configurations/ (new)",
        "NewConfigurationsUser",
        "app",
        NEW,
        P99_MS,
    ),
    Scenario("tco", "POST /api/v1/tco/ (recurring)", "TcoUser", "app", RECURRING, P99_MS),
    Scenario("tco_new", "POST /api/v1/tco/ (new)", "NewTcoUser", "app", NEW, P99_MS),
    Scenario("quote_create", "POST /api/v1/quotes/ (201)", "QuoteCreateUser", "app", QUOTES),
)
BASELINE = "bare"
# gunicorn's application and settings for each kind of server.
SERVERS = {
    "app": ("gpuquote.wsgi:application", "gpuquote.settings.prod"),
    "bare": ("benchmarks.bare_wsgi:application", "benchmarks.bare_settings"),
}


@dataclass(frozen=True, slots=True)
class LoadResult:
    """locust's "Aggregated" row, and its failures by kind (``HTTP 500``, a connection error)."""

    requests: int
    failures: int
    rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: dict[str, int] = field(default_factory=dict)
    exit_code: int = 0

    @property
    def unexpected_status(self) -> int:
        return sum(n for error, n in self.errors.items() if error.startswith("HTTP "))

    @property
    def ok(self) -> bool:
        return self.requests > 0 and self.failures == 0 and self.exit_code == 0


class ServerError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", "/livez")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


SELLER_SETTINGS = (
    "SELLER_NAME",
    "SELLER_ADDRESS",
    "SELLER_SIREN",
    "SELLER_SIRET",
    "SELLER_VAT_NUMBER",
    "SELLER_IBAN",
    "SELLER_BIC",
)


@contextmanager
def _gunicorn(port: int, log_path: Path, server_kind: str = "app") -> Iterator[str]:
    from django.conf import settings

    application, settings_module = SERVERS[server_kind]
    env = {
        **os.environ,
        # The production profile, whatever `make bench` (development) selected for this process.
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DEBUG": "false",
        # Production on one machine unless DATABASE_URL and REDIS_URL say otherwise.
        "GPUQUOTE_EMBEDDED": "1",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        # Behind a load balancer, as in production: the client address is the one it appends
        # to X-Forwarded-For. Locust's users send requests from many addresses (locustfile),
        # so the anonymous calculators run under the production throttle (API_ANON_RATE's
        # default), each address far under it.
        "NUM_PROXIES": "1",
        # The quote scenario is one partner's key at full speed: its throttle raised out of the
        # way over a one-second window (DRF keeps one timestamp per request of the window in
        # the key's history, pickled on each request; a minute's would be a cost no partner
        # causes, as one is held to 600 a minute).
        "API_PARTNER_RATE": "100000000/second",
        # Production refuses to start without the seller's legal details: the demo company's.
        **{name: str(getattr(settings, name)) for name in SELLER_SETTINGS},
    }
    command = [
        str(BIN / "gunicorn"),
        application,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
    ]
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            wait_until(
                lambda: server.poll() is not None or _answers(port),
                timeout=READY_TIMEOUT_S,
                interval=0.2,
                what="GET /livez to answer 200",
            )
        except WaitTimeout as error:
            raise ServerError(str(error)) from None
        if server.poll() is not None:
            raise ServerError(f"gunicorn exited with status {server.returncode}")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _number(value: str) -> float:
    return 0.0 if value in ("", "N/A") else float(value)


def _result_read(prefix: Path, exit_code: int) -> LoadResult:
    with Path(f"{prefix}_stats.csv").open(newline="") as stats_file:
        total = next(row for row in csv.DictReader(stats_file) if row["Name"] == "Aggregated")
    errors: collections.Counter[str] = collections.Counter()
    with Path(f"{prefix}_failures.csv").open(newline="") as failures_file:
        for row in csv.DictReader(failures_file):
            status = UNEXPECTED_STATUS.search(row["Error"])
            errors[f"HTTP {status[1]}" if status else row["Error"]] += int(row["Occurrences"])
    return LoadResult(
        requests=int(total["Request Count"]),
        failures=int(total["Failure Count"]),
        rps=_number(total["Requests/s"]),
        p50_ms=_number(total["50%"]),
        p95_ms=_number(total["95%"]),
        p99_ms=_number(total["99%"]),
        errors=dict(errors),
        exit_code=exit_code,
    )


def _locust_run(
    scenario: Scenario, *, url: str, seconds: int, workdir: Path, api_key: str
) -> LoadResult:
    prefix = workdir / scenario.name
    env = {**os.environ, "BENCH_API_KEY": api_key, "BENCH_LOAD_CSV": str(prefix)}
    command = [
        str(BIN / "locust"),
        "--locustfile",
        str(LOCUSTFILE),
        "--headless",
        "--users",
        str(USERS),
        "--spawn-rate",
        str(USERS),
        "--run-time",
        f"{seconds}s",
        "--host",
        url,
        "--only-summary",
        scenario.user_class,
    ]
    output = workdir / f"{scenario.name}_locust.log"
    with output.open("wb") as log:
        completed = subprocess.run(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=seconds + 120,
            check=False,
        )
    for line in output.read_text(errors="replace").splitlines():
        if "CPU usage" in line:  # locust's own warning: the load generator was the bottleneck
            print(f"   locust: {line.strip()}")
    if not Path(f"{prefix}_stats.csv").exists():
        print(f"   {scenario.label}: locust wrote no statistics (exit {completed.returncode})")
        return LoadResult(0, 0, 0.0, 0.0, 0.0, 0.0, exit_code=completed.returncode or 1)
    return _result_read(prefix, completed.returncode)


def _report(scenario: Scenario, result: LoadResult, baseline: LoadResult | None) -> None:
    print(
        f"   {scenario.label}: requests={result.requests} failures={result.failures} "
        f"{result.rps:.1f} req/s p50={result.p50_ms:.0f} ms p95={result.p95_ms:.0f} ms "
        f"p99={result.p99_ms:.0f} ms"
    )
    if baseline is not None and baseline.rps and baseline.p95_ms:
        print(
            f"      vs the bare view: {result.rps / baseline.rps:.3f}x its req/s, "
            f"{result.p95_ms / baseline.p95_ms:.1f}x its p95"
        )
    if result.errors:
        kinds = ", ".join(f"{error} x {n}" for error, n in sorted(result.errors.items()))
        others = result.failures - result.unexpected_status
        print(
            f"      failed: {result.unexpected_status} with an unexpected status, "
            f"{others} otherwise ({kinds})"
        )
    if result.exit_code:
        print(f"      locust exited with status {result.exit_code}")
    verdict = "met" if result.ok else "MISSED"
    print(f"      target zero errors, at least one request: {verdict}")


def _goals_met(scenario: Scenario, result: LoadResult, baseline: LoadResult | None) -> bool:
    ratio_ok = scenario.min_ratio is None or (
        baseline is not None
        and baseline.rps > 0
        and result.rps / baseline.rps >= scenario.min_ratio
    )
    p99_ok = scenario.max_p99_ms is None or result.p99_ms < scenario.max_p99_ms
    return ratio_ok and p99_ok


def _table(results: dict[str, LoadResult]) -> bool:
    """The load-test table, the bare view measured in the same run; whether every goal is met."""
    baseline = results.get(BASELINE)
    print("\n   | Endpoint | req/s | p50 | p99 | vs bare view | goal | |")
    print("   |---|---|---|---|---|---|---|")
    every = True
    for scenario in SCENARIOS:
        result = results.get(scenario.name)
        if result is None:
            continue
        ratio = result.rps / baseline.rps if baseline and baseline.rps else 0.0
        goals = []
        if scenario.min_ratio is not None:
            goals.append(f">= {scenario.min_ratio}x")
        if scenario.max_p99_ms is not None:
            goals.append(f"p99 < {scenario.max_p99_ms:.0f} ms")
        met = result.ok and _goals_met(scenario, result, baseline)
        every &= met
        print(
            f"   | {scenario.label} | {result.rps:,.0f} | {result.p50_ms:.1f} ms "
            f"| {result.p99_ms:.0f} ms | {ratio:.3f} | {', '.join(goals) or '-'} "
            f"| {'met' if met else 'MISSED'} |"
        )
    return every


def _bench_quotes_delete(partner: Any) -> int:
    """Delete the bench partner's quotes and the wizard results they were made from."""
    from django.db import transaction

    from quotes.models import Quote, QuoteEvent, QuoteRevision, WizardResult

    with transaction.atomic():
        quotes = Quote.objects.filter(partner=partner)
        tokens = [s.get("result_token") for s in quotes.values_list("snapshot", flat=True)]
        QuoteEvent.objects.filter(quote__in=quotes).delete()
        quotes.update(current_revision=None)  # Quote.current_revision protects the revision
        QuoteRevision.objects.filter(quote__in=quotes).delete()  # and their lines
        deleted = quotes.delete()[1].get(Quote._meta.label, 0)  # and idempotency records
        for start in range(0, len(tokens), DELETE_CHUNK):
            WizardResult.objects.filter(
                token__in=tokens[start : start + DELETE_CHUNK], answers__source="partner_api"
            ).delete()
    return deleted


def _log_tail(path: Path, lines: int = 30) -> None:
    if path.exists():
        for line in path.read_text(errors="replace").splitlines()[-lines:]:
            print(f"      | {line}")


def _scenarios_chosen() -> tuple[Scenario, ...]:
    """``BENCH_LOAD_ONLY`` (names, comma-separated) narrows the run; the baseline always runs."""
    only = {name.strip() for name in os.environ.get("BENCH_LOAD_ONLY", "").split(",") if name}
    return tuple(s for s in SCENARIOS if not only or s.name in only | {BASELINE})


def main() -> bool:
    django_setup()
    from django.db import connection

    from quotes.partners.keys import api_key_revoke
    from tests.factories import api_key_make, partner_make

    seconds = int(os.environ.get("BENCH_LOAD_SECONDS") or DEFAULT_SECONDS)
    database = f"{connection.vendor} ({Path(str(connection.settings_dict['NAME'])).name})"
    partner = partner_make(name=PARTNER_NAME)
    _bench_quotes_delete(partner)  # what an interrupted run left
    key, raw = api_key_make(partner, name="bench")
    workdir = Path(tempfile.mkdtemp(prefix="bench_load_"))
    server_log = workdir / "gunicorn.log"
    results: dict[str, LoadResult] = {}
    ok = True
    try:
        connection.close()  # the bench holds no connection (nor SQLite lock) while serving
        print(f"   gunicorn {WORKERS} workers, {database}; locust {USERS} users, {seconds} s each")
        for kind in ("bare", "app"):  # the bare view first: the others' baseline
            with _gunicorn(_free_port(), server_log, kind) as url:
                for scenario in (s for s in _scenarios_chosen() if s.server == kind):
                    result = _locust_run(
                        scenario, url=url, seconds=seconds, workdir=workdir, api_key=raw
                    )
                    results[scenario.name] = result
                    baseline = None if scenario.name == BASELINE else results.get(BASELINE)
                    _report(scenario, result, baseline)
                    ok &= result.ok
        ok &= _table(results)
    except ServerError as error:
        print(f"   gunicorn did not start: {error}")
        ok = False
    finally:
        api_key_revoke(key=key)
        deleted = _bench_quotes_delete(partner)
        created = results.get("quote_create")
        answered = ""
        if created is not None:  # the server finishes requests locust stopped waiting for
            answered = f" ({created.requests - created.failures} of them answered 201 to locust)"
        print(f"   deleted the {deleted} quotes the run created{answered}")
    if ok:
        shutil.rmtree(workdir)
    else:
        print(f"   server log (kept with locust's files in {workdir}):")
        _log_tail(server_log)
    return ok
