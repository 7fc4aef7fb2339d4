"""Price refresh of cloud GPU offers: recorded idempotently, the current price the median fresh
offer, a jump quarantined like a part's price.

Feeds are served by a local HTTP server on 127.0.0.1 (pytest-httpserver_ipv4).
"""

import datetime as dt
from decimal import Decimal

import pytest

from catalog.models import CloudPrice, QuarantinedPrice, RunStatus
from catalog.selectors import cloud_price_current_get, cloud_prices_current_get
from catalog.services import quarantined_price_approve
from engine.money import Money
from tests.catalog.price_feeds import refresh, serve, source_make

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]

CLOUD_FEED = (
    "gpu_model,provider,commitment,price,gpu_count,currency,observed_on,source\n"
    "NVIDIA H100 SXM,RunPod,on_demand,3.99,1,USD,2026-11-09,https://www.runpod.io/pricing\n"
    "NVIDIA HGX H100,CoreWeave,on_demand,49.24,8,USD,2026-11-20,https://www.coreweave.com/pricing\n"
    "H100 SXM,Lambda,on_demand,2.99,1,USD,2026-11-25,https://lambda.ai/instances\n"
    "H100 SXM,Google Cloud,on_demand,11.06,1,USD,2025-03-17,https://cloud.google.com\n"
    "NVIDIA L4,RunPod,on_demand,0.44,1,USD,2025-01-01,https://www.runpod.io/pricing\n"
    "H100 SXM,Google Cloud,reserved_1y,7.67,1,USD,2025-03-17,https://cloud.google.com\n"
)


def test_cloud_feeds_record_cloud_prices_idempotently(httpserver_ipv4):
    source = source_make(
        serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud", currency="USD"
    )

    first, second = refresh(source), refresh(source)

    assert (first.status, first.rows_changed) == (RunStatus.APPLIED, 6)
    assert (second.rows_changed, second.rows_unchanged) == (0, 6)
    coreweave = CloudPrice.objects.get(provider="CoreWeave")
    assert (coreweave.gpu_model, coreweave.price_per_gpu_hour, coreweave.price_source) == (
        "H100_SXM",
        Decimal("6.1550"),
        source,
    )


def test_the_current_cloud_price_is_the_median_fresh_offer(httpserver_ipv4):
    refresh(source_make(serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud"))
    today = dt.date(2026, 12, 2)

    quotes = cloud_prices_current_get(currency="USD", today=today)

    # H100_SXM fresh offers: Lambda 2.99, RunPod 3.99, CoreWeave 6.155 (Google's is stale).
    h100 = quotes["H100_SXM"]
    assert (h100.provider, h100.price_per_gpu_hour, h100.stale) == (
        "RunPod",
        Money(Decimal("3.9900"), "USD"),
        False,
    )
    assert h100.source == "https://www.runpod.io/pricing"
    # Only a stale offer: it is still the answer, flagged.
    assert quotes["L4"].stale is True
    assert cloud_price_current_get(
        gpu_model="H100_SXM", currency="USD", commitment="reserved_1y", today=today
    ).price_per_gpu_hour == Money(Decimal("7.6700"), "USD")
    assert cloud_prices_current_get(currency="EUR", today=today) == {}


def test_a_cloud_price_jump_is_quarantined_and_approval_records_it(httpserver_ipv4, staff_user):
    source = source_make(serve(httpserver_ipv4, CLOUD_FEED), name="Cloud", kind="cloud")
    refresh(source)
    source.location = serve(
        httpserver_ipv4,
        "gpu_model,provider,price,currency,observed_on\nH100 SXM,Lambda,4.49,USD,2026-11-30\n",
        path="/later",
    )
    source.save()

    run = refresh(source)

    assert run.rows_quarantined == 1
    held = QuarantinedPrice.objects.get()
    assert (held.gpu_model, held.provider, held.previous_amount) == (
        "H100_SXM",
        "Lambda",
        Decimal("2.99"),
    )
    approved = quarantined_price_approve(quarantined_id=held.pk, user=staff_user)
    assert approved.cloud_price.price_per_gpu_hour == Decimal("4.4900")
    assert approved.cloud_price.created_by == staff_user
