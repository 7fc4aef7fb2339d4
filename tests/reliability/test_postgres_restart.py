"""A real PostgreSQL restart under load: a private PostgreSQL instance of this test's own (never
the shared cluster), the app on it under gunicorn with persistent connections (DB_CONN_MAX_AGE)
and connection health checks (settings.DATABASES), ``pg_ctl restart -m fast`` while requests are
in flight. Requests sent once it accepts connections again all succeed: no worker keeps a dead
connection. Bounded waits and timeouts, 127.0.0.1 only. Skip rules: conftest.py, and PostgreSQL's
server binaries (initdb, pg_ctl) must be installed."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.workers import BASE_DIR, Gunicorn, free_port, wait_until

PAGE = "/readyz"  # runs a query on the process's own database connection
LOADERS = 4  # as many requests in flight as gunicorn has threads (2 processes x 2 threads)
MAX_REQUESTS = 2000  # per loader: a bound, never reached in practice
REQUEST_TIMEOUT_S = 10
LOAD_TIMEOUT_S = 30  # for the answers below to come in
MIN_ANSWERS_BEFORE_RESTART = 20  # the load is on before the restart...
MIN_SUCCESSES_AFTER_RESTART = 20  # ...and this many requests are answered once it is back
COMMAND_TIMEOUT_S = 60
DATABASE = "gpuquote"


def _postgres_bin_dir() -> Path | None:
    """The newest installed PostgreSQL's server binaries (Debian's layout), else the PATH's."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")]
    if found:
        return max(found, key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0)
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl and shutil.which("initdb") else None


def _runs_as_postgres_possible() -> bool:
    """PostgreSQL refuses to run as root: as root, it runs as the ``postgres`` user."""
    if os.geteuid() != 0:
        return True
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return shutil.which("runuser") is not None


BIN_DIR = _postgres_bin_dir()

pytestmark = pytest.mark.skipif(
    BIN_DIR is None or not _runs_as_postgres_possible(),
    reason="needs PostgreSQL's server binaries (initdb, pg_ctl) and, as root, a postgres user",
)


class PrivatePostgres:
    """A throw-away PostgreSQL cluster in a temporary directory: trust authentication, listening
    on 127.0.0.1 only (a free port), its socket in that directory, no fsync."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.port = free_port()
        # Not under pytest's tmp_path: root's /tmp/pytest-of-root is closed to the postgres user.
        self.base = Path(tempfile.mkdtemp(prefix="gpuquote-pg-"))
        self.data = self.base / "data"
        self.log_path = self.base / "postgres.log"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE}"
        if os.geteuid() == 0:
            shutil.chown(self.base, user="postgres", group="postgres")

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(
            command,
            cwd=self.base,  # the postgres user may not enter the project's directory
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"{tool} {' '.join(args)} failed:\n{done.stdout}{done.stderr}\n{self.output()}"
            )
        return done

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\n"
                f"port = {self.port}\n"
                f"unix_socket_directories = '{self.base}'\n"
                "fsync = off\n"
                "synchronous_commit = off\n"
                "full_page_writes = off\n"
            )
        self._pg_ctl("start")
        self.wait_ready()
        self.execute("postgres", f"CREATE DATABASE {DATABASE}")

    def _pg_ctl(self, action: str, *args: str) -> None:
        self._run(
            "pg_ctl", action, "-D", str(self.data), "-l", str(self.log_path), "-w", "-t", "30",
            *args,
        )  # fmt: skip

    def restart(self) -> None:
        """A fast shutdown (every session ended, as a deployment's restart does), then a start."""
        self._pg_ctl("restart", "-m", "fast")

    def wait_ready(self) -> None:
        wait_until(self._accepts, timeout=30, what=f"PostgreSQL on port {self.port}")

    def _accepts(self) -> bool:
        try:
            self.execute("postgres", "SELECT 1")
        except psycopg.Error:
            return False
        return True

    def execute(self, database: str, sql: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=database,
            connect_timeout=3, autocommit=True,
        ) as conn:  # fmt: skip
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def app_backend_pids(self, application_name: str) -> set[int]:
        """The sessions a server holds open on the app's database (its ``application_name``)."""
        rows = self.execute(
            "postgres",
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
            (DATABASE, application_name),
        )
        return {pid for (pid,) in rows}

    def stop(self) -> None:
        """``pg_ctl stop -m immediate``; the postmaster killed if that fails; the directory gone."""
        try:
            if (self.data / "postmaster.pid").exists():
                try:
                    self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w")
                except (pytest.fail.Exception, subprocess.TimeoutExpired):
                    self._kill_postmaster()
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def _kill_postmaster(self) -> None:
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # the postmaster this test started


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    assert BIN_DIR is not None
    server = PrivatePostgres(BIN_DIR)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def _app_env(database_url: str) -> dict[str, str]:
    """The environment of the existing gunicorn helpers, on the private database, keeping its
    connections between requests. No REDIS_URL: tasks run eager, the cache is per process (this
    test never touches the shared Redis)."""
    env = os.environ | {"DATABASE_URL": database_url, "DB_CONN_MAX_AGE": "600", "DEBUG": "true"}
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture
def start_server(private_postgres, tmp_path) -> Iterator[Callable[..., Gunicorn]]:
    """Migrates the private database, then starts gunicorn servers on it, each naming its
    sessions (``application_name``) to tell them apart in pg_stat_activity."""
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=BASE_DIR,
        env=_app_env(private_postgres.url),
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S * 2,
        check=False,
    )
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    servers: list[Gunicorn] = []

    def start(name: str, *, workers: int, threads: int) -> Gunicorn:
        env = _app_env(f"{private_postgres.url}?application_name={name}")
        server = Gunicorn(tmp_path / f"{name}.log", env=env, workers=workers, threads=threads)
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


