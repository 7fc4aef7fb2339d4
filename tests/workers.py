"""Real processes for the integration and reliability tests: a Celery worker (subprocess, solo
pool) on the test database, gunicorn, a private redis-server, an HTTP server for a partner or a
feed, and ``wait_until``, the bounded poll every wait in the tests goes through. 127.0.0.1 only."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection
from pytest_httpserver import HTTPServer

BASE_DIR = Path(__file__).resolve().parents[1]
READY_TIMEOUT_S = 60

T = TypeVar("T")


class WaitTimeout(AssertionError):
    """What ``wait_until`` raises: a test that waited in vain fails (it does not error)."""


def worker_database_url(database_url: str) -> str:
    """``DATABASE_URL`` pointed at the test database pytest-django created."""
    return urlsplit(database_url)._replace(path=f"/{connection.settings_dict['NAME']}").geturl()


class LoggedProcess:
    """A subprocess run from the project's root, its stdout and stderr in ``log_path``: the tail
    of its output for failure messages, and a stop that ends it for sure."""

    output_chars = 4000

    def __init__(self, log_path: Path, command: list[str], *, env: Mapping[str, str]) -> None:
        self.log_path = log_path
        self.log = log_path.open("w")
        self.process = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-self.output_chars :]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()


def project_queues() -> list[str]:
    """Celery's default queue and every queue ``CELERY_TASK_ROUTES`` sends a task to."""
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    return sorted({"celery"} | routed)


class Worker(LoggedProcess):
    """``celery -A gpuquote worker --pool=solo`` on the test database (DATABASE_URL), consuming
    ``queue`` (None: every queue of the project, Celery's default and the routed ones, as
    ``make worker`` does)."""

    def __init__(
        self,
        log_path: Path,
        *,
        queue: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.queue = queue
        self.name = f"it-{uuid.uuid4().hex[:8]}@%h"
        environment = os.environ | {
            "DATABASE_URL": worker_database_url(os.environ["DATABASE_URL"]),
            "DB_CONN_MAX_AGE": "0",
        }
        environment |= dict(env or {})
        celery = Path(sys.executable).with_name("celery")
        command = [str(celery), "-A", "gpuquote", "worker", "--pool=solo"]
        command += ["--queues", queue or ",".join(project_queues())]
        command += [
            "--hostname",
            self.name,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=INFO",
        ]
        super().__init__(log_path, command, env=environment)
        wait_until(
            self._ready, timeout=READY_TIMEOUT_S, what="the worker to be ready", process=self
        )

    def _ready(self) -> bool:
        if self.process.poll() is not None:
            pytest.fail(f"the worker exited early:\n{self.output()}")
        return " ready." in self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, as when a host dies: no shutdown, no acknowledgement."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


class Beat(LoggedProcess):
    """``celery -A gpuquote beat`` with the project's schedule (CELERY_BEAT_SCHEDULE), kept in a
    file of the test's own (``celery.beat:PersistentScheduler``) rather than the test database:
    what beat sends is the same, and the test leaves no schedule rows behind."""

    def __init__(self, log_path: Path, *, env: Mapping[str, str]) -> None:
        celery = Path(sys.executable).with_name("celery")
        schedule = log_path.with_suffix(".schedule")
        command = [str(celery), "-A", "gpuquote", "beat", "--loglevel=INFO"]
        command += ["--scheduler", "celery.beat:PersistentScheduler", "--schedule", str(schedule)]
        super().__init__(log_path, command, env=env)


class Gunicorn(LoggedProcess):
    """gunicorn serving ``gpuquote.wsgi`` on a free 127.0.0.1 port (``workers`` processes x
    ``threads`` threads), waited for until /livez answers."""

    output_chars = 6000

    def __init__(
        self,
        log_path: Path,
        *,
        env: Mapping[str, str],
        workers: int,
        threads: int,
        config: str | None = None,
    ) -> None:
        self.port = free_port()
        gunicorn = Path(sys.executable).with_name("gunicorn")
        command = [str(gunicorn), "gpuquote.wsgi", "--bind", f"127.0.0.1:{self.port}"]
        command += ["--workers", str(workers), "--threads", str(threads)]
        if config:
            command += ["-c", config]
        super().__init__(log_path, command, env=env)
        wait_until(self._answers, timeout=READY_TIMEOUT_S, what="gunicorn", process=self)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _answers(self) -> bool:
        if self.process.poll() is not None:
            pytest.fail(f"gunicorn exited:\n{self.output()}")
        try:
            with urllib.request.urlopen(self.url("/livez"), timeout=2):  # noqa: S310
                return True
        except urllib.error.HTTPError:
            return True  # it answers
        except OSError:
            return False


def manage(env: Mapping[str, str], *args: str, timeout: float = 180) -> str:
    """``manage.py <args>`` run in a process of its own with ``env``; its stdout (the test
    fails with the tail of stderr when it does)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def free_port(first: int = 0) -> int:
    """A free 127.0.0.1 port: the first from ``first`` on (0: any the system picks)."""
    for port in range(first, first + 100) if first else [0]:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise RuntimeError(f"no free port from {first}")


class RedisServer:
    """A private redis-server on 127.0.0.1 (never the shared one): stopped and started again on
    the same port by the tests, in memory only."""

    def __init__(self, workdir: Path, port: int) -> None:
        self.workdir, self.port = workdir, port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def available() -> bool:
        return shutil.which("redis-server") is not None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._answers, timeout=10, what=f"redis-server on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


def wait_until(
    predicate: Callable[[], T | None],
    *,
    timeout: float = 30.0,
    interval: float = 0.1,
    what: str = "the condition",
    process: LoggedProcess | None = None,
) -> T:
    """Call ``predicate`` every ``interval`` seconds until it returns something true, and return
    that; past ``timeout`` seconds, raise ``WaitTimeout`` naming ``what`` was awaited (with the
    tail of ``process``'s output). A poll against a deadline: never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            output = f"\n{process.output()}" if process else ""
            raise WaitTimeout(f"timed out after {timeout:g} s waiting for {what}{output}")
        time.sleep(interval)


@contextmanager
def http_server() -> Iterator[HTTPServer]:
    """A threaded pytest-httpserver on 127.0.0.1 (a free port), cleared and stopped after."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()
