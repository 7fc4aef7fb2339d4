"""Managed hosting's service tiers in the admin: the sales team edits them like the parts, with
Django's model permissions (``catalog.*_servicetier``); who changed a tier is recorded."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from catalog.admin.parts import AUDIT_FIELDS
from catalog.models import ServiceTier
from catalog.models.services import SERVICE_FIELDS


@admin.register(ServiceTier)
class ServiceTierAdmin(admin.ModelAdmin):
    list_display = (
        "code",
        "name_en",
        "coverage",
        "response_minutes",
        "replacement_hours",
        "monthly_price_eur",
        "monthly_price_usd",
        "is_default",
        "active",
        "position",
        "updated_at",
        "updated_by",
    )
    list_filter = ("coverage", "active")
    list_select_related = ("updated_by",)
    search_fields = ("code", "name_en", "name_fr")
    readonly_fields = AUDIT_FIELDS
    fieldsets = (
        (None, {"fields": ("code", "name_en", "name_fr", "active", "is_default", "position")}),
        (
            _("Service"),
            {"fields": SERVICE_FIELDS},
        ),
        (_("Price per server and month"), {"fields": ("monthly_price_eur", "monthly_price_usd")}),
        (_("History"), {"fields": AUDIT_FIELDS}),
    )

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)
