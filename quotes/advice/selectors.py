"""Reads for the quoting side: the assumptions a TCO is computed with."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from decimal import Decimal
from functools import lru_cache
from typing import cast

from django.conf import settings
from django.core.cache import cache

from catalog.selectors import (
    catalog_search_index_get,
    catalog_snapshot_get,
    catalog_version_get,
    cloud_price_current_get,
    cloud_prices_version_get,
    per_version_cache,
    price_stale_before,
    trusted_version,
)
from catalog.selectors.cloud_offers import CloudMarket, cloud_market_get
from catalog.selectors.exchange_rates import exchange_rate_facts_get
from catalog.selectors.hosting_offers import hosting_offers_current_get
from catalog.selectors.versions import exchange_rates_version_get, hosting_offers_version_get
from engine.advice.pipeline import Advice, advise
from engine.assumptions import Assumptions, Fact, gpu_model_key, region_defaults
from engine.build.builder import Environment
from engine.build.configuration import GpuPreference
from engine.build.parts import GpuSpec
from engine.build.rules import SERVER_REPAIR_HOURS
from engine.commerce.service_tiers import ServiceTier
from engine.money import Money
from engine.tco import (
    ManagedOffer,
    TcoConfiguration,
    TcoInput,
    TcoResult,
    compute_tco,
    managed_offer,
)
from engine.version import ENGINE_VERSION
from engine.workload import Workload
from quotes.models import RegionAssumption


def data_version_get() -> tuple:
    """Everything an answer is computed from that can change at run time: the catalog's parts
    and prices, the cloud prices and offers, the hosting offers of the market band, the ECB's
    exchange rates, the staff's regional assumptions, the date before which a price is stale
    (time and PRICE_STALE_DAYS), and the engine's own code (``ENGINE_VERSION``: a deploy that
    changes a formula computes every question again). Each read from the database at most once
    per ``DATA_VERSION_MS`` in this process: every process sees a change within that time."""
    return (
        ENGINE_VERSION,
        catalog_version_get(),
        cloud_prices_version_get(),
        hosting_offers_version_get(),
        exchange_rates_version_get(),  # the ECB's dated rates
        region_assumptions_version_get(),
        # It moves at midnight, or when the setting changes (kept per setting).
        trusted_version(f"stale-before-{settings.PRICE_STALE_DAYS}", price_stale_before),
    )


def data_version_key() -> str:
    """``data_version_get`` as a short key to store with what was computed from it (a SHA-256
    of its repr): the same data gives the same key in every process."""
    return hashlib.sha256(repr(data_version_get()).encode()).hexdigest()


def region_assumptions_version_get() -> str:
    """A hash of the staff's regional assumptions: their content, since a row changed by a bulk
    update keeps its ``updated_at``."""
    return trusted_version("region-assumptions", _region_assumptions_hash)


def _region_assumptions_hash() -> str:
    rows = RegionAssumption.objects.order_by("id").values_list(
        "region", "name", "value", "currency", "source"
    )
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()


def region_facts_get(*, region: str) -> dict[str, Fact]:
    """The staff-maintained defaults for a region, as engine facts."""
    return {
        row.name: Fact(row.value, row.currency or None, row.source)
        for row in RegionAssumption.objects.filter(region=region.upper())
    }


def assumptions_get(*, region: str, currency: str, gpu_model: str | None = None) -> Assumptions:
    """The defaults for a region in a currency: staff edits over the engine's sourced figures,
    and, for a GPU model, the latest cloud price the price feeds brought (with its source).
    Kept per data version (an immutable value; every TCO asks for it)."""
    return _assumptions(region, currency, gpu_model, data_version_get())


@lru_cache(maxsize=1024)
def _assumptions(region: str, currency: str, gpu_model: str | None, _version: tuple) -> Assumptions:
    edited = region_facts_get(region=region)
    key = gpu_model_key(gpu_model)
    cloud = None if key is None else cloud_price_current_get(gpu_model=key, currency=currency)
    if cloud is not None:
        edited["cloud_price_per_gpu_hour"] = Fact(
            cloud.price_per_gpu_hour.amount,
            cloud.price_per_gpu_hour.currency,
            f"{cloud.provider}, {cloud.observed_on.isoformat()}: {cloud.source}",
        )
    # The ECB's latest reference rates replace the built-in annual averages, with their date.
    edited.update(exchange_rate_facts_get())
    return region_defaults(region, currency, gpu_model=gpu_model, edited=edited)


per_version_cache(_assumptions.cache_clear)


def catalog_gpus_get(*, currency: str) -> tuple[GpuSpec, ...]:
    """The GPU models of the current catalog, priced in ``currency`` (price None: not for sale)."""
    return catalog_snapshot_get(currency=currency).gpus


# How long the result page's list of GPU models may lag the catalog: a model removed since is
# refused, named, when the form is posted (validated against the catalog itself).
GPU_CHOICES_CACHE_SECONDS = 300


def catalog_gpu_choices_get(*, currency: str) -> list[tuple[str, str]]:
    """(SKU, name) of the GPU models for sale, for the result page's re-pricing form; from the
    shared cache, so that a stored result's page costs no catalog query."""

    def build() -> list[tuple[str, str]]:
        gpus = catalog_snapshot_get(currency=currency).gpus
        return sorted(
            ((gpu.sku, gpu.name) for gpu in gpus if gpu.price is not None),
            key=lambda choice: choice[1],
        )

    key = f"catalog-gpu-choices:v1:{currency}"
    return cast(list[tuple[str, str]], cache.get_or_set(key, build, GPU_CHOICES_CACHE_SECONDS))


