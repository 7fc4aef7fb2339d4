"""Embedded mode's drain process: ``manage.py drain_outbox`` runs the outbox jobs kept out of
the requests (webhook deliveries); ``make run`` and gunicorn's master start it beside the web
server and stop it with it."""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from gpuquote.celery import app
from gpuquote.core.outbox import outbox_job_enqueue, runs_in_background
from gpuquote.ops import gunicorn_conf
from quotes.models import OutboxJob
from quotes.tasks import deliver_webhook

pytestmark = pytest.mark.django_db

TASK = deliver_webhook.name


@pytest.fixture
def broker():
    """Tasks go to a broker (REDIS_URL set): nothing runs in-process."""
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = saved


@pytest.fixture
def ran(monkeypatch) -> list[tuple[int, ...]]:
    """The webhook delivery task's runs (its arguments), instead of real deliveries."""
    runs: list[tuple[int, ...]] = []

    def run(*args: int) -> bool:
        runs.append(args)
        return True

    monkeypatch.setattr(deliver_webhook, "run", run)
    return runs


def test_only_the_listed_tasks_wait_for_the_drain_and_only_in_embedded_mode(eager_celery, settings):
    settings.EMBEDDED_BACKGROUND_TASKS = [TASK]

    assert runs_in_background(TASK)
    assert not runs_in_background("quotes.send_quote_email")


def test_with_a_broker_every_job_is_queued_after_the_commit(broker, settings):
    settings.EMBEDDED_BACKGROUND_TASKS = [TASK]

    assert not runs_in_background(TASK)


def test_one_pass_runs_the_pending_jobs_once(eager_celery, ran, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        outbox_job_enqueue(task=TASK, args=[7])
        outbox_job_enqueue(task=TASK, args=[8])
    assert (callbacks, ran) == ([], [])  # nothing in the caller

    out = StringIO()
    call_command("drain_outbox", "--once", stdout=out)
    call_command("drain_outbox", "--once", stdout=StringIO())

    assert ran == [(7,), (8,)]
    assert "2 job(s) run." in out.getvalue()
    assert not OutboxJob.objects.filter(dispatched_at=None).exists()


def test_the_drain_process_stops_when_the_server_that_started_it_is_gone(
    eager_celery, ran, monkeypatch
):
    parents = iter([100, 100, 100, 1])  # the server's pid, then init's once it died
    monkeypatch.setattr("os.getppid", lambda: next(parents))
    monkeypatch.setattr("time.sleep", lambda _s: None)

    call_command("drain_outbox", "--interval", "0", stdout=StringIO())

    assert next(parents, "exhausted") == "exhausted"  # three passes, then it returned


def test_with_a_broker_the_drain_process_exits_at_once(broker, ran):
    OutboxJob.objects.create(task=TASK, args=[7])
    out = StringIO()

    call_command("drain_outbox", stdout=out)

    assert "Celery workers" in out.getvalue()
    assert ran == []
    assert OutboxJob.objects.filter(dispatched_at=None).count() == 1


def test_gunicorn_starts_one_drain_process_and_stops_it(monkeypatch):
    started: list[list[str]] = []

    class Process:
        pid = 4242
        stopped = False

        def __init__(self, command: list[str]) -> None:
            started.append(command)

        def poll(self) -> int | None:
            return 0 if self.stopped else None

        def terminate(self) -> None:
            self.stopped = True

        def wait(self, timeout: float) -> int:
            return 0

    monkeypatch.setattr(gunicorn_conf.subprocess, "Popen", Process)
    server = SimpleNamespace(log=SimpleNamespace(info=lambda *args: None))

    gunicorn_conf.when_ready(server)
    gunicorn_conf.on_exit(server)

    [command] = started
    assert command[-2:] == [str(gunicorn_conf.MANAGE_PY), "drain_outbox"]
    assert gunicorn_conf._drain is not None
    assert gunicorn_conf._drain.poll() == 0
