"""Price refresh quarantine: a price moving more than the threshold is held for review, not
applied, and a reviewer's approval records it through the same service.

Feeds are served by a local HTTP server on 127.0.0.1 (pytest-httpserver_ipv4).
"""

import datetime as dt
from decimal import Decimal

import pytest

from catalog.models import Price, PriceKind, QuarantinedPrice, ReviewStatus, RunStatus
from catalog.services import (
    QuarantineReviewError,
    quarantined_price_approve,
    quarantined_price_reject,
)
from tests.catalog.price_feeds import (
    HEADER,
    NEW_DAY,
    OLD_DAY,
    counts,
    prices,
    refresh,
    serve,
    source_make,
)
from tests.factories import cpu_make, gpu_make, price_make

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]


def test_a_price_moving_more_than_the_threshold_is_quarantined_not_applied(
    httpserver_ipv4, catalog
):
    gpu, cpu, _ = catalog
    body = HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\nCPU-A,700.00,EUR,{NEW_DAY}\n"  # +50 %, +40 %
    source = source_make(serve(httpserver_ipv4, body))

    run = refresh(source)

    assert run.status == RunStatus.APPLIED
    assert counts(run) == {"read": 2, "changed": 1, "unchanged": 0, "rejected": 0, "quarantined": 1}
    assert prices(gpu) == [(Decimal("1000.00"), OLD_DAY)]  # not applied
    assert prices(cpu)[-1] == (Decimal("700.00"), dt.date(2026, 11, 30))  # exactly 40 %: applied
    held = QuarantinedPrice.objects.get()
    assert (held.part, held.price_kind, held.amount, held.currency) == (
        gpu.part_ptr,
        PriceKind.PURCHASE,
        Decimal("1500.00"),
        "EUR",
    )
    assert (held.previous_amount, held.previous_observed_on) == (Decimal("1000.00"), OLD_DAY)
    assert (held.status, held.run, held.row, held.change_pct) == (
        ReviewStatus.PENDING,
        run,
        2,
        Decimal(50),
    )


def test_a_first_price_in_a_new_currency_is_checked_against_the_other_one_converted(
    httpserver_ipv4,
):
    """Parts priced only in dollars (as the seed): a euro feed's first price is compared with
    the dollar price converted at the day's rate (the built-in 1.0824 here), not let through
    unchecked because no euro price existed."""
    gpu, cpu = gpu_make(sku="GPU-U"), cpu_make(sku="CPU-U")
    price_make(gpu, amount=Decimal("1082.40"), currency="USD", observed_on=OLD_DAY)  # 1,000 EUR
    price_make(cpu, amount=Decimal("541.20"), currency="USD", observed_on=OLD_DAY)  # 500 EUR
    body = HEADER + f"GPU-U,1500.00,EUR,{NEW_DAY}\nCPU-U,520.00,EUR,{NEW_DAY}\n"  # +50 %, +4 %

    run = refresh(source_make(serve(httpserver_ipv4, body)))

    assert counts(run) == {"read": 2, "changed": 1, "unchanged": 0, "rejected": 0, "quarantined": 1}
    held = QuarantinedPrice.objects.get()
    assert (held.part_id, held.amount, held.currency) == (gpu.pk, Decimal("1500.00"), "EUR")
    assert (held.previous_amount, held.change_pct) == (Decimal("1000.00"), Decimal(50))
    assert Price.objects.filter(part=cpu, currency="EUR").get().amount == Decimal("520.00")


def test_a_price_drop_is_quarantined_too_and_the_threshold_is_a_setting(
    httpserver_ipv4, catalog, settings
):
    settings.PRICE_QUARANTINE_CHANGE_PCT = 5
    body = HEADER + f"GPU-A,930.00,EUR,{NEW_DAY}\nCPU-A,510.00,EUR,{NEW_DAY}\n"  # -7 %, +2 %
    run = refresh(source_make(serve(httpserver_ipv4, body)))
    assert (run.rows_quarantined, run.rows_changed) == (1, 1)
    assert QuarantinedPrice.objects.get().amount == Decimal("930.00")


def test_rerunning_a_feed_does_not_quarantine_the_same_price_twice(httpserver_ipv4, catalog):
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    again = refresh(source)
    assert counts(again) == {
        "read": 1,
        "changed": 0,
        "unchanged": 0,
        "rejected": 0,
        "quarantined": 1,
    }
    assert QuarantinedPrice.objects.count() == 1


def test_approving_records_the_price_through_the_same_service(httpserver_ipv4, catalog, staff_user):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    held = QuarantinedPrice.objects.get()

    approved = quarantined_price_approve(quarantined_id=held.pk, user=staff_user)

    assert approved.status == ReviewStatus.APPROVED
    assert approved.reviewed_by == staff_user
    assert approved.reviewed_at is not None
    price = Price.objects.get(part=gpu, amount=Decimal("1500.00"))
    assert (approved.price, price.created_by, price.observed_on) == (
        price,
        staff_user,
        dt.date(2026, 11, 30),
    )
    assert price.source == f"Distributor EU price feed: {source.location}"
    # The same feed again: the price is recorded now, nothing new happens.
    assert counts(refresh(source))["unchanged"] == 1
    with pytest.raises(QuarantineReviewError, match="already approved by staff"):
        quarantined_price_approve(quarantined_id=held.pk, user=staff_user)


def test_rejecting_keeps_the_price_out_and_the_decision(httpserver_ipv4, catalog, staff_user):
    gpu = catalog[0]
    source = source_make(serve(httpserver_ipv4, HEADER + f"GPU-A,1500.00,EUR,{NEW_DAY}\n"))
    refresh(source)
    held = QuarantinedPrice.objects.get()

    rejected = quarantined_price_reject(quarantined_id=held.pk, user=staff_user)

    assert (rejected.status, rejected.reviewed_by) == (ReviewStatus.REJECTED, staff_user)
    assert prices(gpu) == [(Decimal("1000.00"), OLD_DAY)]
    # The rejected observation sent again is not held again.
    again = refresh(source)
    assert (again.rows_unchanged, again.rows_quarantined) == (1, 0)
    assert QuarantinedPrice.objects.count() == 1
    with pytest.raises(QuarantineReviewError):
        quarantined_price_reject(quarantined_id=held.pk, user=staff_user)
