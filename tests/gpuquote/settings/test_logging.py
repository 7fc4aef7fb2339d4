"""Logs and error reports (README, "Logs and error reports"): JSON lines, the request id from the
request into its Celery tasks, Sentry only with a DSN."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import uuid
from io import StringIO
from logging.config import dictConfig
from pathlib import Path
from typing import Any

import pytest
import sentry_sdk
from celery.signals import before_task_publish
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django_guid import clear_guid, get_guid, set_guid

from gpuquote.celery import app
from gpuquote.ops.sentry import sentry_init, traces_sample_rate
from gpuquote.settings.logging import RequestIdFilter, log_format, log_level, logging_config

ROOT = Path(__file__).resolve().parents[3]
HEADER = "X-Request-ID"
LOGGER = "tests.logging"
log = logging.getLogger(LOGGER)

# --- A view that logs and enqueues a task, served from this module (ROOT_URLCONF) -----------------

seen_in_tasks: list[str | None] = []


@app.task(name="tests.logging.note_request_id")
def note_request_id() -> None:
    seen_in_tasks.append(get_guid())
    log.info("in the task")


def logs_and_enqueues(request: HttpRequest) -> HttpResponse:
    log.info("before the task")
    note_request_id.delay()
    log.info("after the task")
    return HttpResponse("ok")


urlpatterns = [path("logs-and-enqueues", logs_and_enqueues)]


@pytest.fixture
def logging_view(settings):
    settings.ROOT_URLCONF = __name__
    seen_in_tasks.clear()


@pytest.fixture
def request_ids(caplog):
    """The request id of each record this module's logger writes (the console handler's filter,
    put on pytest's capture handler)."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    id_filter = RequestIdFilter()
    caplog.handler.addFilter(id_filter)
    yield lambda: [(r.getMessage(), r.request_id) for r in caplog.records if r.name == LOGGER]
    caplog.handler.removeFilter(id_filter)


@pytest.fixture
def no_request_id():
    clear_guid()
    yield
    clear_guid()


# --- (1) The JSON format --------------------------------------------------------------------------


def _json_lines(config: dict[str, Any], emit) -> list[dict[str, Any]]:
    """What ``emit`` logs through ``config``'s console handler, one parsed object per line."""
    stream = StringIO()
    config = {**config, "handlers": {"console": {**config["handlers"]["console"]}}}
    config["handlers"]["console"]["stream"] = stream
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        dictConfig(config)
        emit()
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:], root.level = saved
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_format_writes_one_object_a_line_with_the_request_id(no_request_id):
    config = logging_config(json=True, level="info")
    request_id = uuid.uuid4().hex

    def emit() -> None:
        set_guid(request_id)
        log.warning("quote %s sent", "Q-1", extra={"request": object()})
        try:
            raise ValueError("no price")
        except ValueError:
            log.exception("failed")

    first, second = _json_lines(config, emit)

    assert first == {
        "level": "WARNING",
        "logger": LOGGER,
        "message": "quote Q-1 sent",
        "request_id": request_id,
        "timestamp": first["timestamp"],
    }  # the request object Django attaches is left out
    assert first["timestamp"].endswith("+00:00")
    assert second["level"] == "ERROR"
    assert second["request_id"] == request_id
    assert "ValueError: no price" in second["exc_info"]


def test_outside_a_request_the_id_is_null_in_json_and_a_dash_in_plain(no_request_id):
    (line,) = _json_lines(logging_config(json=True, level="INFO"), lambda: log.warning("start"))
    assert line["request_id"] is None

    plain = logging_config(json=False, level="INFO")
    assert plain["handlers"]["console"]["formatter"] == "plain"
    record = logging.LogRecord(LOGGER, logging.WARNING, __file__, 1, "start", None, None)
    assert RequestIdFilter().filter(record)
    assert (
        logging.Formatter(plain["formatters"]["plain"]["format"])
        .format(record)
        .endswith(f"WARNING {LOGGER} [-] start")
    )


def test_every_profile_keeps_the_axes_rule_and_the_existing_loggers():
    for json_format in (True, False):
        config = logging_config(json=json_format, level="INFO")
        assert config["disable_existing_loggers"] is False
        assert config["loggers"]["axes"] == {"level": "WARNING"}
        assert config["handlers"]["console"]["filters"] == ["request_id"]


# --- (2) A request gets an id, logs with it, returns it -------------------------------------------


@pytest.mark.django_db
def test_a_request_logs_with_its_id_and_returns_it(client, logging_view, request_ids, eager_celery):
    response = client.get("/logs-and-enqueues")

    request_id = response[HEADER]
    assert len(request_id) == 32
    assert uuid.UUID(request_id)
    assert ("before the task", request_id) in request_ids()
    assert get_guid() is None  # nothing left behind for the next request on this thread


@pytest.mark.django_db
@pytest.mark.parametrize(
    "given", ["310cc99fc44345de85a722c4b7760f86", "a749cb99-2042-4864-a9cb-b524f9c1f1f9"]
)
def test_a_well_formed_incoming_id_is_kept_as_the_client_id_only(
    client, logging_view, request_ids, eager_celery, given
):
    response = client.get("/logs-and-enqueues", headers={HEADER: given})

    assert response["X-Client-Request-ID"] == given
    assert response[HEADER] != given
    assert uuid.UUID(response[HEADER])
    assert ("before the task", response[HEADER]) in request_ids()
    assert all(request_id != given for _message, request_id in request_ids())


