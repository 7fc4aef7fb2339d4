"""Admin: every kind listed and searchable, price history inline, who did what recorded."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from catalog.models import Cpu, Price
from tests.factories import (
    chassis_make,
    cpu_make,
    drive_make,
    gpu_make,
    memory_make,
    nic_make,
    price_make,
)

pytestmark = pytest.mark.django_db

MAKERS = {
    "gpu": gpu_make,
    "cpu": cpu_make,
    "memorymodule": memory_make,
    "drive": drive_make,
    "networkcard": nic_make,
    "chassis": chassis_make,
}


@pytest.mark.parametrize("model_name", list(MAKERS))
def test_changelist_search_and_change_page_render(client, staff_user, model_name):
    part = MAKERS[model_name](sku=f"FIND-ME-{model_name}")
    price_make(part, amount=Decimal("123.45"))
    client.force_login(staff_user)

    listing = client.get(reverse(f"admin:catalog_{model_name}_changelist"), {"q": "FIND-ME"})
    change = client.get(reverse(f"admin:catalog_{model_name}_change", args=[part.pk]))

    assert listing.status_code == 200
    assert f"FIND-ME-{model_name}" in listing.content.decode()
    assert change.status_code == 200
    assert "123.45" in change.content.decode()  # the price history inline


def test_creating_a_part_records_who_and_when(client, staff_user):
    client.force_login(staff_user)
    data = {
        "sku": "ADMIN-CPU",
        "vendor": "AMD",
        "model": "EPYC 9124",
        "source": "https://www.amd.com/",
        "notes": "",
        "active": "on",
        "socket": "SP5",
        "cores": 16,
        "threads": 32,
        "base_ghz": "3.00",
        "boost_ghz": "3.70",
        "tdp_w": 200,
        "memory_channels": 12,
        "max_memory_gb": 6000,
        "pcie_gen": 5,
        "pcie_lanes": 128,
        "server_grade": "on",
        "prices-TOTAL_FORMS": 1,
        "prices-INITIAL_FORMS": 0,
        "prices-0-price_kind": "purchase",
        "prices-0-amount": "1100.00",
        "prices-0-currency": "EUR",
        "prices-0-observed_on": "2026-11-30",
        "prices-0-source": "AMD RCP",
    }
    response = client.post(reverse("admin:catalog_cpu_add"), data)

    assert response.status_code == 302, response.content.decode()[:2000]
    cpu = Cpu.objects.get(sku="ADMIN-CPU")
    assert cpu.kind == "cpu"
    assert cpu.created_by == staff_user
    assert cpu.updated_by == staff_user
    price = Price.objects.get(part=cpu)
    assert (price.amount, price.created_by) == (Decimal("1100.00"), staff_user)


def test_price_rows_cannot_be_edited_or_deleted(client, staff_user):
    price = price_make(gpu_make(), observed_on=dt.date(2026, 1, 1))
    client.force_login(staff_user)
    change = client.post(reverse("admin:catalog_price_change", args=[price.pk]), {"amount": "1.00"})
    delete = client.post(reverse("admin:catalog_price_delete", args=[price.pk]), {"post": "yes"})
    assert change.status_code == 403
    assert delete.status_code == 403
    price.refresh_from_db()
    assert price.amount == Decimal("1000.00")


def test_anonymous_visitors_are_sent_to_the_login(client):
    response = client.get(reverse("admin:catalog_gpu_changelist"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