def catalog_gpu_get(*, sku: str) -> GpuSpec | None:
    """An offered GPU by SKU, with its current EUR price (sizing needs only its specifications)."""
    return next((g for g in catalog_snapshot_get(currency="EUR").gpus if g.sku == sku), None)


def advice_get(
    *,
    workload: Workload,
    environment: Environment,
    currency: str,
    budget: Money | None = None,
    growth_gpus: int = 0,
    always_on: bool = False,
    preference: GpuPreference | None = None,
    repair_hours: int = SERVER_REPAIR_HOURS,
) -> Advice:
    """Sizing and the builder's options for a workload, against the current catalog;
    ``always_on``: the service runs around the clock (N+1 in production); ``repair_hours``:
    the chosen service tier's time to replace a failed server."""
    return advise(
        workload,
        catalog_snapshot_get(currency=currency),
        environment=environment,
        budget=budget,
        growth_gpus=growth_gpus,
        always_on=always_on,
        preference=preference,
        index=catalog_search_index_get(currency=currency),
        repair_hours=repair_hours,
    )


def repair_hours_of(tier: ServiceTier | None) -> int:
    """Hours to replace a failed server under ``tier`` (the chosen or the default service
    tier): the repair time the N+1 availability is computed with; the rule's default without
    one."""
    return SERVER_REPAIR_HOURS if tier is None else tier.replacement_hours


def managed_offer_get(
    *,
    configuration: TcoConfiguration,
    region: str,
    currency: str,
    overrides: Mapping[str, Decimal],
) -> ManagedOffer:
    """The host's managed-hosting price of one server of ``configuration``, with the region's
    defaults and the caller's overrides: the same figures ``tco_get`` bills."""
    assumptions = assumptions_get(
        region=region, currency=currency, gpu_model=configuration.gpu_model
    )
    if overrides:
        assumptions = assumptions.with_overrides(**overrides)
    return managed_offer(
        configuration,
        assumptions.for_gpu_model(configuration.gpu_model),
        market=hosting_offers_current_get(),
    )


def priced_assumptions_get(
    *, region: str, currency: str, gpu_model: str | None, overrides: Mapping[str, Decimal]
) -> Assumptions:
    """The assumptions a configuration is priced with: the region's defaults (staff edits
    included), the GPU's latest cloud price, the caller's overrides, resolved for the GPU."""
    assumptions = assumptions_get(region=region, currency=currency, gpu_model=gpu_model)
    if overrides:
        assumptions = assumptions.with_overrides(**overrides)
    return assumptions.for_gpu_model(gpu_model)


def tco_get(
    *,
    configuration: TcoConfiguration,
    horizon_years: int,
    utilization: Decimal,
    region: str,
    currency: str,
    overrides: Mapping[str, Decimal],
    always_on: bool = False,
    assumptions: Assumptions | None = None,
    service_tier: ServiceTier | None = None,
) -> TcoResult:
    """The TCO of a configuration with the region's defaults and the caller's overrides;
    ``always_on``: a service running around the clock (cloud billed for every hour).

    Raises the engine's ``AssumptionError`` / ``TcoInputError`` (each names its field).
    ``assumptions``: already read with ``priced_assumptions_get`` (saves the queries).
    """
    if assumptions is None:
        assumptions = priced_assumptions_get(
            region=region,
            currency=currency,
            gpu_model=configuration.gpu_model,
            overrides=overrides,
        )
    return compute_tco(
        TcoInput(
            configuration=configuration,
            horizon_years=horizon_years,
            utilization=utilization,
            region=region,
            currency=currency,
            assumptions=assumptions,
            always_on=always_on,
            service_tier=service_tier,
            market_offers=hosting_offers_current_get(),
        )
    )


def cloud_market_for_gpu_get(*, gpu_model: str | None, currency: str) -> CloudMarket | None:
    """The cheapest cloud offers and reserved price for a configuration's GPU (a name or a model
    key); ``None`` when the GPU has no model key. Offers stay in US dollars as published."""
    key = gpu_model_key(gpu_model)
    return None if key is None else cloud_market_get(gpu_model=key, currency=currency)
