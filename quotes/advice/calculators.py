"""The public calculators' answers, one service each, beside ``compute``: ``sizing_answer``,
``configurations_answer`` and ``tco_answer``. The API's views validate a request, call one of
them and serialise what it returns; the wizard can call them too. Engine objects in, engine
objects out (frozen dataclasses); a request the catalog or the cost model cannot answer raises
Django's ``ValidationError`` naming the field, as the other services do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from catalog.selectors import catalog_snapshot_get, price_ages_get
from catalog.selectors.cloud_offers import CloudMarket
from catalog.selectors.service_tiers import service_tier_get
from engine.advice.on_gpu import gpu_profile
from engine.advice.pipeline import Advice, tco_configuration
from engine.advice.recommendation import Recommendation, chosen_option, recommend
from engine.assumptions import AssumptionError
from engine.build.builder import BuiltOption, Environment, Tier
from engine.build.configuration import GpuPreference
from engine.build.parts import GpuSpec, PriceAge
from engine.commerce.exchange import DatedRate
from engine.money import Money
from engine.performance.options import option_performance, options_performance
from engine.performance.results import Performance
from engine.sizing import (
    GpuProfile,
    Sizing,
    max_concurrent_requests,
    max_context_length,
    min_gpus,
    size,
)
from engine.sizing.training_plan import TrainingPlan, training_plan
from engine.tco import JobCost, TcoConfiguration, TcoInputError, TcoResult, job_cost
from engine.workload import Workload, WorkloadError
from quotes.advice.inputs import DEFAULT_CURRENCY
from quotes.advice.presenters import text
from quotes.advice.selectors import (
    advice_get,
    cloud_market_for_gpu_get,
    priced_assumptions_get,
    repair_hours_of,
    tco_get,
)

# --- Sizing ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reach:
    """Serving on the GPUs given: the longest context and the most concurrent requests that fit
    (None when the model has no KV cache to size them by)."""

    max_context_length: int | None
    max_concurrent_requests: int | None


@dataclass(frozen=True, slots=True)
class SizingAnswer:
    sizing: Sizing  # its ``min_gpus`` for GPUs of ``gpu_memory_gb`` when that was asked
    reach: Reach | None  # serving (not training) on a catalog GPU given
    plan: TrainingPlan | None = None  # training: how it runs on the GPUs it is sized for


def reach_on(workload: Workload, gpu: GpuProfile, gpus: int) -> Reach:
    """The longest context and the most concurrent requests that fit (models with a KV cache)."""
    try:
        return Reach(
            max_context_length=max_context_length(workload, gpu=gpu, gpus=gpus),
            max_concurrent_requests=max_concurrent_requests(workload, gpu=gpu, gpus=gpus),
        )
    except WorkloadError:
        return Reach(max_context_length=None, max_concurrent_requests=None)


def sizing_answer(
    *,
    workload: Workload,
    gpu: GpuSpec | None = None,
    gpus: int | None = None,
    gpu_memory_gb: float | None = None,
) -> SizingAnswer:
    """What the workload needs, on the catalog GPU given (and ``gpus`` of them) if any; with
    ``gpu_memory_gb``, the fewest GPUs of that memory size it fits on."""
    profile = None if gpu is None else gpu_profile(gpu)
    sizing = size(workload, gpu=profile, gpus=gpus)
    reach = None
    if profile is not None and not workload.is_training:
        reach = reach_on(workload, profile, gpus or sizing.gpus)
    if gpu_memory_gb is not None:
        sizing = replace(sizing, min_gpus=min_gpus(workload, gpu_memory_gb=gpu_memory_gb))
    return SizingAnswer(sizing=sizing, reach=reach, plan=training_plan(sizing, workload))


# --- The customer's own GPU ----------------------------------------------------------------------


def gpu_preference(*, gpu_sku: str = "", min_gpus: int = 0) -> GpuPreference | None:
    """The customer's own GPU model (a catalog SKU, "" for any) and count (at least, 0: what the
    job needs), as the builder takes them: the result page's re-pricing and the API's ``gpu``
    and ``min_gpus`` alike. None: no preference."""
    if not gpu_sku and not min_gpus:
        return None
    return GpuPreference(sku=gpu_sku, count=min_gpus)


# --- Configurations -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConfigurationsAnswer:
    advice: Advice  # the job's sizing and the builder's options
    performance: Mapping[Tier, Performance]  # what each option delivers
    price_ages: Mapping[str, PriceAge]  # SKU -> its price's date, staleness and origin
    exchange_rates: tuple[DatedRate, ...]  # the rates converted prices were converted at
    recommendation: Recommendation | None  # the balanced option (the only one otherwise)


def configurations_answer(
    *,
    workload: Workload,
    environment: Environment,
    currency: str,
    budget: Decimal | None = None,
    growth_gpus: int = 0,
    always_on: bool = False,
    gpu_sku: str = "",
    min_gpus: int = 0,
) -> ConfigurationsAnswer:
    """Balanced server configurations for the workload from the catalog, in ``currency``;
    ``gpu_sku`` and ``min_gpus``: only that GPU model, at least that many (``gpu_preference``)."""
    advice = advice_get(
        workload=workload,
        environment=environment,
        currency=currency,
        budget=None if budget is None else Money(budget, currency),
        growth_gpus=growth_gpus,
        always_on=always_on,
        preference=gpu_preference(gpu_sku=gpu_sku, min_gpus=min_gpus),
        repair_hours=repair_hours_of(service_tier_get(code=None, currency=currency)),
    )
    snapshot = catalog_snapshot_get(currency=currency)
    chosen = chosen_option(advice.build.options)
    return ConfigurationsAnswer(
        advice=advice,
        performance=options_performance(workload, advice.build.options, snapshot.gpus),
        price_ages=price_ages_get(currency=currency),
        exchange_rates=snapshot.exchange_rates,
        recommendation=None if chosen is None else recommend(chosen, advice.sizing),
    )


# --- TCO ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Built:
    """The option built for a workload, priced in ``currency``, and what it delivers."""

    option: BuiltOption
    sizing: Sizing  # the job's
    performance: Performance | None
    price_ages: Mapping[str, PriceAge]
    exchange_rates: tuple[DatedRate, ...]


@dataclass(frozen=True, slots=True)
class TcoAnswer:
    result: TcoResult
    market: CloudMarket | None  # the cloud offers for the configuration's GPU
    job: JobCost | None  # one training run, rented or bought
    recommendation: Recommendation | None  # with a workload
    built: Built | None  # with a workload: the option the costs are for


def _built(
    workload: Workload,
    *,
    environment: Environment,
    currency: str,
    always_on: bool,
    preference: GpuPreference | None = None,
    repair_hours: int,
) -> Built:
    """The balanced option for a workload (the budget one when it is the only one), what it
    delivers, and the job's sizing; ``repair_hours``: the service tier's, for its availability."""
    advice = advice_get(
        workload=workload,
        environment=environment,
        currency=currency,
        always_on=always_on,
        preference=preference,
        repair_hours=repair_hours,
    )
    chosen = chosen_option(advice.build.options)
    if chosen is None:
        raise ValidationError({"workload": [text(message) for message in advice.build.unmet]})
    snapshot = catalog_snapshot_get(currency=currency)
    return Built(
        option=chosen,
        sizing=advice.sizing,
        performance=option_performance(workload, chosen, snapshot.gpus),
        price_ages=price_ages_get(currency=currency),
        exchange_rates=snapshot.exchange_rates,
    )


def tco_answer(
    *,
    configuration: TcoConfiguration | None = None,
    workload: Workload | None = None,
    environment: Environment,
    always_on: bool,
    horizon_years: int,
    utilization: Decimal,
    region: str,
    currency: str | None = None,
    overrides: Mapping[str, Decimal],
    service_tier: str | None = None,
    gpu_sku: str = "",
    min_gpus: int = 0,
) -> TcoAnswer:
    """Buying vs managed hosting vs cloud for a configuration, or for the option built for a
    workload (exactly one of them; ``gpu_sku`` and ``min_gpus`` as ``configurations_answer``'s);
    ``currency`` defaults to the configuration's prices'."""
    built = None
    if workload is not None:
        built = _built(
            workload,
            environment=environment,
            currency=currency or DEFAULT_CURRENCY,
            always_on=always_on,
            preference=gpu_preference(gpu_sku=gpu_sku, min_gpus=min_gpus),
            repair_hours=repair_hours_of(
                service_tier_get(code=service_tier, currency=currency or DEFAULT_CURRENCY)
            ),
        )
        configuration = tco_configuration(built.option)
    if configuration is None:
        raise ValueError("tco_answer needs a configuration or a workload")
    currency = currency or configuration.price.currency
    if configuration.price.currency != currency:
        raise ValidationError(
            {"currency": [_("The configuration's prices are in %(c)s.") % {"c": currency}]}
        )
    try:
        priced = priced_assumptions_get(
            region=region,
            currency=currency,
            gpu_model=configuration.gpu_model,
            overrides=overrides,
        )
        result = tco_get(
            assumptions=priced,
            configuration=configuration,
            horizon_years=horizon_years,
            utilization=utilization,
            region=region,
            currency=currency,
            overrides=overrides,
            always_on=always_on,
            service_tier=service_tier_get(code=service_tier, currency=currency),
        )
    except (AssumptionError, TcoInputError) as exc:
        raise ValidationError({exc.field: [text(exc.message)]}) from exc
    training = None if built is None or built.performance is None else built.performance.training
    hours = None if training is None else training.hours
    job = None
    if hours and result.managed_offer is not None:
        job = job_cost(hours, configuration, priced, result.managed_offer, result.service_tier)
    return TcoAnswer(
        result=result,
        market=cloud_market_for_gpu_get(gpu_model=configuration.gpu_model, currency=currency),
        job=job,
        recommendation=None
        if built is None
        else recommend(built.option, built.sizing, tco=result, offer=result.managed_offer, job=job),
        built=built,
    )
