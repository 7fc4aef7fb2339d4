"""The cost of one job: a training or fine-tuning run of known length, rented or bought.

An experiment that runs for six days is not three years of ownership. For a run of ``hours`` on
a configuration's GPUs:

    cloud      GPUs x the hours started x the on-demand price per GPU-hour (providers bill by
               the minute or second; whole hours keep the figure on the safe side)
    managed    (the host's month-to-month fee + the service tier) x the months started + the
               setup, per server
               (``hosting.ManagedOffer``: the same fee the comparison and the quote use)
    buy        the servers' price + the energy of the run (full load through the PUE): what
               owning costs before the hardware does anything else

The cheapest way to run the job is named; the comparison over the horizon then reads as "if you
run such jobs continuously".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from ..assumptions import Assumptions
from ..commerce.service_tiers import ServiceTier, monthly_with_service
from ..money import Money, round_money
from .hosting import ManagedOffer
from .inputs import HOURS_PER_MONTH, W_PER_KW, TcoConfiguration, Way


@dataclass(frozen=True, slots=True)
class JobCost:
    hours: float  # the run on the configuration's GPUs
    gpus: int
    cloud: Money | None  # None: no on-demand price for the GPU
    cloud_gpu_hours: int  # GPUs x the hours started
    managed: Money  # all servers, month-to-month fee x months started + setup
    managed_months: int
    buy: Money  # the servers' price + the run's energy
    energy: Money  # the run's energy, on premises
    cheapest: Way  # ON_PREMISES, MANAGED or CLOUD


def job_cost(
    hours: float,
    config: TcoConfiguration,
    assumptions: Assumptions,
    offer: ManagedOffer,
    service_tier: ServiceTier | None = None,
) -> JobCost:
    """Rent or buy for one run of ``hours``; ``assumptions`` resolved for the GPU model;
    hosted month to month with ``service_tier``'s support (None: the fee alone). Pure."""
    if not math.isfinite(hours) or hours <= 0:
        raise ValueError("a job runs for a positive, finite number of hours")
    currency = assumptions.currency
    servers = Decimal(config.servers)
    gpus = config.servers * config.gpus_per_server
    started_hours = math.ceil(hours - 1e-9)
    cloud = None
    if "cloud_price_per_gpu_hour" in assumptions:
        cloud = Money(
            round_money(gpus * started_hours * assumptions.value("cloud_price_per_gpu_hour")),
            currency,
        )
    months = max(1, math.ceil(hours / HOURS_PER_MONTH - 1e-9))
    month_to_month = offer.term(0)
    managed = Money(
        round_money(
            servers
            * (
                monthly_with_service(month_to_month.monthly, service_tier).amount * months
                + month_to_month.setup.amount
            )
        ),
        currency,
    )
    kwh = servers * Decimal(config.power_w) / W_PER_KW * Decimal(str(hours))
    energy = Money(
        round_money(
            kwh * assumptions.value("pue") * assumptions.value("electricity_price_per_kwh")
        ),
        currency,
    )
    buy = Money(round_money(servers * config.price.amount) + energy.amount, currency)
    priced = [(buy.amount, 0, Way.ON_PREMISES), (managed.amount, 1, Way.MANAGED)]
    if cloud is not None:
        priced.append((cloud.amount, 2, Way.CLOUD))
    return JobCost(
        hours=hours,
        gpus=gpus,
        cloud=cloud,
        cloud_gpu_hours=gpus * started_hours,
        managed=managed,
        managed_months=months,
        buy=buy,
        energy=energy,
        cheapest=min(priced)[2],
    )
