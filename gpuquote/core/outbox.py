"""The transactional outbox: after-commit Celery jobs that a broker outage cannot lose.

``outbox_job_enqueue`` writes an ``OutboxJob`` row in the caller's transaction (so the job exists
exactly when the state change does) and queues the task once that transaction has committed.
The task is named by its registered name (a string; a task object is accepted too), so a service
enqueues its task without importing the tasks module that imports the service.
Each job is queued on its own: one that fails (the broker is down, or, in eager mode, the task
itself fails) is logged and never stops the jobs queued after it, nor fails the request.

Embedded mode (no broker: tasks run in-process, ``CELERY_TASK_ALWAYS_EAGER``) would run a queued
task inside the request that queued it. The tasks named in ``EMBEDDED_BACKGROUND_TASKS`` (webhook
deliveries: a partner's receiver may take seconds to answer) are therefore not queued after the
commit there: their jobs stay pending until ``outbox_jobs_drain``, run in a loop by
``manage.py drain_outbox`` (the process ``make run`` and gunicorn start beside the web server),
runs them. No request ever waits for a partner's receiver.

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
from celery.exceptions import Retry
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
    attempts: int


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
    if runs_in_background(name):
        return job  # left pending for the drain process (embedded mode), never run here

    def outbox_job_dispatch_after_commit() -> None:
        outbox_job_dispatch(job_id=job_id)

    # robust: whatever goes wrong here is logged; the caller's commit and the other jobs stand.
    transaction.on_commit(outbox_job_dispatch_after_commit, robust=True)
    return job


def tasks_run_in_process() -> bool:
    """Embedded mode: no broker, a queued task runs in the process that queues it."""
    from gpuquote.celery import app

    return bool(app.conf.task_always_eager)


def runs_in_background(task: str) -> bool:
    """Whether a job of this task waits for the drain process (``outbox_jobs_drain``) instead
    of running in the request that queued it: embedded mode, and a task named in
    ``settings.EMBEDDED_BACKGROUND_TASKS``. With a broker, every job goes to the workers."""
    return task in settings.EMBEDDED_BACKGROUND_TASKS and tasks_run_in_process()


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


def _background_job_run(*, job_id: int) -> bool:
    """Run one due background job in this process (the drain process); True if it ran.

    A task asking for a retry (Celery's ``Retry``, with its backoff countdown) keeps its job
    pending, due again after that countdown: ``created_at`` is moved to when the job is due,
    ``attempts`` counts the failed tries and is the task's ``retries`` at the next run (so
    its last try knows it is the last). Any other outcome marks the job queued (done)."""
    jobs = outbox_job_model()._default_manager
    job = cast("OutboxJobRow | None", jobs.filter(pk=job_id, dispatched_at=None).first())
    if job is None:
        return False
    try:
        _task_get(job.task).apply(tuple(job.args), job.kwargs, retries=job.attempts, throw=True)
    except Retry as retry:
        wait_s = retry.when if isinstance(retry.when, int | float) else OUTBOX_RETRY_AFTER_S
        jobs.filter(pk=job.pk).update(
            attempts=F("attempts") + 1,
            last_error=str(retry)[:ERROR_MAX_CHARS],
            created_at=timezone.now() + dt.timedelta(seconds=wait_s),
        )
        return True
    except Exception:
        # Its own records (delivery attempts, events) say how it failed; running it again would
        # not help.
        logger.exception("Outbox job %s (%s) failed in the drain process", job.pk, job.task)
    jobs.filter(pk=job.pk, dispatched_at=None).update(dispatched_at=timezone.now())
    return True


def outbox_jobs_drain(*, limit: int = OUTBOX_REDISPATCH_BATCH) -> int:
    """One pass of the embedded mode's drain process: run the due jobs of the background tasks
    (``EMBEDDED_BACKGROUND_TASKS``), oldest first, here and now. Returns how many ran.

    A job is marked queued only after its run, so a drain process stopped mid-run runs it
    again at its next start: at least once, as with a broker (the tasks are idempotent). Does
    nothing with a broker: the workers run every job."""
    if not tasks_run_in_process():
        return 0
    jobs = outbox_job_model()._default_manager
    due = jobs.filter(
        dispatched_at=None,
        task__in=settings.EMBEDDED_BACKGROUND_TASKS,
        created_at__lte=timezone.now(),
    ).order_by("created_at", "id")
    return sum(
        _background_job_run(job_id=job_id)
        for job_id in list(due.values_list("pk", flat=True)[:limit])
    )
