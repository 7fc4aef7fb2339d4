"""The one result object: what GPUQuote advises for a set of answers, as the engine computed it.

``AdviceResult`` flows unchanged from ``advice.compute`` to the wizard's result page, the
checklist PDF, the quote builder and the partner API; it is stored language-neutral with
``advice.store`` and rendered in the reader's language only at the edge (``advice.presenters``).
Pure: no Django import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from engine.advice.recommendation import Recommendation, recommend
from engine.assumptions import Assumption
from engine.build.builder import BuildResult, BuiltOption, Tier
from engine.build.parts import PriceAge
from engine.commerce.exchange import DatedRate
from engine.money import Money
from engine.performance.results import Performance
from engine.sizing import Sizing
from engine.sizing.training_plan import TrainingPlan, training_plan
from engine.tco import JobCost, ManagedOffer, TcoResult
from engine.workload import WorkloadError, workload_from_dict


@dataclass(frozen=True, slots=True)
class AdviceInputs:
    """Everything the computation needs: the wizard's four validated steps, or a partner's
    request (``quotes.advice.inputs`` holds their defaults)."""

    workload: Mapping[str, Any]  # the engine's JSON shape (``workload_from_dict``)
    environment: str
    uptime: str
    growth_gpus: int
    deployment: str
    region: str
    currency: str
    horizon_years: int
    utilization: Decimal
    budget: Decimal | None
    overrides: Mapping[str, str]  # assumption name -> decimal string
    # The customer's own GPU model (catalog SKU, "" for the builder's choice) and least count
    # (0: the job's need), set when re-pricing on the result page (engine GpuPreference).
    gpu_sku: str = ""
    gpu_count: int = 0
    # The managed offer's service tier (catalog code; "" for the catalog's default tier).
    service_tier: str = ""


@dataclass(frozen=True, slots=True)
class ModelSummary:
    """The model the customer named (registry id and name), or only its size."""

    id: str | None
    name: str | None
    parameters_billions: float | None


@dataclass(frozen=True, slots=True)
class GpuChoice:
    sku: str
    name: str
    count: int  # GPUs of the recommended option, all servers
    memory_gb: float  # GB = 10^9 bytes, per GPU


@dataclass(frozen=True, slots=True)
class Rental:
    """The cheapest sound configuration, rented in managed hosting: no purchase to fund."""

    servers: int
    gpus: int
    gpu_name: str
    offer: ManagedOffer  # one server

    def monthly(self, months: int) -> Money:
        """All servers, per month, on a contract of ``months`` (0: no commitment)."""
        fee = self.offer.term(months).monthly
        return Money(fee.amount * self.servers, fee.currency)


@dataclass(frozen=True, slots=True)
class AdviceResult:
    inputs: AdviceInputs
    model: ModelSummary
    sizing: Sizing  # the job on its own (no GPU chosen)
    build: BuildResult
    chosen_tier: Tier | None  # balanced when built, else the only option; None: nothing fits
    tco: TcoResult | None  # of the chosen option
    recommended_gpu: GpuChoice | None
    on_recommended: Sizing | None  # the job on the chosen option's GPUs
    workstation_gpu: GpuChoice | None  # the consumer card it is compared with (count 1)
    on_workstation: Sizing | None
    defaults: tuple[Assumption, ...]  # the regional defaults shown beside the customer's values
    price_ages: Mapping[str, PriceAge]  # SKU -> the date of the price each part was built with
    # What each option delivers (decode speed, images/s, training time, software stack); empty
    # in results stored before it was computed.
    performance: Mapping[Tier, Performance] = field(default_factory=lambda: MappingProxyType({}))
    # The host's managed-hosting price of one server of each option, every contract term (the
    # chosen option's is its TCO's); empty in results stored before the host's price model.
    managed_offers: Mapping[Tier, ManagedOffer] = field(
        default_factory=lambda: MappingProxyType({})
    )
    # A training or fine-tuning run on the chosen option, rented or bought (None: a service,
    # or a result stored before job costs)
    job: JobCost | None = None
    # A budget below every sound configuration: renting the cheapest of them from the host
    # instead (None otherwise, and in results stored before it was offered).
    rental: Rental | None = None
    # The reference rates the parts' prices observed in another currency were converted at
    # (empty when none was, and in results stored before prices were converted where used).
    exchange_rates: tuple[DatedRate, ...] = ()
    # The workstation card served by the options' own speed model (``engine.performance``), so
    # the page compares like with like; None for training and in results stored before it.
    workstation_performance: Performance | None = None

    @property
    def chosen(self) -> BuiltOption | None:
        return next((o for o in self.build.options if o.tier == self.chosen_tier), None)

    @property
    def training_plan(self) -> TrainingPlan | None:
        """How the training job runs on the chosen option's GPUs (None: a service, no option,
        or a stored workload this engine no longer reads)."""
        if self.on_recommended is None:
            return None
        try:
            workload = workload_from_dict(self.inputs.workload)
        except WorkloadError:
            return None
        return training_plan(self.on_recommended, workload)

    @property
    def recommendation(self) -> Recommendation | None:
        """The answer first: the chosen option, three reasons, its cost each way."""
        chosen = self.chosen
        if chosen is None:
            return None
        return recommend(
            chosen,
            self.sizing,
            tco=self.tco,
            offer=self.managed_offers.get(chosen.tier),
            job=self.job,
        )
