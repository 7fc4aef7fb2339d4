"""python manage.py load_market_sources — declare the public market-data sources (once).

Each source below is created with its beat schedule unless a source with the same name or the
same location exists already (a source staff edited or disabled stays as they left it). Adding a
publisher is one entry in ``MARKET_SOURCES``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import Q

from catalog.feeds import FeedFormat, FeedKind
from catalog.models import PriceSource
from catalog.services import price_source_schedule_sync

MARKET_SOURCES: tuple[dict[str, Any], ...] = (
    {
        "name": "ECB euro reference rates",
        "kind": FeedKind.EXCHANGE_RATES,
        "location": "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
        "format": FeedFormat.XML,
        "currency": "EUR",
        # The ECB publishes around 16:00 CET on its working days; beat runs in UTC.
        "schedule": "30 16 * * 1-5",
        "notes": "Daily euro reference rates: converts quotes and TCO figures with dated rates.",
    },
    {
        "name": "Eurostat non-household electricity prices (nrg_pc_205)",
        "kind": FeedKind.ELECTRICITY,
        # Electricity, in kWh, excluding VAT, in euros: every band, country and semester.
        "location": (
            "https://ec.europa.eu/eurostat/api/dissemination/statistics/1.0/data/nrg_pc_205"
            "?format=JSON&lang=EN&siec=E7000&unit=KWH&tax=X_VAT&currency=EUR"
        ),
        "format": FeedFormat.JSON,
        "currency": "EUR",
        # Semesters are published some months after they end: weekly is plenty.
        "schedule": "40 5 * * 1",
        "notes": "Proposals for the regional electricity prices, approved by staff.",
    },
)


class Command(BaseCommand):
    help = (
        "Declare the public market-data price sources (the ECB's exchange rates, Eurostat's "
        "electricity prices) with "
        "their schedules; sources already declared (same name or location) are left as they are."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for values in MARKET_SOURCES:
            created = self._declare(values)
            state = "created" if created else "already declared, left as it is"
            self.stdout.write(f"{values['name']}: {state}.")

    @transaction.atomic
    def _declare(self, values: dict[str, Any]) -> bool:
        """Create the source and its beat entry unless it exists; whether it was created."""
        exists = PriceSource.objects.filter(
            Q(name=values["name"]) | Q(location=values["location"])
        ).exists()
        if exists:
            return False
        # The locations are ours and public: the fetch checks the host again at every run.
        source = PriceSource.objects.create(enabled=True, **values)
        price_source_schedule_sync(source=source)
        return True
