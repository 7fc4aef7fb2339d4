"""The admin of price feeds: sources, refresh runs, quarantined prices, cloud prices."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from catalog.admin.parts import StaleFilter
from catalog.models import (
    CloudPrice,
    PriceRefreshRun,
    PriceSource,
    QuarantinedPrice,
    ReviewStatus,
    RunStatus,
)
from catalog.selectors import price_is_stale
from catalog.selectors.source_health import LAST_SUCCESS, source_health
from catalog.services import (
    QuarantineReviewError,
    price_source_delete,
    price_source_refresh_enqueue,
    price_source_schedule_sync,
    quarantined_price_approve,
    quarantined_price_reject,
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise, WithAnnotations

AUDIT_FIELDS = ("created_at", "created_by", "updated_at", "updated_by")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written by services only: listed and shown, never added, edited or deleted."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class _LastRun(TypedDict):
    """What ``PriceSourceAdmin.get_queryset`` annotates each source with."""

    last_status: str | None
    last_started: dt.datetime | None
    last_changed: int | None
    last_rejected: int | None
    last_quarantined: int | None
    last_message: str | None
    last_success_at: dt.datetime | None


@admin.register(PriceSource)
class PriceSourceAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "format",
        "currency",
        "schedule",
        "enabled",
        "last_run_status",
        "last_run_at",
        "last_run_counts",
        "last_success",
        "stale",
    )
    list_filter = ("kind", "enabled", "format")
    search_fields = ("name", "location", "notes")
    actions = ["refresh_now"]
    fields = (
        "name",
        "kind",
        "location",
        "format",
        "currency",
        "column_map",
        "schedule",
        "enabled",
        "notes",
        "beat_entry",
        "runs_link",
        "last_run_message",
        "last_success",
        "stale",
        "locked_until",
        *AUDIT_FIELDS,
    )
    readonly_fields = (
        "beat_entry",
        "runs_link",
        "last_run_message",
        "last_success",
        "stale",
        "locked_until",
        *AUDIT_FIELDS,
    )

    def get_queryset(self, request):
        last = PriceRefreshRun.objects.filter(source=OuterRef("pk")).order_by("-started_at", "-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_status=Subquery(last.values("status")[:1]),
                last_started=Subquery(last.values("started_at")[:1]),
                last_changed=Subquery(last.values("rows_changed")[:1]),
                last_rejected=Subquery(last.values("rows_rejected")[:1]),
                last_quarantined=Subquery(last.values("rows_quarantined")[:1]),
                last_message=Subquery(last.values("message")[:1]),
                last_success_at=LAST_SUCCESS,
            )
        )

    @admin.display(description=_("last run: changed / rejected / held"))
    def last_run_counts(self, obj: WithAnnotations[PriceSource, _LastRun]) -> str:
        if obj.last_status is None:
            return "—"
        return f"{obj.last_changed} / {obj.last_rejected} / {obj.last_quarantined}"

    @admin.display(description=_("last run's message"))
    def last_run_message(self, obj: WithAnnotations[PriceSource, _LastRun]) -> str:
        return getattr(obj, "last_message", None) or "—"

    @admin.display(description=_("last success"), ordering="last_success_at")
    def last_success(self, obj: WithAnnotations[PriceSource, _LastRun]) -> dt.datetime | None:
        return getattr(obj, "last_success_at", None)

    @admin.display(description=_("stale"), boolean=True)
    def stale(self, obj: WithAnnotations[PriceSource, _LastRun]) -> bool | None:
        """Not succeeded within its schedule plus PRICE_SOURCE_STALE_GRACE_MINUTES."""
        if obj.pk is None:
            return None
        last_success = getattr(obj, "last_success_at", None)
        return source_health(obj, last_success, timezone.now()).stale

    @admin.display(description=_("last run"), ordering="last_status")
    def last_run_status(self, obj: WithAnnotations[PriceSource, _LastRun]) -> StrOrPromise:
        return RunStatus(obj.last_status).label if obj.last_status else "—"

    @admin.display(description=_("last run at"), ordering="last_started")
    def last_run_at(self, obj: WithAnnotations[PriceSource, _LastRun]) -> dt.datetime | None:
        return obj.last_started

    @admin.display(description=_("beat schedule entry"))
    def beat_entry(self, obj: PriceSource) -> str:
        if not obj.periodic_task_id:
            return "—"
        url = reverse("admin:django_celery_beat_periodictask_change", args=[obj.periodic_task_id])
        return format_html('<a href="{}">{}</a>', url, obj.periodic_task)

    @admin.display(description=_("runs"))
    def runs_link(self, obj: PriceSource) -> str:
        if not obj.pk:
            return "—"
        url = reverse("admin:catalog_pricerefreshrun_changelist") + f"?source__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, _("Runs of this source"))

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)
        price_source_schedule_sync(source=obj)

    def delete_model(self, request, obj) -> None:
        price_source_delete(source=obj)

    def delete_queryset(self, request, queryset) -> None:
        for source in queryset:
            price_source_delete(source=source)

    @admin.action(description=_("Refresh now"))
    def refresh_now(self, request, queryset) -> None:
        count = price_source_refresh_enqueue(
            source_ids=list(queryset.values_list("pk", flat=True)), user=request.user
        )
        self.message_user(
            request,
            ngettext(
                "Refresh requested for %(count)d source: its run is listed under Price refresh "
                "runs.",
                "Refresh requested for %(count)d sources: their runs are listed under Price "
                "refresh runs.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )


@admin.register(PriceRefreshRun)
class PriceRefreshRunAdmin(ReadOnlyAdmin):
    list_display = (
        "started_at",
        "source",
        "status",
        "trigger",
        "attempt",
        "duration",
        "rows_read",
        "rows_changed",
        "rows_unchanged",
        "rows_rejected",
        "rows_quarantined",
    )
    list_filter = ("status", "trigger", "source")
    list_select_related = ("source",)
    date_hierarchy = "started_at"
    fields = (
        "source",
        "status",
        "message",
        "trigger",
        "requested_by",
        "attempt",
        "task_id",
        "started_at",
        "finished_at",
        "bytes_read",
        "rows_read",
        "rows_changed",
        "rows_unchanged",
        "rows_rejected",
        "rows_quarantined",
        "error_report",
    )
    readonly_fields = fields

    @admin.display(description=_("duration"))
    def duration(self, obj: PriceRefreshRun) -> str:
        if obj.finished_at is None:
            return "—"
        return f"{(obj.finished_at - obj.started_at).total_seconds():.1f} s"

    @admin.display(description=_("row errors"))
    def error_report(self, obj: PriceRefreshRun) -> str:
        if not obj.errors:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            ((e.get("row"), e.get("field"), e.get("message"), e.get("value")) for e in obj.errors),
        )
        shown = len(obj.errors)
        note = (
            format_html(
                "<p>{}</p>",
                _("First %(shown)d of %(total)d rejected rows.")
                % {"shown": shown, "total": obj.rows_rejected},
            )
            if obj.rows_rejected > shown
            else ""
        )
        return format_html(
            "{}<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            note,
            _("row"),
            _("field"),
            _("problem"),
            _("value"),
            rows,
        )


@admin.register(QuarantinedPrice)
class QuarantinedPriceAdmin(ReadOnlyAdmin):
    """The review screen: prices that moved too much wait here for approval or rejection."""

    list_display = (
        "subject",
        "previous_amount",
        "amount",
        "currency",
        "change",
        "observed_on",
        "source",
        "status",
        "reviewed_by",
        "reviewed_at",
    )
    list_filter = ("status", "source", "currency")
    search_fields = ("part__sku", "gpu_model", "provider", "source_detail")
    list_select_related = ("part", "source", "reviewed_by")
    actions = ["approve", "reject"]
    fields = (
        "status",
        "source",
        "run",
        "row",
        "part",
        "price_kind",
        "gpu_model",
        "commitment",
        "provider",
        "previous_amount",
        "previous_observed_on",
        "amount",
        "currency",
        "observed_on",
        "change",
        "source_detail",
        "created_at",
        "reviewed_by",
        "reviewed_at",
        "price",
        "cloud_price",
    )
    readonly_fields = fields

    def has_review_permission(self, request) -> bool:
        """Reviewing (the actions) needs the change permission; the page itself is read-only."""
        return request.user.has_perm("catalog.change_quarantinedprice")

    @admin.display(description=_("item"))
    def subject(self, obj: QuarantinedPrice) -> str:
        return obj.subject

    @admin.display(description=_("change"))
    def change(self, obj: QuarantinedPrice) -> str:
        pct = obj.change_pct
        return "—" if pct is None else f"{pct:+.1f} %"

    def _review(self, request, queryset, service, done_message) -> None:
        done = 0
        for held in queryset.filter(status=ReviewStatus.PENDING):
            try:
                service(quarantined_id=held.pk, user=request.user)
            except QuarantineReviewError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                done += 1
        skipped = queryset.exclude(status=ReviewStatus.PENDING).count()
        self.message_user(request, done_message % {"count": done}, messages.SUCCESS)
        if skipped:
            self.message_user(
                request,
                _("%(count)d already reviewed prices were left as they are.") % {"count": skipped},
                messages.WARNING,
            )

    @admin.action(description=_("Approve: record the selected prices"), permissions=["review"])
    def approve(self, request, queryset) -> None:
        self._review(
            request,
            queryset,
            quarantined_price_approve,
            _("%(count)d prices approved and recorded."),
        )

    @admin.action(description=_("Reject the selected prices"), permissions=["review"])
    def reject(self, request, queryset) -> None:
        self._review(request, queryset, quarantined_price_reject, _("%(count)d prices rejected."))


@admin.register(CloudPrice)
class CloudPriceAdmin(ReadOnlyAdmin):
    """Cloud prices per GPU-hour, fed by cloud sources; history, never rewritten."""

    list_display = (
        "gpu_model",
        "commitment",
        "provider",
        "price_per_gpu_hour",
        "currency",
        "observed_on",
        "stale",
        "price_source",
    )
    list_filter = ("gpu_model", "commitment", "currency", StaleFilter, "price_source")
    search_fields = ("gpu_model", "provider", "source")
    list_select_related = ("price_source",)
    date_hierarchy = "observed_on"

    @admin.display(description=_("stale"), boolean=True)
    def stale(self, obj: CloudPrice) -> bool:
        return price_is_stale(obj.observed_on)


admin.site.site_header = _("GPUQuote administration")
admin.site.site_title = _("GPUQuote")
