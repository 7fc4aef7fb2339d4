"""Error reports to Sentry, only when SENTRY_DSN is set: without it the SDK is never initialised,
so nothing is collected and nothing leaves the machine.

Called from the production settings (gpuquote/settings/prod.py). Personal data stays out
(``send_default_pii=False``: no cookies, user ids, IP addresses or request bodies); each event is
tagged with the request id, the same as the log lines of that request and its Celery tasks.
"""

from __future__ import annotations

from typing import Any

import sentry_sdk
from django.core.exceptions import ImproperlyConfigured
from django_guid import get_guid
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration


def traces_sample_rate(value: str | None) -> float:
    """``SENTRY_TRACES_SAMPLE_RATE``: the share of requests traced for performance, 0 (the
    default: errors only) to 1; anything else stops the start rather than being guessed at."""
    if value is None or not value.strip():
        return 0.0
    try:
        rate = float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"SENTRY_TRACES_SAMPLE_RATE must be a number from 0 to 1; got {value!r}"
        ) from exc
    if not 0.0 <= rate <= 1.0:  # also refuses nan
        raise ImproperlyConfigured(
            f"SENTRY_TRACES_SAMPLE_RATE must be a number from 0 to 1; got {value!r}"
        )
    return rate


def tag_request_id(event: Any, hint: Any) -> Any:
    """``before_send``: the request id as a tag, to go from a Sentry event to the log lines of
    the same request (or task). django-guid's own Sentry integration tags a scope that is
    discarded at once with sentry-sdk 2, hence this hook."""
    request_id = get_guid()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event


def sentry_init(
    dsn: str | None,
    *,
    environment: str,
    release: str | None,
    traces_rate: float = 0.0,
    **options: Any,
) -> bool:
    """Start the Sentry SDK when ``dsn`` is a non-empty string; return whether it started.
    ``options`` go to ``sentry_sdk.init`` as they are (tests pass a transport that sends
    nothing)."""
    if not isinstance(dsn, str) or not dsn.strip():
        return False
    sentry_sdk.init(
        dsn=dsn.strip(),
        environment=environment,
        release=release or None,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        traces_sample_rate=traces_rate,
        before_send=tag_request_id,
        **options,
    )
    return True
