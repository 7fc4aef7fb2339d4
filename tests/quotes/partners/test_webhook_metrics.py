"""Webhook attempts are counted by outcome (``gpuquote_webhook_attempts_total``, /metrics)."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from quotes.tasks import WEBHOOK_MAX_RETRIES, deliver_webhook
from tests.quotes.partners.webhook_cases import HOOK, delivery_make, webhook_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns", "eager_retries")]


def _attempts(outcome: str) -> float:
    return REGISTRY.get_sample_value("gpuquote_webhook_attempts_total", {"outcome": outcome}) or 0


def test_retries_and_the_final_success_are_counted(receiver, acme):
    for status in (500, 204):
        receiver.expect_ordered_request(HOOK, method="POST").respond_with_data("", status=status)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))
    before = {outcome: _attempts(outcome) for outcome in ("succeeded", "retrying", "failed")}

    assert deliver_webhook.delay(delivery.pk).get() is True

    assert _attempts("retrying") == before["retrying"] + 1
    assert _attempts("succeeded") == before["succeeded"] + 1
    assert _attempts("failed") == before["failed"]


def test_a_delivery_given_up_counts_one_failure(receiver, acme):
    receiver.expect_request(HOOK, method="POST").respond_with_data("down", status=500)
    delivery = delivery_make(webhook_make(acme[0], receiver.url_for(HOOK)))
    retrying, failed = _attempts("retrying"), _attempts("failed")

    assert deliver_webhook.delay(delivery.pk).get() is False

    assert _attempts("failed") == failed + 1
    assert _attempts("retrying") == retrying + WEBHOOK_MAX_RETRIES
