"""``compute(inputs) -> AdviceResult``: the one computation behind the wizard, partner quotes and
the checklist, against the current catalog and regional assumptions.

Sizing and the builder's options for the workload, then the TCO of the balanced option (or the
only one), the job on the recommended GPUs and on a single consumer workstation card for
comparison, and what each option delivers (``engine.performance``). Engine objects
throughout: nothing is turned into dicts and read back.
"""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from catalog.selectors import catalog_snapshot_get, price_ages_get
from catalog.selectors.hosting_offers import hosting_offers_current_get
from catalog.selectors.service_tiers import service_tier_get
from engine.advice.on_gpu import sized_on
from engine.advice.pipeline import tco_configuration
from engine.advice.recommendation import chosen_option
from engine.assumptions import Assumptions
from engine.build.builder import BuiltOption, Environment, Tier
from engine.build.configuration import GpuPreference
from engine.build.parts import GpuClass, GpuSpec
from engine.commerce.exchange import rates_involved
from engine.money import Money
from engine.performance.options import options_performance, served_by
from engine.tco import ManagedOffer, TcoResult, job_cost, managed_offer
from engine.workload import Workload, workload_from_dict
from engine.workload.registry import get_model
from quotes.advice.calculators import gpu_preference
from quotes.advice.inputs import Uptime
from quotes.advice.result import (
    AdviceInputs,
    AdviceResult,
    GpuChoice,
    ModelSummary,
    Rental,
)
from quotes.advice.selectors import (
    advice_get,
    assumptions_get,
    priced_assumptions_get,
    repair_hours_of,
    tco_get,
)

# The single consumer GPU workstation the recommended configuration is compared with.
WORKSTATION_GPU_SKU = "NVIDIA-RTX4090-24GB"
# Regional defaults shown next to the customer's own values (with their sources).
SHOWN_DEFAULTS = ("electricity_price_per_kwh", "pue", "grid_carbon_kg_per_kwh")


def _workstation_gpu(gpus: tuple[GpuSpec, ...]) -> GpuSpec | None:
    named = next((gpu for gpu in gpus if gpu.sku == WORKSTATION_GPU_SKU), None)
    if named is not None:
        return named
    consumer = [gpu for gpu in gpus if gpu.gpu_class is GpuClass.CONSUMER]
    return max(consumer, key=lambda gpu: (gpu.bf16_tflops, gpu.memory_gb), default=None)


def _model_summary(workload: Workload) -> ModelSummary:
    entry = None if workload.model is None else get_model(workload.model)
    if entry is not None:
        return ModelSummary(entry.id, entry.name, round(entry.parameters / 1e9, 3))
    return ModelSummary(None, None, workload.parameters_billions)


def _choice(gpu: GpuSpec, count: int) -> GpuChoice:
    return GpuChoice(sku=gpu.sku, name=gpu.name, count=count, memory_gb=gpu.memory_gb)


def _preference(inputs: AdviceInputs) -> GpuPreference | None:
    return gpu_preference(gpu_sku=inputs.gpu_sku, min_gpus=inputs.gpu_count)


