"""Admin: price sources (beat entry on save, refresh now), runs, the quarantine review screen."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from catalog.models import (
    CloudPrice,
    Price,
    PriceRefreshRun,
    PriceSource,
    QuarantinedPrice,
    ReviewStatus,
    RunStatus,
    RunTrigger,
)
from catalog.services import PRICE_REFRESH_TASK, price_source_refresh
from gpuquote.celery import app
from tests.factories import gpu_make, price_make

# Feed servers listen on 127.0.0.1, allowed explicitly (the SSRF guard refuses it otherwise).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("outbound_allows_loopback", "example_dns"),
]

SOURCE_FORM = {
    "name": "EU distributor",
    "kind": "supplier",
    "location": "https://prices.example.test/eu.csv",
    "format": "csv",
    "currency": "EUR",
    "column_map": '{"sku": "Part number"}',
    "schedule": "30 5 * * 1-5",
    "enabled": "on",
    "notes": "",
}


@pytest.fixture
def admin_client(client, staff_user):
    client.force_login(staff_user)
    return client


@pytest.fixture
def held(httpserver_ipv4):
    """A price that jumped +50 % and waits for review."""
    gpu = gpu_make(sku="GPU-Q")
    price_make(gpu, amount=Decimal("1000.00"), observed_on=dt.date(2026, 10, 1))
    httpserver_ipv4.expect_request("/feed").respond_with_data(
        "sku,price,observed_on\nGPU-Q,1500.00,2026-11-30\nGPU-NONE,1,\n"
    )
    source = PriceSource.objects.create(
        name="Jumpy",
        kind="supplier",
        location=httpserver_ipv4.url_for("/feed"),
        format="csv",
        currency="EUR",
    )
    return source, gpu


def test_adding_a_source_in_the_admin_creates_its_beat_entry(admin_client, staff_user):
    response = admin_client.post(reverse("admin:catalog_pricesource_add"), SOURCE_FORM)

    assert response.status_code == 302, response.content.decode()[:3000]
    source = PriceSource.objects.get()
    assert (source.created_by, source.updated_by) == (staff_user, staff_user)
    assert source.column_map == {"sku": "Part number"}
    entry = PeriodicTask.objects.get(task=PRICE_REFRESH_TASK)
    assert source.periodic_task == entry
    assert (entry.crontab.minute, entry.crontab.hour, entry.crontab.day_of_week) == (
        "30",
        "5",
        "1-5",
    )

    change = SOURCE_FORM | {"schedule": "0 6 * * *"}
    change.pop("enabled")  # unchecked
    admin_client.post(reverse("admin:catalog_pricesource_change", args=[source.pk]), change)

    entry.refresh_from_db()
    assert (entry.crontab.hour, entry.enabled) == ("6", False)
    assert PeriodicTask.objects.count() == 1
    page = admin_client.get(reverse("admin:catalog_pricesource_change", args=[source.pk]))
    assert f"Refresh prices: EU distributor (source {source.pk})" in page.content.decode()


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("schedule", "every monday", "schedule"),
        ("column_map", '{"cost": "Price"}', "unknown field"),
        ("location", "ftp://prices.example.test/eu.csv", "Use an http(s) URL or a file path."),
    ],
)
def test_a_bad_source_is_refused_with_the_field_named(admin_client, field, value, error):
    response = admin_client.post(
        reverse("admin:catalog_pricesource_add"), SOURCE_FORM | {field: value}
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert response.context["adminform"].form.errors[field]
    assert not PriceSource.objects.exists()
    assert not PeriodicTask.objects.exists()


def test_refresh_now_runs_the_selected_sources(
    admin_client, staff_user, held, django_capture_on_commit_callbacks
):
    source, _ = held
    app.conf.task_always_eager = True  # this test means eager mode, even when REDIS_URL is set
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:catalog_pricesource_changelist"),
            {"action": "refresh_now", "_selected_action": [source.pk]},
            follow=True,
        )

    assert response.status_code == 200
    assert "Refresh requested for 1 source" in response.content.decode()
    run = source.runs.get()
    assert (run.trigger, run.requested_by, run.status) == (
        RunTrigger.MANUAL,
        staff_user,
        RunStatus.REJECTED,  # one bad row in two
    )
    listing = admin_client.get(reverse("admin:catalog_pricesource_changelist"))
    assert "Rejected: nothing applied" in listing.content.decode()


@pytest.fixture(autouse=True)
def _restore_eager():
    before = app.conf.task_always_eager
    yield
    app.conf.task_always_eager = before


def test_runs_list_and_show_their_row_error_report(admin_client, held, settings):
    settings.PRICE_FEED_MAX_ERROR_PCT = 50
    source, _ = held
    run = price_source_refresh(source_id=source.pk)

    listing = admin_client.get(reverse("admin:catalog_pricerefreshrun_changelist"))
    detail = admin_client.get(reverse("admin:catalog_pricerefreshrun_change", args=[run.pk]))

    assert listing.status_code == detail.status_code == 200
    page = detail.content.decode()
    assert "<td>3</td><td>sku</td><td>is not in the catalog</td><td><code>GPU-NONE</code></td>" in (
        page
    )
    assert (
        admin_client.post(
            reverse("admin:catalog_pricerefreshrun_delete", args=[run.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert PriceRefreshRun.objects.count() == 1


def test_the_review_screen_approves_and_rejects(admin_client, staff_user, held, settings):
    settings.PRICE_FEED_MAX_ERROR_PCT = 50
    source, gpu = held
    price_source_refresh(source_id=source.pk)
    first = QuarantinedPrice.objects.get()
    url = reverse("admin:catalog_quarantinedprice_changelist")

    listing = admin_client.get(url, {"status__exact": "pending"})
    assert "+50.0 %" in listing.content.decode()
    assert (
        admin_client.get(
            reverse("admin:catalog_quarantinedprice_change", args=[first.pk])
        ).status_code
        == 200
    )

    admin_client.post(url, {"action": "approve", "_selected_action": [first.pk]})

    first.refresh_from_db()
    assert (first.status, first.reviewed_by) == (ReviewStatus.APPROVED, staff_user)
    assert Price.objects.filter(part=gpu, amount=Decimal("1500.00")).get() == first.price

    # A later jump, rejected this time; approving it afterwards changes nothing.
    second = QuarantinedPrice.objects.create(
        source=source,
        run=first.run,
        row=2,
        part=gpu.part_ptr,
        price_kind="purchase",
        amount=Decimal("9000.00"),
        currency="EUR",
        observed_on=dt.date(2026, 12, 1),
        previous_amount=Decimal("1500.00"),
        previous_observed_on=dt.date(2026, 11, 30),
        source_detail="test",
    )
    admin_client.post(url, {"action": "reject", "_selected_action": [second.pk]})
    response = admin_client.post(
        url, {"action": "approve", "_selected_action": [second.pk]}, follow=True
    )

    second.refresh_from_db()
    assert (second.status, second.reviewed_by) == (ReviewStatus.REJECTED, staff_user)
    assert "1 already reviewed prices were left as they are." in response.content.decode()
    assert not Price.objects.filter(amount=Decimal("9000.00")).exists()


def test_price_list_shows_and_filters_stale_prices(admin_client):
    gpu = gpu_make(sku="GPU-OLD")
    price_make(gpu, amount=Decimal("1.00"), observed_on=dt.date(2020, 1, 1))
    fresh = gpu_make(sku="GPU-NEW")
    price_make(fresh, amount=Decimal("2.00"), observed_on=timezone.localdate())
    url = reverse("admin:catalog_price_changelist")

    stale = admin_client.get(url, {"stale": "yes"}).content.decode()
    current = admin_client.get(url, {"stale": "no"}).content.decode()

    assert "GPU-OLD" not in current
    assert stale.count('<td class="field-stale"><img src="/static/admin/img/icon-yes.svg"') == 1
    assert current.count('<td class="field-stale"><img src="/static/admin/img/icon-no.svg"') == 1


def test_cloud_prices_are_listed_read_only(admin_client):
    cloud = CloudPrice.objects.create(
        gpu_model="H100_SXM",
        commitment="on_demand",
        provider="RunPod",
        price_per_gpu_hour=Decimal("3.99"),
        currency="USD",
        observed_on=dt.date(2026, 11, 9),
        source="https://www.runpod.io/pricing",
    )
    listing = admin_client.get(reverse("admin:catalog_cloudprice_changelist"))
    assert listing.status_code == 200
    assert "3.9900" in listing.content.decode()
    assert (
        admin_client.post(
            reverse("admin:catalog_cloudprice_change", args=[cloud.pk]), {}
        ).status_code
        == 403
    )
