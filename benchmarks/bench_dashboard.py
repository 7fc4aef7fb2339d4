"""The sales dashboard's server time with 10,000 quotes: first page, a search, a status filter.

Bulk-creates 10,000 quotes (one revision and two lines each) in the development database under
the year 1999, so their numbers never meet real ones, signs in a sales rep with Django's test
client and deletes everything it made afterwards. Target: p95 < 200 ms per page.

Run: ``python -m benchmarks bench_dashboard`` (or ``make bench``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from benchmarks.timing import django_setup, measure, report

QUOTES = 10_000
RUNS = 30
TARGET_MS = 200.0
YEAR = 1999
USERNAME = "bench-dashboard-rep"


def _populate() -> None:
    from quotes.models import Quote, QuoteLine, QuoteRevision

    statuses = ("draft", "sent", "accepted", "declined", "expired")
    origins = ("wizard", "staff", "partner_api")
    quotes = Quote.objects.bulk_create(
        Quote(
            number=f"Q-{YEAR}-{n:05d}",
            year=YEAR,
            sequence=n,
            origin=origins[n % 3],
            status=statuses[n % 5],
            company=f"Bench company {n}",
            contact_name=f"Contact {n}",
            email=f"contact{n}@bench.example",
            country="FR",
        )
        for n in range(1, QUOTES + 1)
    )
    valid = dt.date(2027, 1, 1)
    revisions = QuoteRevision.objects.bulk_create(
        QuoteRevision(quote=quote, index=0, valid_until=valid) for quote in quotes
    )
    for quote, revision in zip(quotes, revisions, strict=True):
        quote.current_revision = revision
    Quote.objects.bulk_update(quotes, ["current_revision"], batch_size=1000)
    QuoteLine.objects.bulk_create(
        (
            QuoteLine(
                revision=revision,
                position=position,
                kind="part",
                description="GPU",
                quantity=Decimal(1),
                unit_price=Decimal("1000.00"),
                currency="EUR",
            )
            for revision in revisions
            for position in (1, 2)
        ),
        batch_size=2000,
    )


def _clean() -> None:
    from django.contrib.auth import get_user_model

    from quotes.models import Quote, QuoteEvent, QuoteRevision

    quotes = Quote.objects.filter(year=YEAR)
    QuoteEvent.objects.filter(quote__in=quotes).delete()
    quotes.update(current_revision=None)
    QuoteRevision.objects.filter(quote__year=YEAR).delete()
    quotes.delete()
    get_user_model().objects.filter(username=USERNAME).delete()


def main() -> bool:
    django_setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client
    from django.urls import reverse

    from quotes.sales.services import REP_GROUP

    _clean()
    _populate()
    try:
        user = get_user_model().objects.create_user(username=USERNAME)
        user.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        url = reverse("wizard:staff:dashboard")
        ok = True
        for label, params in (
            ("dashboard, first page", {}),
            ("dashboard, search", {"q": "contact4242@"}),
            ("dashboard, status filter, page 20", {"status": "sent", "page": "20"}),
        ):

            def get(params=params) -> None:
                response = client.get(url, params)
                assert response.status_code == 200, response.status_code

            ok &= report(label, measure(get, runs=RUNS), target_p95_ms=TARGET_MS)
        return ok
    finally:
        _clean()
