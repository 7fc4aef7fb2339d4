"""The retention purges of the quotes app (quotes.retention) and their daily Celery tasks."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.utils import timezone

from quotes.models import (
    DeliveryStatus,
    IdempotencyRecord,
    Quote,
    WebhookAttempt,
    WebhookDelivery,
    WizardResult,
)
from quotes.retention import (
    abandoned_results_purge,
    idempotency_records_purge,
    webhook_deliveries_purge,
)
from quotes.tasks import (
    purge_abandoned_results,
    purge_idempotency_records,
    purge_webhook_deliveries,
)
from tests.factories import (
    partner_make,
    quote_make,
    quote_request_make,
    staff_user_make,
    stored_result_make,
    webhook_delivery_make,
    webhook_make,
)

pytestmark = pytest.mark.django_db


def _created_at(rows, when: dt.datetime) -> None:
    """Back- or forward-date rows whose ``created_at`` is set on insert (auto_now_add)."""
    for row in rows:
        type(row).objects.filter(pk=row.pk).update(created_at=when)


def _idempotency_record_make(key: str) -> IdempotencyRecord:
    partner = partner_make()
    quote = quote_make(origin="partner_api", partner=partner)
    return IdempotencyRecord.objects.create(
        partner=partner, key=key, request_hash="0" * 64, quote=quote
    )


# --- Idempotency records ------------------------------------------------------------------------


def test_idempotency_records_older_than_the_retention_are_purged(settings):
    settings.IDEMPOTENCY_RETENTION_HOURS = 24
    now = timezone.now()
    old = _idempotency_record_make("old")
    recent = _idempotency_record_make("recent")
    _created_at([old], now - dt.timedelta(hours=25))
    _created_at([recent], now - dt.timedelta(hours=23))

    assert idempotency_records_purge(now=now) == 1

    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]
    assert Quote.objects.count() == 2  # the quotes stay: only the replay window closes
    assert idempotency_records_purge(now=now) == 0


def test_idempotency_retention_is_a_setting(settings):
    now = timezone.now()
    record = _idempotency_record_make("two-days")
    _created_at([record], now - dt.timedelta(hours=48))
    settings.IDEMPOTENCY_RETENTION_HOURS = 72

    assert idempotency_records_purge(now=now) == 0
    assert idempotency_records_purge(now=now + dt.timedelta(hours=25)) == 1


# --- Webhook deliveries -------------------------------------------------------------------------


def test_only_finished_webhook_deliveries_older_than_the_retention_are_purged(settings):
    settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 90
    webhook = webhook_make(partner_make())
    old_succeeded = webhook_delivery_make(webhook, attempts=2)
    old_failed = webhook_delivery_make(webhook, attempts=9)
    old_pending = webhook_delivery_make(webhook, attempts=3)
    recent_succeeded = webhook_delivery_make(webhook)
    WebhookDelivery.objects.filter(pk__in=[old_succeeded.pk, recent_succeeded.pk]).update(
        status=DeliveryStatus.SUCCEEDED
    )
    WebhookDelivery.objects.filter(pk=old_failed.pk).update(status=DeliveryStatus.FAILED)
    now = timezone.now() + dt.timedelta(days=91)  # the deliveries above are 91 days old then
    _created_at([recent_succeeded], now - dt.timedelta(days=89))

    assert webhook_deliveries_purge(now=now) == 2

    assert set(WebhookDelivery.objects.values_list("pk", flat=True)) == {
        old_pending.pk,
        recent_succeeded.pk,
    }
    # The purged deliveries' attempts went with them; the pending one's are all kept.
    assert (
        list(WebhookAttempt.objects.values_list("delivery_id", flat=True)) == [old_pending.pk] * 3
    )
    assert webhook_deliveries_purge(now=now) == 0


# --- Abandoned wizard results -------------------------------------------------------------------


def test_abandoned_results_are_purged_and_results_a_request_or_quote_points_at_are_kept(settings):
    settings.ABANDONED_RESULT_RETENTION_DAYS = 90
    abandoned = stored_result_make()
    requested = stored_result_make()
    quote_request_make(result=requested)
    quoted = stored_result_make()  # a quote made from it without a request (e.g. a partner's)
    quote_make(
        user=staff_user_make(),
        snapshot={"source": "wizard_result", "result_token": quoted.token},
    )
    recent = stored_result_make()
    now = timezone.now() + dt.timedelta(days=91)
    _created_at([recent], now - dt.timedelta(days=89))

    assert abandoned_results_purge(now=now) == 1

    assert not WizardResult.objects.filter(pk=abandoned.pk).exists()
    assert set(WizardResult.objects.values_list("pk", flat=True)) == {
        requested.pk,
        quoted.pk,
        recent.pk,
    }
    assert abandoned_results_purge(now=now) == 0


def test_a_quote_without_a_result_token_keeps_no_result_and_deletes_none(settings):
    """Staff quotes have an empty snapshot: they neither keep nor break the purge."""
    settings.ABANDONED_RESULT_RETENTION_DAYS = 90
    quote_make(user=staff_user_make())
    abandoned = stored_result_make()

    assert abandoned_results_purge(now=timezone.now()) == 0
    assert abandoned_results_purge(now=timezone.now() + dt.timedelta(days=91)) == 1
    assert not WizardResult.objects.filter(pk=abandoned.pk).exists()
    assert Quote.objects.count() == 1


# --- Tasks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task",
    [purge_idempotency_records, purge_webhook_deliveries, purge_abandoned_results],
    ids=lambda task: task.name,
)
def test_each_purge_task_is_scheduled_daily(task):
    entries = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == task.name]
    assert entries == [{"task": task.name, "schedule": 24 * 60 * 60}]


def test_the_purge_tasks_delete_old_rows_and_can_run_twice():
    long_ago = timezone.now() - dt.timedelta(days=365)
    record = _idempotency_record_make("long-ago")
    delivery = webhook_delivery_make(webhook_make(partner_make()))
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=DeliveryStatus.SUCCEEDED)
    result = stored_result_make()
    _created_at([record, delivery, result], long_ago)

    assert purge_idempotency_records.delay().get() == 1
    assert purge_webhook_deliveries.delay().get() == 1
    assert purge_abandoned_results.delay().get() == 1
    assert purge_idempotency_records.delay().get() == 0
    assert purge_webhook_deliveries.delay().get() == 0
    assert purge_abandoned_results.delay().get() == 0