def compute(inputs: AdviceInputs) -> AdviceResult:
    """Raises the engine's ``WorkloadError`` / ``AssumptionError`` / ``TcoInputError``."""
    workload = workload_from_dict(inputs.workload)
    currency = inputs.currency
    # The managed offer's service tier: its replacement time is the repair time the N+1
    # availability is computed with.
    service_tier = service_tier_get(code=inputs.service_tier or None, currency=currency)
    advice = advice_get(
        workload=workload,
        environment=Environment(inputs.environment),
        currency=currency,
        budget=None if inputs.budget is None else Money(inputs.budget, currency),
        growth_gpus=inputs.growth_gpus,
        always_on=inputs.uptime == Uptime.ALWAYS_ON,
        preference=_preference(inputs),
        repair_hours=repair_hours_of(service_tier),
    )
    chosen = chosen_option(advice.build.options)
    tco = None
    overrides = {name: Decimal(value) for name, value in inputs.overrides.items()}
    priced = None
    if chosen is not None:
        priced = priced_assumptions_get(
            region=inputs.region,
            currency=currency,
            gpu_model=tco_configuration(chosen).gpu_model,
            overrides=overrides,
        )
        tco = tco_get(
            assumptions=priced,
            configuration=tco_configuration(chosen),
            horizon_years=inputs.horizon_years,
            utilization=inputs.utilization,
            region=inputs.region,
            currency=currency,
            overrides=overrides,
            always_on=inputs.uptime == Uptime.ALWAYS_ON,
            service_tier=service_tier,
        )

    snapshot = catalog_snapshot_get(currency=currency)
    gpus = snapshot.gpus
    recommended = None
    on_recommended = None
    if chosen is not None:
        sku = chosen.gpu_line.sku
        gpu = next((gpu for gpu in gpus if gpu.sku == sku), None)
        if gpu is not None:
            recommended = _choice(gpu, chosen.totals.gpus)
            on_recommended = sized_on(workload, gpu, chosen.totals.gpus)
    workstation = _workstation_gpu(gpus)
    defaults = assumptions_get(region=inputs.region, currency=currency)
    managed = _managed_offers(advice.build.options, chosen, tco, defaults, inputs)
    rental = None
    if chosen is None and advice.build.budget_needed is not None:
        rental = _rental(workload, inputs, defaults)
    job = None
    hours = None if on_recommended is None else on_recommended.training_hours
    if chosen is not None and priced is not None and hours:
        job = job_cost(
            hours,
            tco_configuration(chosen),
            priced,
            managed[chosen.tier],
            None if tco is None else tco.service_tier,
        )
    ages = price_ages_get(currency=currency)
    built_skus = {line.sku for option in advice.build.options for line in option.parts}
    return AdviceResult(
        inputs=inputs,
        model=_model_summary(workload),
        sizing=advice.sizing,
        build=advice.build,
        chosen_tier=None if chosen is None else chosen.tier,
        tco=tco,
        recommended_gpu=recommended,
        on_recommended=on_recommended,
        workstation_gpu=None if workstation is None else _choice(workstation, 1),
        on_workstation=None if workstation is None else sized_on(workload, workstation, 1),
        defaults=tuple(defaults[name] for name in SHOWN_DEFAULTS if name in defaults),
        price_ages={sku: age for sku, age in sorted(ages.items()) if sku in built_skus},
        # The rates the built parts' prices were converted at (none when every one was observed
        # in the answer's currency).
        exchange_rates=rates_involved(
            snapshot.exchange_rates,
            (age.observed_in for sku, age in ages.items() if sku in built_skus),
            currency,
        ),
        performance=options_performance(workload, advice.build.options, gpus),
        workstation_performance=None
        if workstation is None or workload.is_training
        else served_by(workload, workstation, 1, 1),
        managed_offers=MappingProxyType(managed),
        job=job,
        rental=rental,
    )


def _managed_offers(
    options: tuple[BuiltOption, ...],
    chosen: BuiltOption | None,
    tco: TcoResult | None,
    defaults: Assumptions,
    inputs: AdviceInputs,
) -> dict[Tier, ManagedOffer]:
    """The host's price of each option's servers: the chosen option's is the one its TCO
    billed; the others' come from the same regional assumptions and the customer's overrides."""
    given = _with_overrides(defaults, inputs)
    offers = {}
    for option in options:
        if option is chosen and tco is not None and tco.managed_offer is not None:
            offers[option.tier] = tco.managed_offer
            continue
        configuration = tco_configuration(option)
        offers[option.tier] = managed_offer(
            configuration,
            given.for_gpu_model(configuration.gpu_model),
            market=hosting_offers_current_get(),
        )
    return offers


def _with_overrides(defaults: Assumptions, inputs: AdviceInputs) -> Assumptions:
    if not inputs.overrides:
        return defaults
    return defaults.with_overrides(**{name: Decimal(v) for name, v in inputs.overrides.items()})


def _rental(workload: Workload, inputs: AdviceInputs, defaults: Assumptions) -> Rental | None:
    """The budget is below every sound configuration: the cheapest of them, built without the
    budget, rented from the host instead of bought (no purchase to fund)."""
    unbounded = advice_get(
        workload=workload,
        environment=Environment(inputs.environment),
        currency=inputs.currency,
        growth_gpus=inputs.growth_gpus,
        always_on=inputs.uptime == Uptime.ALWAYS_ON,
        preference=_preference(inputs),
    )
    if not unbounded.build.options:
        return None
    cheapest = min(unbounded.build.options, key=lambda option: option.totals.price.amount)
    configuration = tco_configuration(cheapest)
    offer = managed_offer(
        configuration,
        _with_overrides(defaults, inputs).for_gpu_model(configuration.gpu_model),
        market=hosting_offers_current_get(),
    )
    gpu = cheapest.gpu_line.name
    return Rental(servers=cheapest.servers, gpus=cheapest.totals.gpus, gpu_name=gpu, offer=offer)
