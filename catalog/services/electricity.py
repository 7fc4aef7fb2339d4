"""Applying a Eurostat electricity feed (``nrg_pc_205``): each country's price becomes a proposal
held for review, never a regional assumption by itself (staff approve it, from the quotes admin,
through ``quotes.advice.electricity``: the catalog does not know the quoting side)."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import OuterRef, Subquery

from catalog.feeds.electricity import ElectricityPriceRow
from catalog.models import PriceRefreshRun, PriceSource, ReviewStatus
from catalog.models.electricity import ElectricityPriceProposal
from catalog.services.feed_rows import FeedOutcome

# A proposal's observation: country, semester, band and tax.
Observation = tuple[str, str, str, str]


def electricity_chunk_apply(
    *,
    source: PriceSource,
    run: PriceRefreshRun,
    rows: list[ElectricityPriceRow],
    outcome: FeedOutcome,
) -> None:
    """Propose each row's price unless the last proposal for its observation has it already
    (whatever became of that proposal: approved, rejected or pending), so that applying the
    same feed twice adds nothing, or unless it still awaits review (a price that came back).
    Proposals are counted as held for review."""
    last, pending = _last_prices(rows), _pending_prices(rows)
    proposals = [
        ElectricityPriceProposal(
            price_source=source,
            run=run,
            country=row.country,
            period=row.period,
            band=row.band,
            tax=row.tax,
            eur_per_kwh=row.eur_per_kwh,
        )
        for row in rows
        if last.get(_observation(row)) != row.eur_per_kwh
        and (*_observation(row), row.eur_per_kwh) not in pending
    ]
    ElectricityPriceProposal.objects.bulk_create(proposals)
    outcome.rows_quarantined += len(proposals)
    outcome.rows_unchanged += len(rows) - len(proposals)


def _observation(row: ElectricityPriceRow) -> Observation:
    return (row.country, row.period, row.band, row.tax)


def _last_prices(rows: list[ElectricityPriceRow]) -> dict[Observation, Decimal]:
    """The price of the newest proposal for each of the rows' observations (one query)."""
    fields = ("country", "period", "band", "tax")
    newest = ElectricityPriceProposal.objects.filter(
        **{name: OuterRef(name) for name in fields}
    ).order_by("-id")
    return {
        (country, period, band, tax): price
        for country, period, band, tax, price in ElectricityPriceProposal.objects.filter(
            country__in={row.country for row in rows},
            period__in={row.period for row in rows},
            id=Subquery(newest.values("id")[:1]),
        ).values_list(*fields, "eur_per_kwh")
    }


def _pending_prices(rows: list[ElectricityPriceRow]) -> set[tuple[str, str, str, str, Decimal]]:
    """The observations and prices awaiting review (at most one each: a unique constraint)."""
    return set(
        ElectricityPriceProposal.objects.filter(
            country__in={row.country for row in rows},
            period__in={row.period for row in rows},
            status=ReviewStatus.PENDING,
        ).values_list("country", "period", "band", "tax", "eur_per_kwh")
    )
