"""The ECB's euro reference rates, one row per currency and day (``catalog.feeds.exchange_rates``
reads them; ``catalog.selectors.exchange_rates`` answers the rate of a day)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.feeds import PriceRefreshRun, PriceSource


class ExchangeRate(models.Model):
    """``per_eur`` units of ``currency`` for one euro, the reference rate of ``rate_date``.

    One row per currency and day: the same file applied again changes nothing, a corrected rate
    for a day already recorded replaces it (the ECB corrects rarely, and a day has one rate).
    """

    currency = models.CharField(_("currency"), max_length=3, help_text=_("ISO 4217 code."))
    per_eur = models.DecimalField(
        _("units per euro"), max_digits=12, decimal_places=6, help_text=_("1 EUR = this much.")
    )
    rate_date = models.DateField(_("rate date"))
    price_source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="+"
    )
    run = models.ForeignKey(
        PriceRefreshRun, verbose_name=_("run"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("recorded at"), auto_now_add=True)

    class Meta:
        ordering = ["-rate_date", "currency"]
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        constraints = [
            models.UniqueConstraint(
                fields=["currency", "rate_date"], name="%(app_label)s_%(class)s_one_per_day"
            ),
            models.CheckConstraint(
                condition=Q(per_eur__gt=0) & Q(per_eur__lte=100000),
                name="%(app_label)s_%(class)s_rate_in_range",
            ),
            models.CheckConstraint(
                condition=Q(currency__regex=r"^[A-Z]{3}$") & ~Q(currency="EUR"),
                name="%(app_label)s_%(class)s_currency_iso4217",
            ),
        ]

    def __str__(self) -> str:
        return f"1 EUR = {self.per_eur} {self.currency} ({self.rate_date.isoformat()})"
