"""What the TCO model returns: per-option costs, break-evens, sensitivity rows, book values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..assumptions import Assumption
from ..commerce.service_tiers import ServiceTier
from ..i18n import Message
from ..money import Money
from .hosting import ManagedOffer
from .inputs import SensitivityParameter, Way

# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OptionCost:
    option: Way
    total: Money
    by_category: Mapping[str, Money]
    monthly: tuple[Money, ...]  # month 1..N; month 1 carries the one-offs
    monthly_cumulative: tuple[Money, ...]  # month 1..N
    yearly: tuple[Money, ...]  # year 1..horizon
    npv: Money | None  # None when no discount rate is set
    cost_per_gpu_hour: Money  # total / GPU-hours actually used
    includes: Message


@dataclass(frozen=True, slots=True)
class BreakEven:
    """First month (1-based) from which buying stays cheaper in cumulative cash; None: never."""

    vs_managed: int | None
    vs_cloud: int | None
    vs_cloud_reserved: int | None


@dataclass(frozen=True, slots=True)
class SensitivityRow:
    parameter: SensitivityParameter
    value: Decimal  # electricity: relative change (-0.5 = -50%); utilisation; years
    label: Message
    totals: Mapping[str, Money]  # option -> cash total
    break_even: BreakEven


@dataclass(frozen=True, slots=True)
class BookValue:
    year: int
    depreciation: Money
    book_value: Money  # at the end of the year


@dataclass(frozen=True, slots=True)
class TcoResult:
    currency: str
    horizon_months: int
    utilization: Decimal
    on_premises: OptionCost
    managed: OptionCost | None  # None only in results stored before the host priced every server
    cloud: OptionCost | None  # None: no cloud price known for the GPU
    cloud_reserved: OptionCost | None
    break_even_month: BreakEven
    cheapest: Way
    sensitivity: tuple[SensitivityRow, ...]
    it_energy_kwh_per_year: Decimal
    facility_energy_kwh_per_year: Decimal
    co2e_kg_per_year: Decimal
    book_values: tuple[BookValue, ...]  # on-premises capital, not a cash line
    assumptions: tuple[Assumption, ...]
    explanations: tuple[Message, ...]
    # The host's price of one server for every contract term; ``managed`` bills the term the
    # horizon signs. None only in results stored before the provider's price model.
    managed_offer: ManagedOffer | None = None
    # The managed offer's service tier the support line prices; None: none chosen.
    service_tier: ServiceTier | None = None

    @property
    def options(self) -> Mapping[Way, OptionCost]:
        found = (self.on_premises, self.managed, self.cloud, self.cloud_reserved)
        return MappingProxyType({cost.option: cost for cost in found if cost is not None})
