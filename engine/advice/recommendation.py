"""The answer first: which option to take, three reasons, and what it costs each way.

One object read by the result page, the checklist PDF, the quote screens and the APIs, built from
the figures they already show (the built option, the job's memory, the TCO, the host's offer and
the cost of one run), never computed twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..build.builder import BuiltOption, Tier
from ..commerce.service_tiers import monthly_with_service
from ..i18n import Message, gettext_noop, ngettext_noop
from ..money import Money
from ..sizing import Sizing
from ..tco import JobCost, ManagedOffer, TcoResult, Way

# How each way of getting the GPUs reads in a sentence.
WAY_NAMES = {
    Way.ON_PREMISES: Message(gettext_noop("buying the servers")),
    Way.MANAGED: Message(gettext_noop("our managed hosting")),
    Way.CLOUD: Message(gettext_noop("cloud GPUs on demand")),
    Way.CLOUD_RESERVED: Message(gettext_noop("cloud GPUs reserved for a year")),
}


@dataclass(frozen=True, slots=True)
class Recommendation:
    tier: Tier
    servers: int
    gpus: int
    gpu_name: str
    reasons: tuple[Message, ...]  # three, from the rules and the figures
    buy: Money  # the servers' price
    managed_monthly: Money | None  # all servers, per month on the signed contract
    managed_months: int | None  # the contract's term; 0: no commitment
    cloud_monthly: Money | None  # on demand, per month at the customer's use
    job: JobCost | None  # one run, rented or bought
    cheapest: Way | None  # over the horizon, or for one run when the workload is a job
    cheapest_amount: Money | None
    horizon_months: int | None


def chosen_option(options: Sequence[BuiltOption]) -> BuiltOption | None:
    """The option the advice recommends and prices (None: no option). When the builder ranked
    the options by what the job gets (``BuiltOption.delivered``): the one that delivers the
    most per unit of price, the balanced one on a tie. Otherwise the balanced one (the best
    value by TFLOPS) when it is shown, else the first, the cheapest sound build. The result
    page, the APIs, the checklist and the quotes all take this one."""
    figures = [(option, option.delivered, option.totals.price.amount) for option in options]
    if figures and all(delivered is not None and price > 0 for _, delivered, price in figures):
        return max(
            figures,
            key=lambda found: (
                Decimal(str(found[1])) / found[2],
                found[0].tier is Tier.BALANCED,
            ),
        )[0]
    balanced = next((option for option in options if option.tier is Tier.BALANCED), None)
    return balanced if balanced is not None else next(iter(options), None)


def recommend(
    option: BuiltOption,
    sizing: Sizing,
    *,
    tco: TcoResult | None = None,
    offer: ManagedOffer | None = None,
    job: JobCost | None = None,
) -> Recommendation:
    """Pure: the recommended option (the one the costs were computed for) and its answer."""
    gpu_name = option.gpu_line.name
    totals = option.totals
    failed = [check for check in option.checks if not check.passed]
    reasons = [
        Message(
            gettext_noop(
                "It holds the job: %(need)s GB of GPU memory needed, %(have)s GB on %(gpus)s × "
                "%(gpu)s (GB = 10^9 bytes)."
            ),
            {
                "need": round(sizing.memory_gb.total, 1),
                "have": round(totals.vram_gb, 1),
                "gpus": totals.gpus,
                "gpu": gpu_name,
            },
        ),
    ]
    if option.checks:  # a configuration built by hand for a quote may carry none
        reasons.append(
            Message(
                gettext_noop(
                    "It passes all %(n)s rule checks: server CPU, ECC memory, RAM at least twice "
                    "the GPU memory, NVMe storage, power and cooling."
                ),
                {"n": len(option.checks)},
            )
            if not failed
            else Message(
                gettext_noop("%(failed)s of %(n)s rule checks fail: read them before you buy."),
                {"failed": len(failed), "n": len(option.checks)},
            )
        )
    cheapest = None
    cheapest_amount = None
    horizon = None if tco is None else tco.horizon_months
    if job is not None:
        cheapest = job.cheapest
        cheapest_amount = {
            Way.ON_PREMISES: job.buy,
            Way.MANAGED: job.managed,
            Way.CLOUD: job.cloud,
        }[job.cheapest]
        reasons.append(
            Message.counted(
                ngettext_noop(
                    "One run takes about %(days)s day: %(way)s costs %(amount)s %(currency)s for "
                    "it, against %(buy)s %(currency)s to buy the servers.",
                    "One run takes about %(days)s days: %(way)s costs %(amount)s %(currency)s for "
                    "it, against %(buy)s %(currency)s to buy the servers.",
                ),
                "days",
                **{
                    "days": round(job.hours / 24, 1),
                    "way": WAY_NAMES[job.cheapest],
                    "amount": _whole(cheapest_amount),
                    "buy": _whole(job.buy),
                    "currency": job.buy.currency,
                },
            )
        )
    elif tco is not None:
        cheapest = tco.cheapest
        cheapest_amount = tco.options[tco.cheapest].total
        reasons.append(
            Message.counted(
                ngettext_noop(
                    "Over %(years)s year, %(way)s is the cheapest: %(amount)s %(currency)s in "
                    "all, running costs included.",
                    "Over %(years)s years, %(way)s is the cheapest: %(amount)s %(currency)s in "
                    "all, running costs included.",
                ),
                "years",
                **{
                    "years": tco.horizon_months // 12,
                    "way": WAY_NAMES[tco.cheapest],
                    "amount": _whole(cheapest_amount),
                    "currency": cheapest_amount.currency,
                },
            )
        )
    managed_monthly = None
    managed_months = None
    if offer is not None and horizon is not None:
        contract = offer.term(horizon)
        tier = None if tco is None else tco.service_tier
        managed_monthly = monthly_with_service(contract.monthly, tier) * option.servers
        managed_months = contract.months
    cloud_monthly = None
    if tco is not None and tco.cloud is not None:
        cloud_monthly = Money(
            tco.cloud.by_category["cloud"].amount / tco.horizon_months, tco.currency
        ).rounded()
    return Recommendation(
        tier=option.tier,
        servers=option.servers,
        gpus=totals.gpus,
        gpu_name=gpu_name,
        reasons=tuple(reasons),
        buy=totals.price,
        managed_monthly=managed_monthly,
        managed_months=managed_months,
        cloud_monthly=cloud_monthly,
        job=job,
        cheapest=cheapest,
        cheapest_amount=cheapest_amount,
        horizon_months=horizon,
    )


def _whole(money: Money | None) -> Decimal:
    return Decimal(0) if money is None else money.amount.quantize(Decimal(1))
