"""Reads of partner webhooks and their deliveries."""

from __future__ import annotations

from django.db.models import QuerySet

from quotes.models import Partner, Webhook, WebhookDelivery


def webhook_queryset(*, partner: Partner | None) -> QuerySet[Webhook]:
    """The webhooks a caller may see: its own for a partner, all of them for staff (None)."""
    webhooks = Webhook.objects.select_related("partner")
    return webhooks if partner is None else webhooks.filter(partner=partner)


def webhook_deliveries_queryset(*, webhook: Webhook) -> QuerySet[WebhookDelivery]:
    """A webhook's deliveries, newest first, each with its attempts in order (one query more)."""
    return (
        WebhookDelivery.objects.filter(webhook=webhook)
        .order_by("-created_at", "-id")
        .prefetch_related("attempts")
    )
