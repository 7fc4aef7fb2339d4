"""Observed prices: a part's purchase or managed-hosting price, a cloud price per GPU-hour.

Prices are history: a new price is a new row and nothing is overwritten; the current price is a
query (``catalog.selectors``), not a copied field.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.feeds.types import Commitment
from catalog.models.choices import COMMITMENT_CHOICES
from catalog.models.feeds import PriceSource
from catalog.models.parts import Part
from engine.money import CURRENCIES
from gpuquote.core.choices import values_of


class PriceKind(models.TextChoices):
    PURCHASE = "purchase", _("Purchase")
    MANAGED_MONTHLY = "managed_monthly", _("Managed hosting, per month")


class Price(models.Model):
    """One observed price of a part. Rows are never updated: a new price is a new row."""

    part = models.ForeignKey(
        Part, verbose_name=_("part"), on_delete=models.PROTECT, related_name="prices"
    )
    price_kind = models.CharField(_("price kind"), max_length=16, choices=PriceKind.choices)
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    source = models.TextField(_("source"), help_text=_("Quote, price list or URL."))
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["part", "price_kind", "currency", "-observed_on", "-id"]
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        indexes = [
            models.Index(
                fields=["part", "price_kind", "currency", "-observed_on", "-id"],
                name="catalog_price_current_idx",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0), name="%(app_label)s_%(class)s_amount_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES), name="%(app_label)s_%(class)s_currency_known"
            ),
            models.CheckConstraint(
                condition=Q(price_kind__in=PriceKind.values),
                name="%(app_label)s_%(class)s_price_kind_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part} {self.amount} {self.currency} ({self.observed_on})"


class CloudPrice(models.Model):
    """One observed cloud price per GPU-hour. History: a new price is a new row."""

    gpu_model = models.CharField(
        _("GPU model key"),
        max_length=32,
        help_text=_("As engine.assumptions.gpu_model_key."),
    )
    commitment = models.CharField(_("commitment"), max_length=16, choices=COMMITMENT_CHOICES)
    provider = models.CharField(_("provider"), max_length=64, blank=True)
    price_per_gpu_hour = models.DecimalField(
        _("price per GPU-hour"), max_digits=10, decimal_places=4
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    observed_on = models.DateField(_("price date"))
    source = models.TextField(_("source"), help_text=_("Price page or list, with its URL."))
    price_source = models.ForeignKey(
        PriceSource,
        verbose_name=_("price feed"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="cloud_prices",
    )
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["gpu_model", "commitment", "currency", "provider", "-observed_on", "-id"]
        verbose_name = _("cloud price")
        verbose_name_plural = _("cloud prices")
        indexes = [
            models.Index(
                fields=["gpu_model", "commitment", "currency", "provider", "-observed_on", "-id"],
                name="catalog_cloudprice_current_idx",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_per_gpu_hour__gte=0),
                name="%(app_label)s_%(class)s_price_per_gpu_hour_gte_0",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES),
                name="%(app_label)s_%(class)s_currency_known",
            ),
            models.CheckConstraint(
                condition=Q(commitment__in=values_of(Commitment)),
                name="%(app_label)s_%(class)s_commitment_known",
            ),
        ]

    def __str__(self) -> str:
        who = f" {self.provider}" if self.provider else ""
        return (
            f"{self.gpu_model}{who} {self.price_per_gpu_hour} {self.currency}/GPU-h "
            f"({self.observed_on})"
        )
