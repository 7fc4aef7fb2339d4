"""Health endpoints, from the cheapest to the most complete:

- ``/livez``: the process answers (no dependency; the load balancer's check).
- ``/readyz``: this process can serve: its own database connection runs a query and the cache
  answers (a rolling deploy waits for it).
- ``/healthz``: the whole service works (django-health-check): the database, the cache, the
  Celery broker, a worker that ran the heartbeat and beat that sent it, each within
  ``HEALTH_HEARTBEAT_MAX_AGE_SECONDS`` (``gpuquote.ops.heartbeat``). Embedded (tasks in-process)
  there is no broker, worker or beat to check: it says so.

Each answers JSON ``{"status": "ok" | "failing", "checks": {name: "ok" | reason}}``, 200 when
every check passes and 503 otherwise, never cached. A reason names what failed, never a
credential or an address."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterator
from typing import Any, ClassVar

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

from gpuquote.ops.heartbeat import BEAT_MARK, WORKER_MARK, mark_age_seconds

OK = "ok"
READYZ_KEY = "health:readyz"
READYZ_KEY_SECONDS = 60
EAGER = "tasks run in-process (embedded): no broker, worker or beat"


def _answer(checks: dict[str, str]) -> JsonResponse:
    healthy = all(value in (OK, EAGER) for value in checks.values())
    response = JsonResponse(
        {"status": "ok" if healthy else "failing", "checks": checks},
        status=200 if healthy else 503,
    )
    add_never_cache_headers(response)
    return response


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """This process's own database connection (kept between requests) and the shared cache."""
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = OK
    except DatabaseError:
        checks["database"] = "the database does not answer"
    # A write read back: the shared cache answers a failing Redis as an empty cache, without
    # raising (gpuquote.core.cache), so a read alone would always pass.
    try:
        cache.set(READYZ_KEY, OK, READYZ_KEY_SECONDS)
        answered = cache.get(READYZ_KEY) == OK
    except Exception:  # any other cache backend's connection error
        answered = False
    checks["cache"] = OK if answered else "the cache does not answer"
    return _answer(checks)


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker accepts a connection."""

    label: ClassVar[str] = "broker"
    timeout = datetime.timedelta(seconds=3)

    def run(self) -> None:
        from gpuquote.celery import app

        try:
            with app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, timeout=int(self.timeout.total_seconds()))
        except Exception as exc:  # kombu raises its transport's errors
            raise ServiceUnavailable("the broker does not answer") from exc


@dataclasses.dataclass
class _Heartbeat(HealthCheck):
    """A mark of ``gpuquote.ops.heartbeat`` no older than ``HEALTH_HEARTBEAT_MAX_AGE_SECONDS``."""

    label: ClassVar[str]
    mark: ClassVar[str]
    missing: ClassVar[str]

    def run(self) -> None:
        age = mark_age_seconds(self.mark)
        limit = settings.HEALTH_HEARTBEAT_MAX_AGE_SECONDS
        if age is None:
            raise ServiceUnavailable(self.missing)
        if age > limit:
            raise ServiceUnavailable(f"last seen {age:.0f} s ago (limit {limit} s)")


@dataclasses.dataclass
class WorkerAnswered(_Heartbeat):
    label: ClassVar[str] = "worker"
    mark: ClassVar[str] = WORKER_MARK
    missing: ClassVar[str] = "no worker has run the heartbeat"


@dataclasses.dataclass
class BeatRan(_Heartbeat):
    label: ClassVar[str] = "beat"
    mark: ClassVar[str] = BEAT_MARK
    missing: ClassVar[str] = "beat has not sent the heartbeat"


@dataclasses.dataclass
class DatabaseCheck(Database):
    label: ClassVar[str] = "database"


@dataclasses.dataclass
class CacheCheck(Cache):
    label: ClassVar[str] = "cache"


class HealthzView(HealthCheckView):
    """django-health-check's view, answering the JSON above whatever the Accept header (a
    monitor's ``curl`` sends ``*/*``, which the library answers with an HTML page)."""

    def get_checks(self) -> Iterator[HealthCheck]:
        yield DatabaseCheck()
        yield CacheCheck()
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            yield Broker()
            yield WorkerAnswered()
            yield BeatRan()

    def _checks(self) -> dict[str, str]:
        checks = {
            getattr(result.check, "label", repr(result.check)): (
                OK if result.error is None else result.error.message
            )
            for result in self.results
        }
        if settings.CELERY_TASK_ALWAYS_EAGER:
            checks["tasks"] = EAGER
        return checks

    def render_to_response_json(self, status: int) -> JsonResponse:
        return _answer(self._checks())

    def render_to_response(self, context: dict[str, Any], **response_kwargs: Any) -> JsonResponse:
        return _answer(self._checks())

    def render_to_response_text(self, status: int) -> JsonResponse:
        return _answer(self._checks())


healthz = require_GET(HealthzView.as_view())
