"""Cloud GPU offers from the providers' own catalogs (gpuhunt's format): the market around the
TCO's cloud option.

Unlike ``CloudPrice`` (a history of one price per GPU model, commitment and provider), offers
are a snapshot: each run of a ``cloud_offers`` source replaces that source's offers
(``catalog.services.cloud_offers``), so the table holds what the providers list today.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.feeds import PriceRefreshRun, PriceSource
from engine.money import CURRENCIES


class CloudOffer(models.Model):
    """One instance type in one region, on demand or spot, as a provider's catalog lists it."""

    price_source = models.ForeignKey(
        PriceSource,
        verbose_name=_("price feed"),
        on_delete=models.PROTECT,
        related_name="cloud_offers",
    )
    # SET_NULL: the run purge (catalog.services.retention) may delete an old run whose offers
    # are still the source's current ones.
    run = models.ForeignKey(
        PriceRefreshRun,
        verbose_name=_("refresh run"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="cloud_offers",
    )
    provider = models.CharField(_("provider"), max_length=64)
    instance = models.CharField(_("instance type"), max_length=128)
    region = models.CharField(_("region"), max_length=64)
    gpu_model = models.CharField(
        _("GPU model key"), max_length=32, help_text=_("As engine.assumptions.gpu_model_key.")
    )
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"))
    price_per_gpu_hour = models.DecimalField(
        _("price per GPU-hour"), max_digits=10, decimal_places=4
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    spot = models.BooleanField(_("spot"), default=False)
    observed_on = models.DateField(_("price date"))

    class Meta:
        ordering = ["gpu_model", "currency", "spot", "price_per_gpu_hour", "id"]
        verbose_name = _("cloud offer")
        verbose_name_plural = _("cloud offers")
        indexes = [
            models.Index(
                fields=["gpu_model", "currency", "spot", "price_per_gpu_hour"],
                name="catalog_cloudoffer_cheap_idx",
            ),
            models.Index(fields=["price_source", "run"], name="catalog_cloudoffer_source_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_per_gpu_hour__gt=0),
                name="%(app_label)s_%(class)s_price_per_gpu_hour_gt_0",
            ),
            models.CheckConstraint(
                condition=Q(gpu_count__gte=1), name="%(app_label)s_%(class)s_gpu_count_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES),
                name="%(app_label)s_%(class)s_currency_known",
            ),
        ]

    def __str__(self) -> str:
        kind = "spot" if self.spot else "on demand"
        return (
            f"{self.provider} {self.instance} {self.region}: {self.price_per_gpu_hour} "
            f"{self.currency}/GPU-h, {kind} ({self.observed_on})"
        )
