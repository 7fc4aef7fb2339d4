"""The hosting offers price sources brought (the market band's data), listed read-only: a run
writes them, staff change them by changing the source's file."""

from __future__ import annotations

from django.contrib import admin

from catalog.admin.feeds import ReadOnlyAdmin
from catalog.models import HostingOffer
from catalog.services.hosting_offers import COMPARED_FIELDS


@admin.register(HostingOffer)
class HostingOfferAdmin(ReadOnlyAdmin):
    """Each source's current offers, in file order."""

    list_display = (
        "provider",
        "product",
        "gpu_model",
        "gpu_count",
        "price",
        "currency",
        "period",
        "price_per",
        "date_seen",
        "confidence",
        "price_source",
        "row",
    )
    list_filter = ("price_source", "currency", "period", "confidence")
    search_fields = ("provider", "product", "gpu_model", "location")
    list_select_related = ("price_source",)
    date_hierarchy = "date_seen"
    fields = ("price_source", "run", "row", *COMPARED_FIELDS)
    readonly_fields = fields
