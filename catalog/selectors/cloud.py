"""Cloud prices per GPU-hour, for the TCO's cloud option: the representative current offer."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from django.db.models import OuterRef, QuerySet, Subquery

from catalog.feeds import Commitment
from catalog.models import CloudPrice
from catalog.selectors.prices import price_stale_expression
from engine.money import Money

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _StaleFlag(TypedDict):
    """What ``cloud_price_current_queryset`` annotates each row with."""

    stale: bool


@dataclass(frozen=True, slots=True)
class CloudPriceQuote:
    """One provider's current price per GPU-hour for a GPU model key (``H100_SXM``)."""

    gpu_model: str
    commitment: str
    provider: str
    price_per_gpu_hour: Money
    observed_on: dt.date
    source: str
    stale: bool


def cloud_price_current_queryset(
    *, currency: str, commitment: str = Commitment.ON_DEMAND, today: dt.date | None = None
) -> QuerySet:
    """The latest row per (GPU model, provider) in one currency and commitment."""
    latest = (
        CloudPrice.objects.filter(
            gpu_model=OuterRef("gpu_model"),
            provider=OuterRef("provider"),
            commitment=commitment,
            currency=currency,
        )
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    return (
        CloudPrice.objects.filter(commitment=commitment, currency=currency, id=Subquery(latest))
        .annotate(stale=price_stale_expression(today=today))
        .order_by("gpu_model", "price_per_gpu_hour", "provider")
    )


def cloud_prices_current_get(
    *, currency: str, commitment: str = Commitment.ON_DEMAND, today: dt.date | None = None
) -> dict[str, CloudPriceQuote]:
    """The representative current cloud price per GPU model key, in one query.

    Per key: among the providers' current prices, fresh ones (not stale) win over stale ones;
    among those, the median offer (the lower middle one for an even count), so one very cheap or
    very dear provider does not set the TCO's cloud price, and the quote keeps its own source.
    """
    by_model: dict[str, list[WithAnnotations[CloudPrice, _StaleFlag]]] = {}
    rows_ = cloud_price_current_queryset(currency=currency, commitment=commitment, today=today)
    for row in rows_:
        by_model.setdefault(row.gpu_model, []).append(row)
    quotes = {}
    for gpu_model, rows in by_model.items():
        fresh = [row for row in rows if not row.stale] or rows
        chosen = fresh[(len(fresh) - 1) // 2]  # rows are sorted by price
        quotes[gpu_model] = CloudPriceQuote(
            gpu_model=gpu_model,
            commitment=chosen.commitment,
            provider=chosen.provider,
            price_per_gpu_hour=Money(chosen.price_per_gpu_hour, chosen.currency),
            observed_on=chosen.observed_on,
            source=chosen.source,
            stale=chosen.stale,
        )
    return quotes


def cloud_price_current_get(
    *,
    gpu_model: str,
    currency: str,
    commitment: str = Commitment.ON_DEMAND,
    today: dt.date | None = None,
) -> CloudPriceQuote | None:
    """The representative current price for one GPU model key (see ``cloud_prices_current_get``)."""
    quotes = cloud_prices_current_get(currency=currency, commitment=commitment, today=today)
    return quotes.get(gpu_model)
