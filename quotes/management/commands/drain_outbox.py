"""Embedded mode's background process: runs the outbox jobs kept out of the requests (webhook
deliveries, ``EMBEDDED_BACKGROUND_TASKS``) every ``--interval`` seconds until stopped.

``make run`` starts it beside runserver, and gunicorn's master (``gpuquote.ops.gunicorn_conf``)
beside its workers; each stops it when it stops. It also stops by itself when the process that
started it is gone (its parent changed), so a server killed without clean-up leaves no orphan.
With a broker (REDIS_URL) it exits at once: the Celery workers run every job.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, close_old_connections, connection

from gpuquote.core.outbox import outbox_jobs_drain, tasks_run_in_process

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Embedded mode: run the outbox jobs kept out of the requests (webhook deliveries) "
        "every --interval seconds until stopped; --once runs one pass."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between passes")
        parser.add_argument("--once", action="store_true", help="one pass, then exit")

    def handle(self, *args: Any, interval: float, once: bool, **options: Any) -> None:
        if not tasks_run_in_process():
            self.stdout.write("Tasks go to the broker (REDIS_URL): the Celery workers run them.")
            return
        parent = os.getppid()
        tasks = ", ".join(settings.EMBEDDED_BACKGROUND_TASKS) or "none"
        self.stdout.write(f"Draining the outbox every {interval:g} s (tasks: {tasks}).")
        while True:
            if not connection.in_atomic_block:  # (a test's transaction keeps its connection)
                close_old_connections()  # a long-lived process: drop a connection the server closed
            try:
                ran = outbox_jobs_drain()
            except DatabaseError:
                # SQLite busy, PostgreSQL restarting: the jobs stay pending for the next pass.
                logger.exception("Outbox drain pass failed; trying again in %s s", interval)
                ran = 0
            if once:
                self.stdout.write(f"{ran} job(s) run.")
                return
            if os.getppid() != parent:
                return  # the server that started this process is gone
            if not ran:
                time.sleep(interval)
