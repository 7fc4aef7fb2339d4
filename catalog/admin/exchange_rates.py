"""The ECB's reference rates in the admin: listed, never edited (a feed run writes them; a
correction comes in the ECB's next file)."""

from __future__ import annotations

from django.contrib import admin

from catalog.admin.feeds import ReadOnlyAdmin
from catalog.models import ExchangeRate


@admin.register(ExchangeRate)
class ExchangeRateAdmin(ReadOnlyAdmin):
    list_display = ("rate_date", "currency", "per_eur", "price_source", "run", "created_at")
    list_filter = ("currency", "price_source")
    search_fields = ("currency",)
    list_select_related = ("price_source", "run")
    date_hierarchy = "rate_date"
