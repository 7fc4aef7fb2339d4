import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from quotes.models import (
    Quote,
    QuoteEvent,
    QuoteRequest,
    QuoteRequestStatus,
    QuoteRevision,
    RegionAssumption,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
    WizardResult,
)


@admin.register(RegionAssumption)
class RegionAssumptionAdmin(admin.ModelAdmin):
    list_display = ("region", "name", "value", "currency", "updated_at", "updated_by")
    list_select_related = ("updated_by",)  # nullable: the admin's default join skips it
    list_filter = ("region", "name")
    search_fields = ("name", "source")
    readonly_fields = ("updated_at", "updated_by")

    def save_model(self, request, obj, form, change) -> None:
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)


# --- The wizard's stored results and the quote requests sent from them ------------------------


class QuoteRequestInline(admin.TabularInline):
    model = QuoteRequest
    extra = 0
    can_delete = False
    fields = ("created_at", "name", "company", "email", "country", "status")
    readonly_fields = ("created_at", "name", "company", "email", "country")
    show_change_link = True


@admin.register(WizardResult)
class WizardResultAdmin(admin.ModelAdmin):
    """Read-only: a result is a snapshot; staff open it on the site through its private link."""

    list_display = ("short_token", "language", "created_at", "site_link")
    list_filter = ("language",)
    date_hierarchy = "created_at"
    search_fields = ("token",)
    readonly_fields = (
        "token",
        "language",
        "created_at",
        "answers",
        "stored_result",
        "site_link",
    )
    inlines = [QuoteRequestInline]

    @admin.display(description=_("token"))
    def short_token(self, obj: WizardResult) -> str:
        return obj.token[:10] + "…"

    @admin.display(description=_("result"))
    def stored_result(self, obj: WizardResult) -> str:
        """The stored JSON, as the admin shows a JSON field (the column is compressed)."""
        return json.dumps(obj.result, ensure_ascii=False)

    @admin.display(description=_("page"))
    def site_link(self, obj: WizardResult) -> str:
        url = reverse("wizard:result", kwargs={"token": obj.token})
        return format_html('<a href="{}">{}</a>', url, _("Open the result page"))

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.action(description=_("Mark the selected requests as handled"))
def quote_requests_mark_handled(modeladmin, request, queryset) -> None:
    queryset.update(status=QuoteRequestStatus.HANDLED)


@admin.register(QuoteRequest)
class QuoteRequestAdmin(admin.ModelAdmin):
    list_display = ("created_at", "company", "name", "email", "country", "status", "result_link")
    list_filter = ("status", "country")
    search_fields = ("company", "name", "email", "vat_number", "message")
    date_hierarchy = "created_at"
    list_select_related = ("result",)
    fields = (
        "status",
        "name",
        "company",
        "email",
        "country",
        "vat_number",
        "consent",
        "message",
        "created_at",
        "staff_notified_at",
        "result_link",
    )
    readonly_fields = (
        "name",
        "company",
        "email",
        "vat_number",
        "staff_notified_at",
        "country",
        "consent",
        "message",
        "created_at",
        "result_link",
    )
    actions = [quote_requests_mark_handled]

    @admin.display(description=_("result"))
    def result_link(self, obj: QuoteRequest) -> str:
        url = reverse("wizard:result", kwargs={"token": obj.result.token})
        return format_html('<a href="{}">{}</a>', url, _("Open the result page"))

    def has_add_permission(self, request) -> bool:
        return False


# --- Sales quotes: read-only history in the admin; staff work in /staff/ ----------------------


class QuoteRevisionInline(admin.TabularInline):
    model = QuoteRevision
    extra = 0
    can_delete = False
    fields = ("index", "discount_pct", "valid_until", "approved_discount_pct", "sent_at")
    readonly_fields = fields
    show_change_link = False


class QuoteEventInline(admin.TabularInline):
    model = QuoteEvent
    extra = 0
    can_delete = False
    fields = ("created_at", "kind", "from_status", "to_status", "actor", "actor_name", "reason")
    readonly_fields = fields


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
    list_display = ("number", "company", "email", "status", "origin", "created_at")
    list_filter = ("status", "origin", "currency")
    search_fields = ("number", "company", "email", "contact_name")
    date_hierarchy = "created_at"
    list_select_related = ("current_revision",)
    readonly_fields = [field.name for field in Quote._meta.fields]
    inlines = [QuoteRevisionInline, QuoteEventInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# --- Partner webhooks: registered over the API; staff can switch one off and read deliveries ---


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Partners register webhooks over the API; here staff only switch one on or off. The
    signing secret is not shown (the partner got it once, when registering)."""

    list_display = ("partner", "url", "is_active", "created_at")
    list_filter = ("is_active", "partner")
    search_fields = ("url", "partner__name")
    list_select_related = ("partner",)
    fields = ("partner", "url", "events", "is_active", "created_at")
    readonly_fields = ("partner", "url", "events", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    fields = ("number", "attempted_at", "response_status", "error", "duration_ms")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """Read-only: what was sent to whom, and each attempt's answer."""

    list_display = ("created_at", "event_type", "webhook", "status", "attempt_count")
    list_filter = ("status", "event_type")
    search_fields = ("event_id", "webhook__url", "webhook__partner__name")
    date_hierarchy = "created_at"
    list_select_related = ("webhook__partner",)
    fields = (
        "webhook",
        "event_id",
        "event_type",
        "status",
        "attempt_count",
        "created_at",
        "delivered_at",
        "payload",
    )
    readonly_fields = fields
    inlines = [WebhookAttemptInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


from quotes import admin_electricity  # noqa: E402, F401

# Partners and their API keys.
from quotes.partners import admin as partners_admin  # noqa: E402, F401
