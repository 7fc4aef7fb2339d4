"""Writes of the advice side: the regional assumptions staff edit, seeded from the engine."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from catalog.selectors import versions_forget
from engine.assumptions import REGIONS, builtin_facts
from quotes.models import RegionAssumption


@dataclass
class AssumptionsLoadReport:
    created: int = 0
    kept: int = 0

    def __str__(self) -> str:
        return f"{self.created} created, {self.kept} kept as they are"


@transaction.atomic
def region_assumptions_seed() -> AssumptionsLoadReport:
    """Create a row for every built-in regional default that has none; never overwrite."""
    report = AssumptionsLoadReport()
    existing = set(RegionAssumption.objects.values_list("region", "name"))
    rows = []
    for region in REGIONS:
        for name, fact in builtin_facts(region).items():
            if (region, name) in existing:
                report.kept += 1
                continue
            rows.append(
                RegionAssumption(
                    region=region,
                    name=name,
                    value=fact.value,
                    currency=fact.currency or "",
                    source=fact.source,
                )
            )
    RegionAssumption.objects.bulk_create(rows)
    versions_forget()  # bulk-inserted: no save signal
    report.created = len(rows)
    return report
