"""The sales dashboard's server time with 10,000 quotes: first page, a search, a status filter.

Bulk-creates 10,000 quotes (one revision and two lines each) in the development database under
the year 1999, so their numbers never meet real ones, signs in a sales rep with Django's test
client and deletes everything it made afterwards (rows and rep built by ``tests/factories.py``).
Target: p95 < 200 ms per page.

Run: ``python -m benchmarks bench_dashboard`` (or ``make bench``).
"""

from __future__ import annotations

from benchmarks.timing import django_setup, measure, report

QUOTES = 10_000
RUNS = 30
TARGET_MS = 200.0
YEAR = 1999
USERNAME = "bench-dashboard-rep"


def _populate() -> None:
    from tests.factories import quote_build, quotes_bulk_make

    statuses = ("draft", "sent", "accepted", "declined", "expired")
    origins = ("wizard", "staff", "partner_api")
    quotes_bulk_make(
        (
            quote_build(
                year=YEAR,
                sequence=n,
                origin=origins[n % 3],
                status=statuses[n % 5],
                company=f"Bench company {n}",
                email=f"contact{n}@bench.example",
            )
            for n in range(1, QUOTES + 1)
        ),
        lines_per_quote=2,
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
    from django.test import Client
    from django.urls import reverse

    from tests.factories import staff_user_make

    _clean()
    _populate()
    try:
        user = staff_user_make(USERNAME)
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        url = reverse("sales:dashboard")
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
