"""Prices held for review: a feed price that moved too much waits for staff to approve it."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.choices import COMMITMENT_CHOICES
from catalog.models.feeds import PriceRefreshRun, PriceSource
from catalog.models.parts import Part
from catalog.models.prices import CloudPrice, Price, PriceKind
from engine.money import CURRENCIES


class ReviewStatus(models.TextChoices):
    PENDING = "pending", _("Awaiting review")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class StaffReviewed(models.Model):
    """What a staff review records on a row held for it (a quarantined price, a proposed
    electricity price): the decision, when and by whom."""

    status = models.CharField(
        _("status"), max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        abstract = True


class QuarantinedPrice(StaffReviewed):
    """A feed price that moved more than PRICE_QUARANTINE_CHANGE_PCT: held for staff review.

    It names either a part price (``part`` + ``price_kind``) or a cloud price (``gpu_model`` +
    ``commitment`` + ``provider``). Approving records it through the same services as a feed.
    """

    source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="+"
    )
    run = models.ForeignKey(
        PriceRefreshRun, verbose_name=_("run"), on_delete=models.PROTECT, related_name="+"
    )
    row = models.PositiveIntegerField(_("feed row"))
    part = models.ForeignKey(
        Part,
        verbose_name=_("part"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    price_kind = models.CharField(
        _("price kind"), max_length=16, choices=PriceKind.choices, blank=True
    )
    gpu_model = models.CharField(_("GPU model key"), max_length=32, blank=True)
    commitment = models.CharField(
        _("commitment"), max_length=16, choices=COMMITMENT_CHOICES, blank=True
    )
    provider = models.CharField(_("provider"), max_length=64, blank=True)
    amount = models.DecimalField(_("new amount"), max_digits=14, decimal_places=4)
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    previous_amount = models.DecimalField(_("current amount"), max_digits=14, decimal_places=4)
    previous_observed_on = models.DateField(_("current price date"))
    source_detail = models.TextField(_("price source"), help_text=_("Stored with the price."))
    created_at = models.DateTimeField(_("held at"), auto_now_add=True)
    price = models.ForeignKey(
        Price,
        verbose_name=_("recorded price"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    cloud_price = models.ForeignKey(
        CloudPrice,
        verbose_name=_("recorded cloud price"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["status", "-created_at", "-id"]
        verbose_name = _("quarantined price")
        verbose_name_plural = _("quarantined prices")
        constraints = [
            models.CheckConstraint(
                condition=(Q(part__isnull=False) & Q(gpu_model="") & ~Q(price_kind=""))
                | (Q(part__isnull=True) & ~Q(gpu_model="") & ~Q(commitment="")),
                name="%(app_label)s_%(class)s_part_or_cloud",
            ),
            models.CheckConstraint(
                condition=Q(status__in=ReviewStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
            models.CheckConstraint(
                condition=Q(amount__gte=0), name="%(app_label)s_%(class)s_amount_gte_0"
            ),
            models.UniqueConstraint(
                fields=["part", "price_kind", "currency", "observed_on", "amount"],
                condition=Q(status="pending", part__isnull=False),
                name="%(app_label)s_%(class)s_one_pending_part_price",
            ),
            models.UniqueConstraint(
                fields=["gpu_model", "commitment", "provider", "currency", "observed_on", "amount"],
                condition=Q(status="pending", part__isnull=True),
                name="%(app_label)s_%(class)s_one_pending_cloud_price",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} {self.amount} {self.currency} ({self.get_status_display()})"

    @property
    def subject(self) -> str:
        if self.part is not None:
            return f"{self.part.sku} {self.price_kind}"
        who = f" {self.provider}" if self.provider else ""
        return f"{self.gpu_model} {self.commitment}{who}"

    @property
    def change_pct(self) -> Decimal | None:
        if not self.previous_amount:
            return None
        return (self.amount - self.previous_amount) * 100 / self.previous_amount
