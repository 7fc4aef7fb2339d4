"""Dated managed-hosting offers read from a price source of the "hosting offers" kind: the
market band's data (``engine.tco.market``), replaced as a whole by each run that changes them."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.feeds import PriceRefreshRun, PriceSource
from engine.money import CURRENCIES
from engine.tco.market import CONFIDENCE_LEVELS, PERIODS, PRICE_PER


class HostingOffer(models.Model):
    """One public offer of a source's latest file: what it charges, when it was seen, where."""

    price_source = models.ForeignKey(
        PriceSource,
        verbose_name=_("price source"),
        on_delete=models.CASCADE,  # the source's own copy of its file: nothing else refers to it
        related_name="hosting_offers",
    )
    # The run that wrote it. Runs are purged after PRICE_REFRESH_RUN_RETENTION_DAYS while their
    # offers may still be current (a later run of the same file writes nothing): set to null.
    run = models.ForeignKey(
        PriceRefreshRun,
        verbose_name=_("run"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    row = models.PositiveIntegerField(_("file line"))
    provider = models.CharField(_("provider"), max_length=100)
    product = models.CharField(_("product"), max_length=200)
    gpu_model = models.CharField(_("GPU model (as published)"), max_length=128)
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"))
    price = models.DecimalField(_("price"), max_digits=12, decimal_places=4)
    currency = models.CharField(
        _("currency"), max_length=3, choices=[(code, code) for code in CURRENCIES]
    )
    period = models.CharField(
        _("billing period"), max_length=8, choices=[(period, period) for period in PERIODS]
    )
    price_per = models.CharField(
        _("price for"), max_length=8, choices=[(per, per) for per in PRICE_PER]
    )
    date_seen = models.DateField(_("date seen"))
    confidence = models.CharField(
        _("confidence"), max_length=16, choices=[(level, level) for level in CONFIDENCE_LEVELS]
    )
    source_url = models.CharField(_("price page"), max_length=500)
    location = models.CharField(_("location"), max_length=200, blank=True)

    class Meta:
        ordering = ["price_source", "row"]
        verbose_name = _("hosting offer")
        verbose_name_plural = _("hosting offers")
        constraints = [
            models.UniqueConstraint(
                fields=["price_source", "row"], name="%(app_label)s_%(class)s_row_unique"
            ),
            models.CheckConstraint(
                condition=Q(price__gt=0), name="%(app_label)s_%(class)s_price_positive"
            ),
            models.CheckConstraint(
                condition=Q(gpu_count__gte=1), name="%(app_label)s_%(class)s_gpu_count_positive"
            ),
            models.CheckConstraint(
                condition=Q(period__in=PERIODS), name="%(app_label)s_%(class)s_period_known"
            ),
            models.CheckConstraint(
                condition=Q(price_per__in=PRICE_PER),
                name="%(app_label)s_%(class)s_price_per_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.product}: {self.price} {self.currency} per {self.period}"
