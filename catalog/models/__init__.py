"""The catalog's models, by concern: parts, prices, price feeds (sources and runs), quarantine.

Every model is imported here, so Django registers it and ``from catalog.models import X`` works.
"""

from catalog.models.audit import Audited
from catalog.models.feeds import (
    FeedFormat,
    PriceRefreshRun,
    PriceSource,
    PriceSourceKind,
    RunStatus,
    RunTrigger,
    price_source_location_errors,
)
from catalog.models.parts import (
    Availability,
    Chassis,
    Cooling,
    Cpu,
    Drive,
    DriveKind,
    FormFactor,
    Gpu,
    GpuClass,
    MemoryModule,
    NetworkCard,
    Part,
    PartKind,
)
from catalog.models.prices import CloudPrice, Commitment, Price, PriceKind
from catalog.models.quarantine import QuarantinedPrice, ReviewStatus

__all__ = [
    "Audited",
    "Availability",
    "Chassis",
    "CloudPrice",
    "Commitment",
    "Cooling",
    "Cpu",
    "Drive",
    "DriveKind",
    "FeedFormat",
    "FormFactor",
    "Gpu",
    "GpuClass",
    "MemoryModule",
    "NetworkCard",
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
    "price_source_location_errors",
]
