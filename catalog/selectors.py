"""Reads from the catalog. The current price of a part is a query over its price history."""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery

from catalog.models import Part, PartKind, Price, PriceKind


def current_price_queryset(*, price_kind: str = PriceKind.PURCHASE, currency: str) -> QuerySet:
    """The latest price row per part for one kind and currency (price date, then recording)."""
    latest = (
        Price.objects.filter(part=OuterRef("part"), price_kind=price_kind, currency=currency)
        .order_by("-observed_on", "-id")
        .values("id")[:1]
    )
    return Price.objects.filter(
        price_kind=price_kind, currency=currency, id=Subquery(latest)
    ).select_related("part")


def current_price_get(
    *, part: Part, currency: str, price_kind: str = PriceKind.PURCHASE
) -> Price | None:
    return (
        Price.objects.filter(part=part, price_kind=price_kind, currency=currency)
        .order_by("-observed_on", "-id")
        .first()
    )


def catalog_counts_get() -> dict[str, int]:
    counts = dict.fromkeys(PartKind.values, 0)
    rows = Part.objects.filter(active=True).values("kind").order_by().annotate(n=Count("id"))
    for row in rows:
        counts[row["kind"]] = row["n"]
    return counts
