"""The cloud GPU offers ``cloud_offers`` sources brought (gpuhunt's catalogs), listed read-only:
each run replaces its source's offers, staff change them by changing the source."""

from __future__ import annotations

from django.contrib import admin

from catalog.admin.feeds import ReadOnlyAdmin
from catalog.models import CloudOffer


@admin.register(CloudOffer)
class CloudOfferAdmin(ReadOnlyAdmin):
    """The current offers, cheapest per GPU-hour first within each GPU model."""

    list_display = (
        "gpu_model",
        "provider",
        "instance",
        "region",
        "gpu_count",
        "price_per_gpu_hour",
        "currency",
        "spot",
        "observed_on",
        "price_source",
    )
    list_filter = ("gpu_model", "spot", "provider", "price_source")
    search_fields = ("provider", "instance", "region", "gpu_model")
    list_select_related = ("price_source",)
    fields = (
        "price_source",
        "run",
        "provider",
        "instance",
        "region",
        "gpu_model",
        "gpu_count",
        "price_per_gpu_hour",
        "currency",
        "spot",
        "observed_on",
    )
    readonly_fields = fields
