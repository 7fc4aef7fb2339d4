"""Managed hosting's service tiers (support levels): what the host's people do on top of running the
hardware, how fast, and what it costs per server and month.

The sales team edits the tiers in the admin; ``catalog.selectors.service_tiers`` turns the
active ones into the engine's ``engine.commerce.service_tiers.ServiceTier``, priced in the answer's
currency. One price column per currency the site quotes in (``engine.money.CURRENCIES``): a tier
is a price list, not an observed price, so it has no history (unlike ``Price``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalog.models.audit import Audited
from engine.commerce.service_tiers import Coverage

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# The longest first-answer time and part replacement a tier may promise: one week, 30 days.
RESPONSE_MINUTES_MAX = 7 * 24 * 60
REPLACEMENT_HOURS_MAX = 30 * 24
# The monthly price's column for each currency the site quotes in.
MONTHLY_PRICE_FIELDS = {"EUR": "monthly_price_eur", "USD": "monthly_price_usd"}


class ServiceCoverage(models.TextChoices):
    """``engine.commerce.service_tiers.Coverage``, with labels for the admin."""

    BUSINESS_HOURS = Coverage.BUSINESS_HOURS.value, _("Business hours (working days)")
    ALWAYS = Coverage.ALWAYS.value, _("24×7 (every hour of every day)")


def _monthly_price(verbose_name: StrOrPromise) -> models.DecimalField:
    return models.DecimalField(
        verbose_name,
        max_digits=12,
        decimal_places=2,
        validators=[MinValueValidator(Decimal(0))],
        help_text=_("Excluding VAT; 0 when the hosting fee includes the tier."),
    )


# What a tier says the host does, in the order the admin and the seed list it.
SERVICE_FIELDS = (
    "coverage",
    "response_minutes",
    "replacement_hours",
    "os_driver_upkeep",
    "monitoring",
    "backups",
)


class ServiceTier(Audited):
    """One tier of managed hosting's service, as the sales team offers it."""

    code = models.SlugField(
        _("code"),
        max_length=32,
        unique=True,
        help_text=_("Stable key used by the API and the quotes: letters, digits and hyphens."),
    )
    name_en = models.CharField(_("name in English"), max_length=80)
    name_fr = models.CharField(_("name in French"), max_length=80)
    coverage = models.CharField(_("coverage"), max_length=16, choices=ServiceCoverage.choices)
    response_minutes = models.PositiveIntegerField(
        _("first answer within (minutes)"),
        validators=[MinValueValidator(1), MaxValueValidator(RESPONSE_MINUTES_MAX)],
        help_text=_("The most time to a first answer on an incident that stops the servers."),
    )
    replacement_hours = models.PositiveIntegerField(
        _("failed part replaced within (hours)"),
        validators=[MinValueValidator(1), MaxValueValidator(REPLACEMENT_HOURS_MAX)],
    )
    os_driver_upkeep = models.BooleanField(
        _("OS and driver upkeep"),
        default=False,
        help_text=_("The host keeps the operating system, GPU driver and CUDA or ROCm updated."),
    )
    monitoring = models.BooleanField(
        _("monitoring"), default=False, help_text=_("The host watches the GPUs and acts on alerts.")
    )
    backups = models.BooleanField(
        _("backups"), default=False, help_text=_("The system disks are backed up every day.")
    )
    monthly_price_eur = _monthly_price(_("monthly price per server (EUR)"))
    monthly_price_usd = _monthly_price(_("monthly price per server (USD)"))
    is_default = models.BooleanField(
        _("default"),
        default=False,
        help_text=_("The tier a quote gets when none is chosen; one active tier at most."),
    )
    active = models.BooleanField(_("offered"), default=True)
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Tiers are listed from the lowest position up.")
    )

    class Meta:
        ordering = ["position", "code"]
        verbose_name = _("service tier")
        verbose_name_plural = _("service tiers")
        constraints = [
            models.CheckConstraint(
                condition=~Q(code="") & ~Q(name_en=""),
                name="%(app_label)s_%(class)s_code_and_name_not_empty",
            ),
            models.CheckConstraint(
                condition=Q(coverage__in=ServiceCoverage.values),
                name="%(app_label)s_%(class)s_coverage_known",
            ),
            models.CheckConstraint(
                condition=Q(response_minutes__gte=1, response_minutes__lte=RESPONSE_MINUTES_MAX),
                name="%(app_label)s_%(class)s_response_minutes_bounded",
            ),
            models.CheckConstraint(
                condition=Q(replacement_hours__gte=1, replacement_hours__lte=REPLACEMENT_HOURS_MAX),
                name="%(app_label)s_%(class)s_replacement_hours_bounded",
            ),
            *(
                models.CheckConstraint(
                    condition=Q(**{f"{field}__gte": 0}),
                    name=f"%(app_label)s_%(class)s_{field}_gte_0",
                )
                for field in MONTHLY_PRICE_FIELDS.values()
            ),
            models.CheckConstraint(
                condition=~Q(is_default=True, active=False),
                name="%(app_label)s_%(class)s_default_is_offered",
                violation_error_message=_("The default tier must be offered."),
            ),
            models.UniqueConstraint(
                fields=["is_default"],
                condition=Q(is_default=True, active=True),
                name="%(app_label)s_%(class)s_one_default",
                violation_error_message=_(
                    "Another offered tier is the default: untick it there first."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.name_en
