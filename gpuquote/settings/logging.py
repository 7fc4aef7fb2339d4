"""The LOGGING dict, built by a function so that base.py (plain by default) and prod.py (JSON by
default) share one definition and tests can build either without reloading settings.

Every record carries ``request_id``: the id django-guid gives the request (or takes from a
plain-UUID ``X-Request-ID`` header: gpuquote.core.request_id), carried into the Celery tasks the
request enqueues; "-" (plain) or null (JSON) outside any request or task.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django_guid import get_guid

LOG_FORMATS = ("plain", "json")

PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
# JsonFormatter's field list: the values come from the record; ``rename_fields`` gives them the
# names the JSON lines carry. The timestamp (ISO 8601, UTC) is the formatter's own field, and an
# exception's traceback comes out as "exc_info" whenever the record has one.
JSON_FIELDS = ["levelname", "name", "message", "request_id"]
JSON_RENAMED = {"levelname": "level", "name": "logger"}
# Django's request loggers attach the request object itself: its text would print the query
# string (tokens, e-mail addresses) into every 4xx/5xx line. The message already names the path.
JSON_SKIPPED_EXTRAS = ("request",)


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record, or ``missing`` when none is set (code run
    outside a request or task: startup, management commands)."""

    def __init__(self, missing: str | None = "-") -> None:
        super().__init__()
        self.missing = missing

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = get_guid() or self.missing
        return True


def log_format(value: str) -> str:
    """``LOG_FORMAT`` checked, lower-cased: a typo must stop the start, not silently log plain
    text that the log pipeline then fails to parse."""
    word = value.strip().lower()
    if word not in LOG_FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT must be one of plain, json; got {value!r}")
    return word


def log_level(value: str) -> str:
    """``LOG_LEVEL`` checked, upper-cased (``info`` works): logging's own error on a bad level
    does not say which variable holds it."""
    word = value.strip().upper()
    if word not in logging.getLevelNamesMapping():
        raise ImproperlyConfigured(
            f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got {value!r}"
        )
    return word


def _json_formatter() -> dict[str, Any]:
    from pythonjsonlogger.core import RESERVED_ATTRS

    return {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "fmt": JSON_FIELDS,
        "rename_fields": JSON_RENAMED,
        "timestamp": True,
        "reserved_attrs": [*RESERVED_ATTRS, *JSON_SKIPPED_EXTRAS],
    }


def logging_config(*, json: bool, level: str) -> dict[str, Any]:
    """The LOGGING setting: one console handler (stderr; the platform collects it), in plain text
    for people or one JSON object per line for a log pipeline."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {
                "()": "gpuquote.settings.logging.RequestIdFilter",
                "missing": None if json else "-",
            }
        },
        "formatters": {
            "plain": {"format": PLAIN_FORMAT},
            "json": _json_formatter(),
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json" if json else "plain",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["console"], "level": log_level(level)},
        "loggers": {
            # django-axes logs every successful sign-in at INFO; failures, lockouts are WARNING.
            "axes": {"level": "WARNING"},
            # django-guid logs each id it makes or takes at INFO: a line per request and task.
            "django_guid": {"level": "WARNING"},
        },
    }
