"""gunicorn hooks for prometheus-client's multiprocess mode (``-c
python:gpuquote.ops.gunicorn_conf``, the Procfile's ``web`` line): with
``PROMETHEUS_MULTIPROC_DIR`` set, each worker process counts in files there and ``/metrics``
adds them up, so a scrape sees the whole host, not the one worker that answered it. The
directory is emptied when gunicorn starts (counts of a previous run would add up otherwise), and
a worker that exits is marked dead."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any


def on_starting(server: Any) -> None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        Path(directory).mkdir(parents=True)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
