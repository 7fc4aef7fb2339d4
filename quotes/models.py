"""Quote-side records: the regional TCO defaults staff maintain (quotes themselves come later)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quotes.engine.assumptions import (
    REGIONS,
    SPECS,
    AssumptionError,
    assumption_validate,
    is_money,
)


class RegionAssumption(models.Model):
    """A staff-maintained default for one region; replaces the engine's built-in figure.

    Seeded from the engine's sourced defaults by ``load_assumptions`` (which never overwrites a
    row), edited in the admin. A TCO result keeps a copy of the values it used.
    """

    region = models.CharField(_("region"), max_length=2, choices=[(code, code) for code in REGIONS])
    name = models.CharField(
        _("assumption"), max_length=48, choices=[(name, name) for name in SPECS]
    )
    value = models.DecimalField(_("value"), max_digits=16, decimal_places=6)
    currency = models.CharField(
        _("currency"), max_length=3, blank=True, help_text=_("For money values: EUR, USD or GBP.")
    )
    source = models.TextField(_("source"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("updated by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    class Meta:
        ordering = ["region", "name"]
        verbose_name = _("regional assumption")
        verbose_name_plural = _("regional assumptions")
        constraints = [
            models.UniqueConstraint(
                fields=["region", "name"], name="%(app_label)s_%(class)s_unique_region_name"
            ),
            models.CheckConstraint(
                condition=Q(value__gte=0), name="%(app_label)s_%(class)s_value_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=["", "EUR", "USD", "GBP"]),
                name="%(app_label)s_%(class)s_currency_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.region} {self.name} = {self.value} {self.currency}".strip()

    def clean(self) -> None:
        if self.name not in SPECS:
            return  # the choices validation names the field
        if is_money(self.name) and not self.currency:
            raise ValidationError({"currency": _("A money value needs its currency.")})
        if not is_money(self.name) and self.currency:
            raise ValidationError({"currency": _("Leave empty: this value is not money.")})
        try:
            assumption_validate(self.name, self.value, "EUR")
        except AssumptionError as exc:
            raise ValidationError({"value": exc.message.render(gettext)}) from exc
