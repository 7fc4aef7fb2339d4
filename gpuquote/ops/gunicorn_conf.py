"""gunicorn hooks for prometheus-client's multiprocess mode (``-c
python:gpuquote.ops.gunicorn_conf``, the Procfile's ``web`` line): with
``PROMETHEUS_MULTIPROC_DIR`` set, each worker process counts in files there and ``/metrics``
adds them up, so a scrape sees the whole host, not the one worker that answered it. The
directory is emptied when gunicorn starts (counts of a previous run would add up otherwise), and
a worker that exits is marked dead.

Embedded mode (no broker): the master also starts one ``manage.py drain_outbox`` process when
it is ready and stops it when it exits, so webhook deliveries run beside the workers, never in
a request (``gpuquote.core.outbox``). In the master, not in each worker: one drain process
whatever ``--workers`` says. With a broker the command exits at once (the Celery workers run
the jobs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

MANAGE_PY = Path(__file__).resolve().parents[2] / "manage.py"
# SIGTERM stops the drain process at once; a job cut short is still pending and runs again
# at the next start (the tasks are idempotent).
DRAIN_STOP_TIMEOUT_S = 5
_drain: subprocess.Popen[bytes] | None = None


def on_starting(server: Any) -> None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        Path(directory).mkdir(parents=True)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def when_ready(server: Any) -> None:
    global _drain
    _drain = subprocess.Popen([sys.executable, str(MANAGE_PY), "drain_outbox"])  # noqa: S603
    server.log.info("Outbox drain process started (pid %s)", _drain.pid)


def on_exit(server: Any) -> None:
    if _drain is None or _drain.poll() is not None:
        return
    _drain.terminate()
    try:
        _drain.wait(timeout=DRAIN_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _drain.kill()
