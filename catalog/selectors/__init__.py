"""Reads from the catalog, by concern: current prices and their age, the catalog snapshot the
builder works on, cloud prices per GPU-hour, the partner API's offered parts, and managed
hosting's service tiers. The public names are re-exported here."""

from catalog.selectors.cloud import (
    CloudPriceQuote,
    cloud_price_current_get,
    cloud_price_current_queryset,
    cloud_prices_current_get,
)
from catalog.selectors.offered import (
    catalog_changed_at_get,
    offered_chassis_queryset,
    offered_cpu_queryset,
    offered_current_price_queryset,
    offered_gpu_queryset,
)
from catalog.selectors.prices import (
    CurrentPrices,
    PriceAge,
    current_price_get,
    current_price_queryset,
    current_prices_get,
    price_ages_get,
    price_is_stale,
    price_stale_before,
    price_stale_expression,
    stale_price_queryset,
)
from catalog.selectors.service_tiers import (
    service_tier_get,
    service_tiers_get,
)
from catalog.selectors.snapshot import catalog_search_index_get, catalog_snapshot_get
from catalog.selectors.versions import (
    catalog_version_get,
    cloud_prices_version_get,
    exchange_rates_version_get,
    per_version_cache,
    trusted_version,
    versions_forget,
)

__all__ = [
    "CloudPriceQuote",
    "CurrentPrices",
    "PriceAge",
    "catalog_changed_at_get",
    "catalog_search_index_get",
    "catalog_snapshot_get",
    "catalog_version_get",
    "cloud_price_current_get",
    "cloud_price_current_queryset",
    "cloud_prices_current_get",
    "cloud_prices_version_get",
    "current_price_get",
    "current_price_queryset",
    "current_prices_get",
    "exchange_rates_version_get",
    "offered_chassis_queryset",
    "offered_cpu_queryset",
    "offered_current_price_queryset",
    "offered_gpu_queryset",
    "per_version_cache",
    "price_ages_get",
    "price_is_stale",
    "price_stale_before",
    "price_stale_expression",
    "service_tier_get",
    "service_tiers_get",
    "stale_price_queryset",
    "trusted_version",
    "versions_forget",
]
