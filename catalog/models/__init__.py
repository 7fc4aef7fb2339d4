"""The catalog's models, by concern: parts, prices, price feeds (sources and runs), quarantine,
managed hosting's service tiers.

Every model is imported here, so Django registers it and ``from catalog.models import X`` works.
"""

from catalog.models.audit import Audited
from catalog.models.cloud_offers import CloudOffer as CloudOffer
from catalog.models.electricity import ElectricityPriceProposal as ElectricityPriceProposal
from catalog.models.exchange_rates import ExchangeRate as ExchangeRate
from catalog.models.feeds import (
    FeedFormat,
    PriceRefreshRun,
    PriceSource,
    PriceSourceKind,
    RunStatus,
    RunTrigger,
    price_source_location_errors,
)
from catalog.models.hosting_offers import HostingOffer as HostingOffer
from catalog.models.parts import (
    Availability,
    Cable,
    CableEnds,
    CableKind,
    Chassis,
    Cooling,
    Cpu,
    Drive,
    DriveFormFactor,
    DriveKind,
    FormFactor,
    Gpu,
    GpuClass,
    MemoryModule,
    NetworkCard,
    NetworkSwitch,
    Part,
    PartKind,
    StorageServer,
)
from catalog.models.prices import CloudPrice, Commitment, Price, PriceKind
from catalog.models.quarantine import QuarantinedPrice, ReviewStatus
from catalog.models.services import MONTHLY_PRICE_FIELDS, ServiceCoverage, ServiceTier

__all__ = [
    "MONTHLY_PRICE_FIELDS",
    "Audited",
    "Availability",
    "Cable",
    "CableEnds",
    "CableKind",
    "Chassis",
    "CloudPrice",
    "Commitment",
    "Cooling",
    "Cpu",
    "Drive",
    "DriveFormFactor",
    "DriveKind",
    "FeedFormat",
    "FormFactor",
    "Gpu",
    "GpuClass",
    "MemoryModule",
    "NetworkCard",
    "NetworkSwitch",
    "Part",
    "PartKind",
    "Price",
    "PriceKind",
    "PriceRefreshRun",
    "PriceSource",
    "PriceSourceKind",
    "QuarantinedPrice",
    "ReviewStatus",
    "RunStatus",
    "RunTrigger",
    "ServiceCoverage",
    "ServiceTier",
    "StorageServer",
    "price_source_location_errors",
]
