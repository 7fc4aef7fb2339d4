"""Celery task metrics (``gpuquote_celery_tasks_total``, ``gpuquote_celery_task_duration_seconds``),
counted by Celery's task signals in the process that runs the task: a worker, or the web process
when tasks run in-process (embedded), whose ``/metrics`` then shows them.

A worker exports them on ``WORKER_METRICS_PORT`` (unset: not exported), bound to
``WORKER_METRICS_ADDRESS`` (default 127.0.0.1; a scraper on another host needs the host's
address). Prefork pool children count in ``PROMETHEUS_MULTIPROC_DIR``, which the worker's
exporter then reads: set it for workers, to an empty directory per worker (docs/operations.md)."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery.signals import task_failure, task_postrun, task_prerun, task_retry, worker_init
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

from gpuquote.core.metrics import CELERY_TASK_SECONDS, CELERY_TASKS

logger = logging.getLogger(__name__)

# task id -> when it started, in this process (a task runs in one process, start to end).
_started: dict[str, float] = {}


def _name(task: Any) -> str:
    return str(getattr(task, "name", None) or "unknown")


@task_prerun.connect(weak=False)
def _task_started(task_id: str = "", **_kwargs: Any) -> None:
    _started[task_id] = time.perf_counter()


@task_postrun.connect(weak=False)
def _task_ended(task_id: str = "", task: Any = None, state: str = "", **_kwargs: Any) -> None:
    started = _started.pop(task_id, None)
    if started is not None:
        CELERY_TASK_SECONDS.labels(_name(task)).observe(time.perf_counter() - started)
    if state == "SUCCESS":
        CELERY_TASKS.labels(_name(task), "succeeded").inc()


@task_failure.connect(weak=False)
def _task_failed(sender: Any = None, **_kwargs: Any) -> None:
    CELERY_TASKS.labels(_name(sender), "failed").inc()


@task_retry.connect(weak=False)
def _task_retried(sender: Any = None, **_kwargs: Any) -> None:
    CELERY_TASKS.labels(_name(sender), "retried").inc()


def metrics_registry() -> CollectorRegistry:
    """Every process's metrics under prometheus-client's multiprocess mode, else this one's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


@worker_init.connect(weak=False)
def _exporter_start(**_kwargs: Any) -> None:
    from django.conf import settings

    port = settings.WORKER_METRICS_PORT
    if port:
        address = settings.WORKER_METRICS_ADDRESS
        start_http_server(port, addr=address, registry=metrics_registry())
        logger.info("Celery metrics on http://%s:%s/metrics", address, port)
