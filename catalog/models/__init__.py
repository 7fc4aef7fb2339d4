"""The catalog's models, by concern: parts, prices, price feeds (sources and runs), quarantine,
managed hosting's service tiers.

Every model is imported here, so Django registers it and ``from catalog.models import X`` works.
"""

from catalog.models.audit import Audited
from catalog.models.cloud_offers import CloudOffer as CloudOffer
from catalog.models.electricity import ElectricityPriceProposal as ElectricityPriceProposal
from catalog.models.exchange_rates import ExchangeRate as ExchangeRate
from catalog.models.feeds import (
    PriceRefreshRun,
    PriceSource,
    RunStatus,
    RunTrigger,
    price_source_location_errors,
)
from catalog.models.hosting_offers import HostingOffer as HostingOffer
from catalog.models.parts import (
    Cable,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    NetworkSwitch,
    Part,
    StorageServer,
)
from catalog.models.prices import CloudPrice, Price, PriceKind
from catalog.models.quarantine import QuarantinedPrice, ReviewStatus
from catalog.models.services import MONTHLY_PRICE_FIELDS, ServiceTier

__all__ = [
    "MONTHLY_PRICE_FIELDS",
    "Audited",
    "Cable",
    "Chassis",
    "CloudPrice",
    "Cpu",
    "Drive",
    "Gpu",
    "MemoryModule",
    "NetworkCard",
    "NetworkSwitch",
    "Part",
    "Price",
    "PriceKind",
    "PriceRefreshRun",
    "PriceSource",
    "QuarantinedPrice",
    "ReviewStatus",
    "RunStatus",
    "RunTrigger",
    "ServiceTier",
    "StorageServer",
    "price_source_location_errors",
]