@pytest.mark.django_db
@pytest.mark.parametrize(
    "given",
    [
        "a" * 500,
        "abc\ndef",
        "b9bfa7a7459e427caa9483e3edd021c" + "\n" + "x" * 30,
        "not-a-request-id",
        "'; DROP TABLE quotes;--",
    ],
)
def test_a_malformed_incoming_id_is_replaced(
    client, logging_view, request_ids, eager_celery, given
):
    response = client.get("/logs-and-enqueues", headers={HEADER: given})

    assert response[HEADER] != given
    assert "X-Client-Request-ID" not in response
    assert uuid.UUID(response[HEADER])
    assert ("before the task", response[HEADER]) in request_ids()


# --- (3) Into the Celery tasks the request enqueues -----------------------------------------------


@pytest.mark.django_db
def test_a_task_enqueued_by_a_request_runs_under_its_id(
    client, logging_view, request_ids, eager_celery
):
    response = client.get("/logs-and-enqueues")

    request_id = response[HEADER]
    assert seen_in_tasks == [request_id]
    # The task's own lines, and the request's after it: the eager task neither replaced the
    # request's id nor cleared it.
    assert request_ids() == [
        ("before the task", request_id),
        ("in the task", request_id),
        ("after the task", request_id),
    ]


def test_an_eager_task_outside_a_request_gets_an_id_of_its_own(no_request_id, eager_celery):
    seen_in_tasks.clear()

    note_request_id.delay()
    note_request_id.delay()

    first, second = seen_in_tasks
    assert first
    assert second
    assert first != second
    assert get_guid() is None


def test_a_queued_task_carries_the_id_in_its_message_headers(no_request_id):
    """What a worker reads back (django-guid's task_prerun): the id the publisher had."""
    request_id = uuid.uuid4().hex
    set_guid(request_id)
    headers: dict[str, Any] = {"task": note_request_id.name}

    before_task_publish.send(
        sender=note_request_id.name,
        body=((), {}, {}),
        exchange="",
        routing_key="celery",
        headers=headers,
        properties={},
        declare=[],
        retry_policy=None,
    )

    assert headers[HEADER] == request_id


# --- (4) Sentry only with a DSN -------------------------------------------------------------------


@pytest.mark.parametrize("dsn", [None, "", "   "])
def test_without_a_dsn_sentry_never_starts(dsn):
    assert sentry_init(dsn, environment="production", release=None) is False
    assert sentry_sdk.get_client().is_active() is False


SENTRY_PROBE = """
import json, sentry_sdk
from sentry_sdk.transport import Transport
from gpuquote.ops.sentry import sentry_init

class Nowhere(Transport):
    def capture_envelope(self, envelope):
        raise AssertionError("nothing is sent in this test")

started = sentry_init(
    "https://public@sentry.example.invalid/1", environment="staging", release="1.2.3",
    traces_rate=0.25, transport=Nowhere,
)
client = sentry_sdk.get_client()
print(json.dumps({
    "started": started,
    "active": client.is_active(),
    "pii": client.options["send_default_pii"],
    "environment": client.options["environment"],
    "release": client.options["release"],
    "traces": client.options["traces_sample_rate"],
    "integrations": sorted(client.integrations),
}))
"""


def test_with_a_dsn_sentry_starts_without_personal_data():
    """In a fresh interpreter: the SDK's Django and Celery integrations patch those libraries
    for the whole process, which the other tests of this one must not see."""
    result = subprocess.run(
        [sys.executable, "-c", SENTRY_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])

    assert seen["started"] is True
    assert seen["active"] is True
    assert seen["pii"] is False
    assert (seen["environment"], seen["release"], seen["traces"]) == ("staging", "1.2.3", 0.25)
    assert {"django", "celery"} <= set(seen["integrations"])


def test_sentry_events_carry_the_request_id(no_request_id):
    from gpuquote.ops.sentry import tag_request_id

    assert tag_request_id({"message": "x"}, {}) == {"message": "x"}
    set_guid("0" * 32)
    assert tag_request_id({"tags": {"a": "b"}}, {})["tags"] == {"a": "b", "request_id": "0" * 32}


# --- (5) Bad values stop the start, naming the setting --------------------------------------------


@pytest.mark.parametrize("value", ["xml", "JSONL", ""])
def test_an_unknown_log_format_names_log_format(value):
    with pytest.raises(ImproperlyConfigured, match=r"^LOG_FORMAT must be one of plain, json"):
        log_format(value)


def test_log_format_and_level_accept_any_case():
    assert (log_format(" JSON "), log_format("Plain")) == ("json", "plain")
    assert log_level("warning") == "WARNING"
    with pytest.raises(ImproperlyConfigured, match=r"^LOG_LEVEL must be one of"):
        log_level("LOUD")


@pytest.mark.parametrize("value", ["often", "-0.1", "1.5", "nan", "inf"])
def test_a_bad_traces_sample_rate_names_the_setting(value):
    with pytest.raises(ImproperlyConfigured, match=r"^SENTRY_TRACES_SAMPLE_RATE must be a number"):
        traces_sample_rate(value)


@pytest.mark.parametrize(("value", "rate"), [(None, 0.0), ("", 0.0), ("0", 0.0), ("0.1", 0.1)])
def test_traces_sample_rate_defaults_to_none_traced(value, rate):
    assert traces_sample_rate(value) == rate


@pytest.mark.django_db
@pytest.mark.parametrize(
    "given", ["\n" + "a" * 31, "{" + "a" * 32 + "}", "urn:uuid:" + "a" * 32, "+" + "a" * 31]
)
def test_only_plain_uuids_are_kept(client, logging_view, eager_celery, given):
    response = client.get("/logs-and-enqueues", headers={HEADER: given})

    assert response[HEADER] != given
