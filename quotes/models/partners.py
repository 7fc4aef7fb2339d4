"""Partners of the REST API: their keys, webhooks, webhook deliveries and idempotency records.

A key is stored only as its SHA-256 (keys are 256-bit random, so a fast hash is enough: there is
nothing to brute-force); the public ``prefix`` finds the row. Webhook secrets must be readable
to sign, so they are stored as they are.
"""

from __future__ import annotations

import datetime
import secrets
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

WEBHOOK_EVENTS = ("quote.status_changed", "price.changed")


def webhook_secret_new() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def webhook_events_default() -> list[str]:
    return list(WEBHOOK_EVENTS)


class Partner(models.Model):
    """A reseller, MSP or AI platform using the API; it sees only its own quotes and webhooks."""

    name = models.CharField(_("name"), max_length=160, unique=True)
    contact_email = models.EmailField(_("contact e-mail"), blank=True)
    is_active = models.BooleanField(
        _("active"), default=True, help_text=_("Inactive partners' keys are all refused.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("partner")
        verbose_name_plural = _("partners")

    def __str__(self) -> str:
        return self.name


class ApiKey(models.Model):
    partner = models.ForeignKey(
        Partner, verbose_name=_("partner"), on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(_("name"), max_length=100, help_text=_("What the key is for."))
    prefix = models.CharField(_("prefix"), max_length=16, unique=True, editable=False)
    key_hash = models.CharField(_("key hash (SHA-256)"), max_length=64, editable=False)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        constraints = [
            models.CheckConstraint(
                condition=Q(key_hash__regex=r"^[0-9a-f]{64}$"),
                name="%(app_label)s_%(class)s_hash_is_sha256",
            )
        ]

    def __str__(self) -> str:
        return f"{self.partner} · {self.name} ({self.prefix}…)"

    def usable(self, now: datetime.datetime | None = None) -> bool:
        now = now or timezone.now()
        return (
            self.revoked_at is None
            and (self.expires_at is None or self.expires_at > now)
            and self.partner.is_active
        )


class Webhook(models.Model):
    partner = models.ForeignKey(
        Partner, verbose_name=_("partner"), on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(_("URL"), max_length=500)
    secret = models.CharField(
        _("signing secret"), max_length=80, default=webhook_secret_new, editable=False
    )
    events = models.JSONField(_("events"), default=webhook_events_default)
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")

    def __str__(self) -> str:
        return f"{self.partner} → {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")


class WebhookDelivery(models.Model):
    """One event for one webhook; its attempts are recorded one by one."""

    webhook = models.ForeignKey(
        Webhook, verbose_name=_("webhook"), on_delete=models.CASCADE, related_name="deliveries"
    )
    event_id = models.UUIDField(_("event id"), default=uuid.uuid4, editable=False)
    event_type = models.CharField(_("event"), max_length=40)
    payload = models.JSONField(_("payload"))
    status = models.CharField(
        _("status"), max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempt_count = models.PositiveSmallIntegerField(_("attempts"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "event_id"], name="%(app_label)s_%(class)s_unique_event"
            ),
            models.CheckConstraint(
                condition=Q(status__in=DeliveryStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} → {self.webhook_id} ({self.status})"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(
        WebhookDelivery,
        verbose_name=_("delivery"),
        on_delete=models.CASCADE,
        related_name="attempts",
    )
    number = models.PositiveSmallIntegerField(_("attempt"))
    attempted_at = models.DateTimeField(_("attempted at"), auto_now_add=True)
    response_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    error = models.CharField(_("error"), max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), default=0)

    class Meta:
        ordering = ["delivery", "number"]
        verbose_name = _("webhook attempt")
        verbose_name_plural = _("webhook attempts")
        constraints = [
            models.UniqueConstraint(
                fields=["delivery", "number"], name="%(app_label)s_%(class)s_unique_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.delivery_id} #{self.number}: {self.response_status or self.error}"


class IdempotencyRecord(models.Model):
    """``Idempotency-Key`` of a partner's POST: the same key and body give the same quote."""

    partner = models.ForeignKey(
        Partner, verbose_name=_("partner"), on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(_("idempotency key"), max_length=200)
    request_hash = models.CharField(_("request hash (SHA-256)"), max_length=64)
    quote = models.ForeignKey(
        "quotes.Quote", verbose_name=_("quote"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "key"], name="%(app_label)s_%(class)s_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.partner_id} {self.key}"
