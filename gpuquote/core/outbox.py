"""The transactional outbox: after-commit Celery jobs that a broker outage cannot lose.

``outbox_job_enqueue`` writes an ``OutboxJob`` row in the caller's transaction (so the job exists
exactly when the state change does) and queues the task once that transaction has committed.
The task is named by its registered name (a string; a task object is accepted too), so a service
enqueues its task without importing the tasks module that imports the service.
Each job is queued on its own: one that fails (the broker is down, or, in eager mode, the task
itself fails) is logged and never stops the jobs queued after it, nor fails the request.

A job the broker refused stays pending; ``outbox_jobs_redispatch`` (the periodic task
``quotes.outbox_redispatch``, in ``settings.CELERY_BEAT_SCHEDULE``) queues it again until the
broker takes it. A job may therefore be queued twice (the after-commit queuing and the
re-dispatch racing): every task queued through here is idempotent.

Both apps enqueue through here, so the module lives in the shared core; the ``OutboxJob`` model
stays in the quotes app's migration history and is looked up by name (``OUTBOX_JOB_MODEL``, like
``AUTH_USER_MODEL``) when a job is written: nothing here imports an app.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol, cast

from celery import Task
from django.apps import apps
from django.conf import settings
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

OUTBOX_RETRY_AFTER_S = 60  # a job still pending this long after its commit is queued again
OUTBOX_KEEP = dt.timedelta(days=7)  # queued jobs are deleted after this long
OUTBOX_REDISPATCH_BATCH = 500  # at most this many jobs per re-dispatch run
ERROR_MAX_CHARS = 500  # OutboxJob.last_error's length
# What the broker raises when it cannot take a message (Celery re-raises the transport's
# connection errors as kombu's OperationalError); the job stays pending.
BROKER_ERRORS = (OperationalError, ConnectionError, TimeoutError)

Outcome = Literal["queued", "broker_unavailable", "gone"]
OUTBOX_JOB_MODEL = "quotes.OutboxJob"  # the default of the OUTBOX_JOB_MODEL setting


class OutboxJobRow(Protocol):
    """The fields of the outbox model (``OUTBOX_JOB_MODEL``) that dispatching reads."""

    pk: Any
    task: str
    args: list[Any]
    kwargs: dict[str, Any]


def outbox_job_model() -> type[models.Model]:
    """The outbox's table (``settings.OUTBOX_JOB_MODEL``, "app_label.ModelName")."""
    return apps.get_model(getattr(settings, "OUTBOX_JOB_MODEL", OUTBOX_JOB_MODEL))


def outbox_job_enqueue(
    *, task: str | Task, args: Iterable[Any] = (), kwargs: Mapping[str, Any] | None = None
) -> models.Model:
    """Record ``task(*args, **kwargs)`` in the current transaction; queue it after the commit.
    ``task`` is the task's registered name (or the task). Arguments must be JSON values (ids,
    not objects)."""
    name = task if isinstance(task, str) else task.name
    jobs = outbox_job_model()._default_manager
    job = jobs.create(task=name, args=list(args), kwargs=dict(kwargs or {}))
    job_id = job.pk

    def outbox_job_dispatch_after_commit() -> None:
        outbox_job_dispatch(job_id=job_id)

    # robust: whatever goes wrong here is logged; the caller's commit and the other jobs stand.
    transaction.on_commit(outbox_job_dispatch_after_commit, robust=True)
    return job


def _task_get(name: str) -> Task:
    from gpuquote.celery import app

    if name not in app.tasks:
        # A web process imports the apps' task modules only when Celery's loader does (a
        # worker does at start): without this, a job whose module nothing else imported would
        # be looked up in vain, logged as failed and never run.
        app.loader.import_default_modules()
    return app.tasks[name]


def outbox_job_dispatch(*, job_id: int) -> Outcome:
    """Hand a pending job to the broker and mark it queued; a refusal is recorded on the job."""
    jobs = outbox_job_model()._default_manager
    # The model is looked up by name, so its fields are known only as the protocol says.
    job = cast("OutboxJobRow | None", jobs.filter(pk=job_id, dispatched_at=None).first())
    if job is None:
        return "gone"  # queued already (or deleted)
    try:
        _task_get(job.task).apply_async(tuple(job.args), job.kwargs, ignore_result=True)
    except BROKER_ERRORS as error:
        jobs.filter(pk=job.pk).update(
            attempts=F("attempts") + 1, last_error=str(error)[:ERROR_MAX_CHARS]
        )
        logger.warning("Outbox job %s (%s) not queued, kept for later: %s", job.pk, job.task, error)
        return "broker_unavailable"
    except Exception:
        # Eager mode (embedded, tests) ran the task right here and it failed: it ran, and its
        # own records (delivery attempts, events) say how; queuing it again would not help.
        logger.exception("Outbox job %s (%s) failed while running in-process", job.pk, job.task)
    jobs.filter(pk=job.pk, dispatched_at=None).update(dispatched_at=timezone.now())
    return "queued"


def outbox_jobs_redispatch(*, older_than_s: int = OUTBOX_RETRY_AFTER_S) -> int:
    """Queue again the jobs still pending ``older_than_s`` after they were written (oldest
    first; stops at the first broker refusal) and delete queued jobs older than
    ``OUTBOX_KEEP``. Returns how many jobs were queued."""
    jobs = outbox_job_model()._default_manager
    now = timezone.now()
    jobs.filter(dispatched_at__lt=now - OUTBOX_KEEP).delete()
    pending = jobs.filter(
        dispatched_at=None, created_at__lte=now - dt.timedelta(seconds=older_than_s)
    ).order_by("created_at", "id")
    queued = 0
    for job_id in list(pending.values_list("pk", flat=True)[:OUTBOX_REDISPATCH_BATCH]):
        outcome = outbox_job_dispatch(job_id=job_id)
        if outcome == "broker_unavailable":
            break  # still down: the next run tries again
        queued += outcome == "queued"
    return queued