@dataclass(frozen=True, slots=True)
class Answer:
    sent_at: float  # time.monotonic()
    done_at: float
    status: int  # 0: no HTTP answer (connection refused or reset, timeout)


def _get(server: Gunicorn, path: str) -> Answer:
    sent_at = time.monotonic()
    try:
        with urllib.request.urlopen(server.url(path), timeout=REQUEST_TIMEOUT_S) as answer:  # noqa: S310
            answer.read()
            return Answer(sent_at, time.monotonic(), answer.status)
    except urllib.error.HTTPError as answer:
        return Answer(sent_at, time.monotonic(), answer.code)
    except OSError:
        return Answer(sent_at, time.monotonic(), 0)


def test_requests_after_a_real_postgresql_restart_succeed(private_postgres, start_server):
    # "loaded": under load through the restart. "idle": one process, one thread, its connection
    # unused through the restart: its first request after it finds that connection dead, which
    # only the health check (CONN_HEALTH_CHECKS) turns into a new connection instead of a 500.
    loaded = start_server("loaded", workers=2, threads=2)
    idle = start_server("idle", workers=1, threads=1)
    with ThreadPoolExecutor(max_workers=LOADERS) as pool:
        warm = list(pool.map(lambda _: _get(loaded, PAGE).status, range(LOADERS * 4)))
    assert warm == [200] * (LOADERS * 4), loaded.output()
    assert _get(idle, PAGE).status == 200, idle.output()
    loaded_before = private_postgres.app_backend_pids("loaded")
    idle_before = private_postgres.app_backend_pids("idle")
    # The persistent connections (DB_CONN_MAX_AGE) the restart will end.
    assert loaded_before, "the app keeps no connection open"
    assert len(idle_before) == 1, idle_before

    answers: list[Answer] = []
    stop = threading.Event()

    def load() -> None:
        for _ in range(MAX_REQUESTS):
            if stop.is_set():
                return
            answers.append(_get(loaded, PAGE))

    loaders = [threading.Thread(target=load, daemon=True) for _ in range(LOADERS)]
    for loader in loaders:
        loader.start()
    try:
        wait_until(
            lambda: len(answers) >= MIN_ANSWERS_BEFORE_RESTART,
            timeout=LOAD_TIMEOUT_S,
            what=f"{MIN_ANSWERS_BEFORE_RESTART} answers under load",
            process=loaded,
        )
        restart_began = time.monotonic()
        private_postgres.restart()
        private_postgres.wait_ready()
        back_at = time.monotonic()
        idle_after = [_get(idle, PAGE).status for _ in range(3)]
        wait_until(
            lambda: sum(a.sent_at >= back_at for a in answers) >= MIN_SUCCESSES_AFTER_RESTART,
            timeout=LOAD_TIMEOUT_S,
            what=f"{MIN_SUCCESSES_AFTER_RESTART} answers to requests sent after the restart",
            process=loaded,
        )
    finally:
        stop.set()
        for loader in loaders:
            loader.join(timeout=REQUEST_TIMEOUT_S + 5)
    assert not any(loader.is_alive() for loader in loaders), "a request hung"

    before_restart = [a for a in answers if a.done_at < restart_began]
    after_restart = [a for a in answers if a.sent_at >= back_at]
    # In flight during the restart: may fail, but cleanly (an answer or a closed connection).
    during = [a for a in answers if a.done_at >= restart_began and a.sent_at < back_at]
    failed_after = [a for a in after_restart if a.status != 200]
    slowest = max(a.done_at - a.sent_at for a in answers)
    summary = (
        f"{len(answers)} requests under load: {len(before_restart)} before the restart, "
        f"{len(during)} during it ({sum(a.status != 200 for a in during)} failed), "
        f"{len(after_restart)} after it ({len(failed_after)} failed: "
        f"{sorted({a.status for a in failed_after})}); the restart took "
        f"{back_at - restart_began:.2f} s; the idle server answered {idle_after}; the slowest "
        f"request took {slowest:.2f} s"
    )
    # Never hung: every request had its answer (or a closed connection) before its timeout.
    assert slowest < REQUEST_TIMEOUT_S, summary
    assert before_restart, summary
    assert all(a.status == 200 for a in before_restart), summary
    assert not failed_after, f"{summary}\n{loaded.output()}"
    assert len(after_restart) >= MIN_SUCCESSES_AFTER_RESTART, summary
    assert idle_after == [200] * 3, f"{summary}\n{idle.output()}"

    # The sessions held before the restart are gone; the servers hold new ones.
    loaded_after = private_postgres.app_backend_pids("loaded")
    idle_after_pids = private_postgres.app_backend_pids("idle")
    assert loaded_after, summary
    assert not (loaded_after & loaded_before), (loaded_before, loaded_after)
    assert len(idle_after_pids) == 1, idle_after_pids
    assert not (idle_after_pids & idle_before), (idle_before, idle_after_pids)
