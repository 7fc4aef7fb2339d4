"""/metrics under gunicorn with several workers, as the Procfile runs it: with
PROMETHEUS_MULTIPROC_DIR (and gpuquote.ops.gunicorn_conf's hooks), a scrape answered by any one
worker counts the requests every worker served."""

from __future__ import annotations

import os
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.workers import Gunicorn, worker_database_url

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "m" * 32
REQUESTS = 40


def _livez_served(text: str) -> float:
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "django_http_responses_total_by_status_view_method_total"
        and sample.labels.get("view") == "livez"
    )


def test_a_scrape_counts_the_requests_of_every_worker(tmp_path):
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_stale_from_a_previous_run.db").write_bytes(b"not a metrics file")
    env = os.environ | {
        "DATABASE_URL": worker_database_url(os.environ["DATABASE_URL"]),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "METRICS_TOKEN": TOKEN,
        "DEBUG": "true",
    }
    env.pop("REDIS_URL", None)
    server = Gunicorn(
        tmp_path / "gunicorn.log",
        env=env,
        workers=2,
        threads=1,
        config="python:gpuquote.ops.gunicorn_conf",
    )
    try:
        for _ in range(REQUESTS):
            with urllib.request.urlopen(server.url("/livez"), timeout=10):  # noqa: S310
                pass
        request = urllib.request.Request(  # noqa: S310
            server.url("/metrics"), headers={"Authorization": f"Bearer {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            text = response.read().decode()
        pids = {path.name.split("_")[-1] for path in metrics_dir.glob("*.db")}
    finally:
        server.stop()

    # Gunicorn's own readiness polls of /livez (tests.workers) count too: at least REQUESTS.
    assert _livez_served(text) >= REQUESTS
    assert len(pids) >= 2  # both workers counted in files (the stale file was cleared)
    assert not (metrics_dir / "counter_stale_from_a_previous_run.db").exists()
