"""Webhooks and deliveries made for the webhook tests, the API's webhook paths, and the
attempts a delivery recorded.

Webhooks are created with the ORM: the https-only rule of production (DEBUG off, as under
pytest) is the registration's, tested through the API.
"""

from __future__ import annotations

from django.urls import reverse

from quotes.models import Partner, Webhook, WebhookAttempt, WebhookDelivery
from quotes.partners.webhooks.events import webhook_event_emit

HOOK = "/hook"
WEBHOOKS = reverse("api:webhooks")


def detail_url(webhook: Webhook) -> str:
    return reverse("api:webhook", kwargs={"webhook_id": webhook.pk})


def deliveries_url(webhook: Webhook) -> str:
    return reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk})


def ping_url(webhook: Webhook) -> str:
    return reverse("api:webhook-ping", kwargs={"webhook_id": webhook.pk})


def webhook_make(partner: Partner, url: str, **fields) -> Webhook:
    return Webhook.objects.create(partner=partner, url=url, **fields)


def delivery_make(webhook: Webhook, **fields) -> WebhookDelivery:
    return webhook_event_emit(
        partner_ids=[webhook.partner_id],
        event_type=fields.pop("event_type", "quote.status_changed"),
        data=fields.pop("data", {"quote_id": 1}),
    )[0]


def attempts(delivery: WebhookDelivery) -> list[tuple[int, int | None, str]]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("number", "response_status", "error")
    )
