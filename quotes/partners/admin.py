"""Admin for API partners and their keys (imported by ``quotes.admin``).

Staff create a partner, then add a key: the raw key appears once, in the confirmation message,
and only its SHA-256 is kept. Keys are revoked with an action, never deleted, so the record of
who had access stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from gpuquote.core.roles import signed_in_user
from quotes.models import ApiKey, Partner
from quotes.partners.keys import api_key_revoke, api_key_secret_assign

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = ("name", "prefix", "created_at", "expires_at", "revoked_at", "last_used_at")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # keys are issued from "Add API key", where the key can be shown once


class _PartnerCounts(TypedDict):
    """What ``PartnerAdmin.get_queryset`` annotates each partner with."""

    keys: int
    quote_total: int


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ("name", "is_active", "key_count", "quote_count", "created_at")
    list_filter = ("is_active",)
    search_fields = ("name", "contact_email")
    inlines = [ApiKeyInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Partner]:
        return (
            super()
            .get_queryset(request)
            .annotate(keys=Count("api_keys", distinct=True), quote_total=Count("quotes"))
        )

    @admin.display(description=_("API keys"), ordering="keys")
    def key_count(self, partner: WithAnnotations[Partner, _PartnerCounts]) -> int:
        return partner.keys

    @admin.display(description=_("quotes"), ordering="quote_total")
    def quote_count(self, partner: WithAnnotations[Partner, _PartnerCounts]) -> int:
        return partner.quote_total


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "partner", "prefix", "created_at", "expires_at", "revoked_at",
                    "last_used_at")  # fmt: skip
    list_filter = ("partner", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "prefix", "partner__name")
    readonly_fields = ("prefix", "created_at", "created_by", "revoked_at", "last_used_at")
    actions = ["revoke"]

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("partner", "name", "expires_at")
        return ("partner", "name", "expires_at", *self.readonly_fields)

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None):
        return self.readonly_fields + (("partner",) if obj is not None else ())

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        raw = api_key_secret_assign(obj)
        obj.created_by = signed_in_user(request)
        super().save_model(request, obj, form, change)
        messages.warning(
            request,
            _("Copy this key now, it will not be shown again: %(key)s") % {"key": raw},
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=_("Revoke the selected keys"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for key in queryset:
            api_key_revoke(key=key)
        count = queryset.count()
        self.message_user(
            request,
            ngettext("%(count)d key revoked.", "%(count)d keys revoked.", count) % {"count": count},
        )
