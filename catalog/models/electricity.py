"""Electricity prices proposed by a Eurostat feed (``nrg_pc_205``): staff approve one into the
regional assumptions (``quotes.advice.electricity``), as they approve a quarantined price."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.feeds import PriceRefreshRun, PriceSource
from catalog.models.quarantine import ReviewStatus, StaffReviewed


class ElectricityPriceProposal(StaffReviewed):
    """A country's non-household electricity price for a semester, excluding VAT, in EUR/kWh.

    A feed run adds one when the price differs from the last proposal for the same country,
    semester, band and tax; it waits for review (``status``) and changes nothing by itself.
    """

    price_source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="+"
    )
    run = models.ForeignKey(
        PriceRefreshRun, verbose_name=_("run"), on_delete=models.PROTECT, related_name="+"
    )
    country = models.CharField(_("country"), max_length=2, help_text=_("ISO 3166-1 alpha-2 code."))
    period = models.CharField(_("period"), max_length=7, help_text=_("A semester: 2025-S1."))
    band = models.CharField(_("consumption band"), max_length=32)
    tax = models.CharField(_("taxes"), max_length=16)
    eur_per_kwh = models.DecimalField(_("price (EUR/kWh)"), max_digits=8, decimal_places=6)
    created_at = models.DateTimeField(_("proposed at"), auto_now_add=True)

    class Meta:
        ordering = ["status", "country", "-period", "-id"]
        verbose_name = _("electricity price proposal")
        verbose_name_plural = _("electricity price proposals")
        indexes = [
            models.Index(
                fields=["country", "period", "band", "tax", "-id"],
                name="catalog_elec_observation_idx",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=ReviewStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
            models.CheckConstraint(
                condition=Q(eur_per_kwh__gt=0) & Q(eur_per_kwh__lt=5),
                name="%(app_label)s_%(class)s_price_in_range",
            ),
            models.CheckConstraint(
                condition=Q(country__regex=r"^[A-Z]{2}$"),
                name="%(app_label)s_%(class)s_country_iso2",
            ),
            models.UniqueConstraint(
                fields=["country", "period", "band", "tax", "eur_per_kwh"],
                condition=Q(status="pending"),
                name="%(app_label)s_%(class)s_one_pending_price",
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.country} {self.period} {self.eur_per_kwh} EUR/kWh ({self.get_status_display()})"
        )

    @property
    def tax_words(self) -> str:
        """The tax choice as a citation says it (English, like every stored source)."""
        return TAX_WORDS.get(self.tax, self.tax)

    @property
    def citation(self) -> str:
        """The source an approved price is stored with."""
        return f"Eurostat nrg_pc_205, {self.period}, band {self.band}, {self.tax_words}"


TAX_WORDS = {
    "X_VAT": "excluding VAT",
    "X_TAX": "excluding taxes and levies",
    "I_TAX": "all taxes and levies included",
}
