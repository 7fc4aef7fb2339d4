"""What the TCO model takes: the limits, the options and categories, the configuration and input."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from ..assumptions import Assumptions
from ..commerce.service_tiers import ServiceTier
from ..i18n import Message, gettext_noop
from ..money import Money
from .market import MarketOffers

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730  # 8,760 / 12
MONTHS_PER_YEAR = 12
MIN_HORIZON_YEARS = 1
MAX_HORIZON_YEARS = 7
MIN_UTILIZATION = Decimal("0.05")
MAX_UTILIZATION = Decimal(1)

SENSITIVITY_ELECTRICITY = (
    Decimal("-0.5"),
    Decimal("-0.25"),
    Decimal(0),
    Decimal("0.5"),
    Decimal(1),
)
SENSITIVITY_UTILIZATION = (Decimal("0.2"), Decimal("0.5"), Decimal("0.8"), Decimal(1))
SENSITIVITY_HORIZON_YEARS = tuple(range(MIN_HORIZON_YEARS, MAX_HORIZON_YEARS + 1))

ZERO = Decimal(0)
ONE = Decimal(1)
DECIMAL_MONTHS_PER_YEAR = Decimal(MONTHS_PER_YEAR)
DECIMAL_HOURS_PER_MONTH = Decimal(HOURS_PER_MONTH)
W_PER_KW = Decimal(1000)


class Way(StrEnum):
    ON_PREMISES = "on_premises"
    MANAGED = "managed"
    CLOUD = "cloud"
    CLOUD_RESERVED = "cloud_reserved"


class Category(StrEnum):
    CAPITAL = "capital"
    INSTALLATION = "installation"
    POWER = "power"
    COOLING = "cooling"
    SPACE = "space"
    STAFF = "staff"
    SUPPORT = "support"
    SPARES = "spares"
    INSURANCE = "insurance"
    NETWORK = "network"
    SOFTWARE = "software"
    SETUP = "setup"
    HOSTING_FEES = "hosting_fees"
    CLOUD = "cloud"


class SensitivityParameter(StrEnum):
    ELECTRICITY_PRICE = "electricity_price"
    UTILIZATION = "utilization"
    HORIZON_YEARS = "horizon_years"


class TcoInputError(ValueError):
    """Input the model cannot price; ``message`` is translatable, ``field`` names the input."""

    def __init__(self, message: Message, *, field: str) -> None:
        super().__init__(message.render())
        self.message = message
        self.field = field


def make_message(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TcoConfiguration:
    servers: int
    gpus_per_server: int
    gpu_model: str | None
    power_w: int  # full-load draw per server, W
    price: Money  # purchase price per server
    rack_units: int
    managed_monthly_price: Money | None = None  # per server; None -> assumption per GPU
    # The power the site must provision per server, W: colocation rent is paid on it (a
    # server's supplies sized for its full load with a margin), energy on the measured draw.
    # None: ``power_w``.
    provisioned_w: int | None = None

    def __post_init__(self) -> None:
        for name in ("servers", "gpus_per_server", "power_w", "rack_units"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TcoInputError(
                    make_message(
                        gettext_noop("%(name)s must be a whole number of at least 1."), name=name
                    ),
                    field=name,
                )
        provisioned = self.provisioned_w
        if provisioned is not None and (
            isinstance(provisioned, bool)
            or not isinstance(provisioned, int)
            or provisioned < self.power_w
        ):
            raise TcoInputError(
                make_message(
                    gettext_noop(
                        "provisioned_w must be a whole number of watts, at least power_w "
                        "(%(power_w)s W)."
                    ),
                    power_w=self.power_w,
                ),
                field="provisioned_w",
            )
        for name in ("price", "managed_monthly_price"):
            money = getattr(self, name)
            if money is not None and money.amount < 0:
                raise TcoInputError(
                    make_message(gettext_noop("%(name)s cannot be negative."), name=name),
                    field=name,
                )


@dataclass(frozen=True, slots=True)
class TcoInput:
    configuration: TcoConfiguration
    horizon_years: int
    utilization: Decimal
    region: str
    currency: str
    assumptions: Assumptions
    # A service that runs around the clock: cloud GPUs are billed for every hour they run,
    # whatever their utilisation; otherwise (experiments, batch jobs) for the share of hours used.
    always_on: bool = False
    # The managed offer's service tier (support level): its price is the managed option's support
    # line. None: the hosting fee alone (results stored before the tiers, the on-premises view).
    service_tier: ServiceTier | None = None
    # The offers the managed fee is placed among (``market``): the reference offers when None.
    market_offers: MarketOffers | None = None

    def __post_init__(self) -> None:
        years = self.horizon_years
        if (
            isinstance(years, bool)
            or not isinstance(years, int)
            or not (MIN_HORIZON_YEARS <= years <= MAX_HORIZON_YEARS)
        ):
            raise TcoInputError(
                make_message(
                    gettext_noop("The horizon must be %(minimum)s to %(maximum)s years."),
                    minimum=MIN_HORIZON_YEARS,
                    maximum=MAX_HORIZON_YEARS,
                ),
                field="horizon_years",
            )
        if not isinstance(self.utilization, Decimal) or not (
            MIN_UTILIZATION <= self.utilization <= MAX_UTILIZATION
        ):
            raise TcoInputError(
                make_message(
                    gettext_noop("Utilisation must be a decimal from %(minimum)s to %(maximum)s."),
                    minimum=MIN_UTILIZATION,
                    maximum=MAX_UTILIZATION,
                ),
                field="utilization",
            )
        if self.assumptions.region != self.region.strip().upper():
            raise TcoInputError(
                make_message(
                    gettext_noop("The assumptions are for %(other)s, not %(region)s."),
                    other=self.assumptions.region,
                    region=self.region,
                ),
                field="region",
            )
        config = self.configuration
        for name, money in (
            ("currency", None),
            ("price", config.price),
            ("managed_monthly_price", config.managed_monthly_price),
            ("service_tier", None if self.service_tier is None else self.service_tier.monthly),
        ):
            currency = self.currency if money is None else money.currency
            if currency != self.assumptions.currency:
                raise TcoInputError(
                    make_message(
                        gettext_noop("%(name)s must be in %(currency)s."),
                        name=name,
                        currency=self.assumptions.currency,
                    ),
                    field=name,
                )
