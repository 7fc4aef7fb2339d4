"""Reads for the quoting side: the assumptions a TCO is computed with."""

from __future__ import annotations

from quotes.engine.assumptions import Assumptions, Fact, region_defaults
from quotes.models import RegionAssumption


def region_facts_get(*, region: str) -> dict[str, Fact]:
    """The staff-maintained defaults for a region, as engine facts."""
    return {
        row.name: Fact(row.value, row.currency or None, row.source)
        for row in RegionAssumption.objects.filter(region=region.upper())
    }


def assumptions_get(*, region: str, currency: str, gpu_model: str | None = None) -> Assumptions:
    """The defaults for a region in a currency: staff edits over the engine's sourced figures."""
    return region_defaults(
        region, currency, gpu_model=gpu_model, edited=region_facts_get(region=region)
    )
