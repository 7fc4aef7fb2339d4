"""Price feeds: where prices come from (a source fetched on a schedule) and each refresh run.

The feed rules (columns, validation, thresholds) are described in docs/price-feeds.md.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_celery_beat.validators import crontab_validator

from catalog.feeds.fetch import feed_file_resolve, is_url
from catalog.feeds.kinds import kind_column_map_errors, kind_formats
from catalog.feeds.types import FeedFormat, FeedKind
from catalog.models.audit import Audited
from catalog.models.choices import FEED_FORMAT_CHOICES, FEED_KIND_CHOICES
from engine.money import CURRENCIES
from gpuquote.core.choices import values_of
from gpuquote.core.outbound import outbound_url_errors


class PriceSource(Audited):
    """A price list fetched on a schedule (Celery beat); see ``catalog.services``."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    kind = models.CharField(_("kind"), max_length=16, choices=FEED_KIND_CHOICES)
    location = models.CharField(
        _("location"),
        max_length=500,
        help_text=_(
            "An http(s) URL, or a file path (relative paths start from PRICE_FEED_FILE_ROOT)."
        ),
    )
    format = models.CharField(_("format"), max_length=8, choices=FEED_FORMAT_CHOICES)
    currency = models.CharField(
        _("default currency"),
        max_length=3,
        choices=[(code, code) for code in CURRENCIES],
        help_text=_("For rows without a currency column."),
    )
    column_map = models.JSONField(
        _("column mapping"),
        default=dict,
        blank=True,
        help_text=_(
            'Field name to the feed\'s column name, e.g. {"sku": "Part number", '
            '"price": "Unit price"}. Fields not listed use their own name.'
        ),
    )
    schedule = models.CharField(
        _("schedule (cron)"),
        max_length=100,
        default="17 4 * * *",
        help_text=_(
            "minute hour day-of-month month day-of-week, in UTC (17 4 * * * = daily 04:17)."
        ),
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    notes = models.TextField(_("notes"), blank=True)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        verbose_name=_("beat schedule entry"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    # The run lease: one refresh per source at a time, across hosts (see price_source_refresh).
    lock_token = models.CharField(max_length=32, blank=True, editable=False)
    locked_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = _("price source")
        verbose_name_plural = _("price sources")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=values_of(FeedKind)),
                name="%(app_label)s_%(class)s_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(format__in=values_of(FeedFormat)),
                name="%(app_label)s_%(class)s_format_known",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCIES),
                name="%(app_label)s_%(class)s_currency_known",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        try:
            crontab_validator(self.schedule)
        except ValidationError as exc:
            errors["schedule"] = exc.messages
        if self.kind:
            problems = kind_column_map_errors(self.kind, self.column_map)
            if problems:
                errors["column_map"] = problems
            if self.format and self.format not in kind_formats(self.kind):
                errors["format"] = [
                    gettext("This kind of source is read as %(formats)s.")
                    % {"formats": ", ".join(f.upper() for f in kind_formats(self.kind))}
                ]
        location_errors = price_source_location_errors(self.location)
        if location_errors:
            errors["location"] = location_errors
        if errors:
            raise ValidationError(errors)


def price_source_location_errors(location: str) -> list[str]:
    """Why a feed location is refused when saved: a URL must resolve to public addresses (or
    hosts of OUTBOUND_ALLOW_PRIVATE_HOSTS), a file must exist inside PRICE_FEED_FILE_ROOT. Each
    refresh checks again (the host may resolve elsewhere, the file may go)."""
    location = location.strip()
    if is_url(location):
        return outbound_url_errors(location)
    if "://" in location:
        return [gettext("Use an http(s) URL or a file path.")]
    if not location:
        return []  # the field's own "required" error
    path = feed_file_resolve(location, Path(settings.PRICE_FEED_FILE_ROOT))
    if path is None:
        return [gettext("The file must be inside the price feed directory (PRICE_FEED_FILE_ROOT).")]
    if not path.is_file():
        return [
            gettext("There is no such file in the price feed directory (PRICE_FEED_FILE_ROOT).")
        ]
    return []


class RunStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    APPLIED = "applied", _("Applied")
    APPLIED_WITH_ERRORS = "applied_with_errors", _("Applied; some rows rejected")
    REJECTED = "rejected", _("Rejected: nothing applied")
    FAILED = "failed", _("Failed: nothing applied")
    SKIPPED = "skipped", _("Skipped: another run was in progress")
    ABANDONED = "abandoned", _("Abandoned: the worker stopped; nothing applied")


class RunTrigger(models.TextChoices):
    SCHEDULE = "schedule", _("Schedule")
    MANUAL = "manual", _("Refresh now (admin)")
    COMMAND = "command", _("Management command")


class PriceRefreshRun(models.Model):
    """One attempt at refreshing a source: what was read, changed, rejected, held for review."""

    source = models.ForeignKey(
        PriceSource, verbose_name=_("source"), on_delete=models.PROTECT, related_name="runs"
    )
    status = models.CharField(_("status"), max_length=24, choices=RunStatus.choices)
    trigger = models.CharField(_("trigger"), max_length=16, choices=RunTrigger.choices)
    attempt = models.PositiveSmallIntegerField(_("attempt"), default=1)
    task_id = models.CharField(_("Celery task id"), max_length=64, blank=True)
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    bytes_read = models.PositiveBigIntegerField(_("bytes read"), null=True, blank=True)
    rows_read = models.PositiveIntegerField(_("rows read"), default=0)
    rows_changed = models.PositiveIntegerField(_("rows changed"), default=0)
    rows_unchanged = models.PositiveIntegerField(_("rows unchanged"), default=0)
    rows_rejected = models.PositiveIntegerField(_("rows rejected"), default=0)
    rows_quarantined = models.PositiveIntegerField(_("rows quarantined"), default=0)
    errors = models.JSONField(
        _("row errors"),
        default=list,
        blank=True,
        help_text=_("[{row, field, message, value}], at most PRICE_FEED_MAX_REPORTED_ERRORS."),
    )
    message = models.TextField(_("message"), blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("price refresh run")
        verbose_name_plural = _("price refresh runs")
        indexes = [
            models.Index(fields=["source", "-started_at"], name="catalog_run_source_started_idx")
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=RunStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.started_at:%Y-%m-%d %H:%M} {self.status}"
