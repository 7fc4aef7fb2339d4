"""Total cost of ownership: buy (on premises), managed hosting, or cloud GPUs by the hour.

The model, month by month over a horizon of 1 to 7 years:

On premises
    capital       servers x purchase price, paid in month 1
    installation  servers x installation cost, one-off, month 1
    power         IT power x hours x electricity price; IT power per server is
                  idle + (full load - idle) x utilisation, idle = idle fraction x full load
    cooling       IT energy x (PUE - 1) x electricity price: the facility overhead, own line
    space         colocation rent per provisioned kW (full-load kW, whatever the utilisation)
    staff         fully loaded salary x FTE per server
    support       support share of the hardware price per year (spares and insurance alike)
    network       per server per month; software: per GPU per year
Managed hosting (the host owns and runs the hardware)
    setup         the host's installation cost per server (per server + per GPU), month 1
    hosting_fees  the host's fee per server for the contract the horizon signs (the longest of
                  month to month, 12, 24 or 36 months that fits), then its renewal fee for the
                  rest of the horizon: cost-plus from the host's own cost base (its PUE, power
                  contract, space, spares, staff; month to month at the fleet's occupancy),
                  never below the hardware's payback (``hosting``), placed in the market band of
                  dated public offers (``market``); the fee includes power, cooling, space,
                  support and hardware replacement, so none of those lines appears here
    staff         the work that stays with the customer (managed FTE per server)
    software      as on premises
    power/cooling only when the fee excludes power (``managed_power_included`` = 0)
Cloud, on demand and reserved for one year
    cloud         GPU-hours x price; on demand pays the GPU-hours used (servers x GPUs x 730 x
                  utilisation per month); reserved pays every hour of the commitment
    staff, software as for managed hosting

Cash, not accounting: capital is paid when it is paid. Depreciation (straight line, optional
residual value) is reported as book value per year and is never a cash line, so it is never
subtracted from a monthly difference (that would count the capital twice). When a discount rate
is set, the net present value (month-1 one-offs at t = 0, running costs at the end of each month,
monthly rate (1 + r)^(1/12) - 1) is shown next to the cash total.

Break-even month (against managed hosting or cloud): the first month m from which the on-premises
cumulative cash is at most the other option's and stays so up to the end of the horizon; ``None``
when that never happens within the horizon. Month 1 includes the one-offs.

Rounding: every figure is computed exactly and rounded to cents at presentation with
``round_money``; each category is rounded, and an option's total is the sum of its rounded
categories, so categories always add up to the total. The monthly, cumulative and yearly series
are each rounded from exact values (their sum can differ from the total by the category rounding,
a few cents at most).
"""

from .compute import compute_tco
from .hosting import TERMS, FeeBasis, ManagedOffer, ProviderCost, TermFee, managed_offer
from .inputs import (
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    MAX_HORIZON_YEARS,
    MAX_UTILIZATION,
    MIN_HORIZON_YEARS,
    MIN_UTILIZATION,
    MONTHS_PER_YEAR,
    SENSITIVITY_ELECTRICITY,
    SENSITIVITY_HORIZON_YEARS,
    SENSITIVITY_UTILIZATION,
    Category,
    SensitivityParameter,
    TcoConfiguration,
    TcoInput,
    TcoInputError,
    Way,
)
from .job import JobCost, job_cost
from .market import MarketBand, MarketOffers, MarketPosition, market_band, market_class
from .results import BookValue, BreakEven, OptionCost, SensitivityRow, TcoResult

__all__ = [
    "HOURS_PER_MONTH",
    "HOURS_PER_YEAR",
    "MAX_HORIZON_YEARS",
    "MAX_UTILIZATION",
    "MIN_HORIZON_YEARS",
    "MIN_UTILIZATION",
    "MONTHS_PER_YEAR",
    "SENSITIVITY_ELECTRICITY",
    "SENSITIVITY_HORIZON_YEARS",
    "SENSITIVITY_UTILIZATION",
    "TERMS",
    "BookValue",
    "BreakEven",
    "Category",
    "FeeBasis",
    "JobCost",
    "ManagedOffer",
    "MarketBand",
    "MarketOffers",
    "MarketPosition",
    "OptionCost",
    "ProviderCost",
    "SensitivityParameter",
    "SensitivityRow",
    "TcoConfiguration",
    "TcoInput",
    "TcoInputError",
    "TcoResult",
    "TermFee",
    "Way",
    "compute_tco",
    "job_cost",
    "managed_offer",
    "market_band",
    "market_class",
]
