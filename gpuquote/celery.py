"""The Celery application: configured from Django settings (CELERY_* names).

Logs and request ids: workers and beat log through Django's LOGGING (JSON in production), and a
task runs under the request id of whatever enqueued it. django-guid's CeleryIntegration (settings,
DJANGO_GUID) passes the id in the task's headers; ``RequestIdTask`` does the same for tasks run
in-process (eager: development, GPUQUOTE_EMBEDDED=1), which publish no message.
"""

from __future__ import annotations

import contextvars
from contextvars import ContextVar
from typing import Any

from celery import Celery, Task
from celery.signals import setup_logging, task_prerun

from gpuquote.env import set_default_settings_module

# DJANGO_SETTINGS_MODULE, else production (or development with DEBUG=true).
set_default_settings_module()

# The id of the request (or task) that runs an eager task, for that task's own run.
_caller_request_id: ContextVar[str | None] = ContextVar("caller_request_id", default=None)


class RequestIdTask(Task):
    """Every task of the app. An eager task runs inside its caller, so django-guid's task signals
    would give it a new id and then clear the caller's (the rest of the request, its response's
    X-Request-ID included, would lose it). It runs in a copy of the caller's context instead,
    under the caller's id (see ``_eager_task_takes_the_caller_id``)."""

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        return contextvars.copy_context().run(self._apply_as_caller, args, kwargs)

    def _apply_as_caller(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        from django_guid import get_guid

        _caller_request_id.set(get_guid())
        return super().apply(*args, **kwargs)


@task_prerun.connect
def _eager_task_takes_the_caller_id(task: Task, **kwargs: Any) -> None:
    """For an eager task, what the before_task_publish header does for a queued one: the task's
    request gets the caller's id, which django-guid's own task_prerun then keeps (if it runs
    first, the id is set again here)."""
    caller = _caller_request_id.get()
    if not task.request.is_eager or caller is None:
        return
    from django_guid import get_guid, set_guid
    from django_guid.config import settings as guid_settings

    task.request.update({guid_settings.guid_header_name: caller})
    if get_guid() != caller:
        set_guid(caller)


@setup_logging.connect
def _workers_log_as_django_does(**kwargs: Any) -> None:
    """Any receiver here stops Celery's own logging setup, which would replace the root handler
    of workers and beat (and with it the JSON format and the request ids) by its own."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


app = Celery("gpuquote", task_cls=RequestIdTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The heartbeat behind /healthz (gpuquote.ops.heartbeat): the project package is not an app.
app.autodiscover_tasks(["gpuquote.ops"], related_name="heartbeat")

import gpuquote.ops.task_metrics  # noqa: E402, F401  (connects the task metrics' signals)
