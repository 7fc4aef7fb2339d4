"""The sales dashboard says which price sources stopped refreshing: the
prices a quote is built from may be old."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from catalog.models import PriceSource
from tests.factories import price_source_make, staff_user_make

pytestmark = pytest.mark.django_db


def test_the_dashboard_names_a_stale_source_and_only_it(client):
    late = price_source_make(name="Late supplier", schedule="17 4 * * *")
    price_source_make(name="Fresh supplier", schedule="17 4 * * *")
    PriceSource.objects.filter(pk=late.pk).update(created_at=timezone.now() - dt.timedelta(days=3))
    client.force_login(staff_user_make())

    page = client.get(reverse("sales:dashboard")).content.decode()

    assert 'id="stale-sources"' in page
    assert "Late supplier: never refreshed, a run was due" in page
    assert "Fresh supplier" not in page


def test_no_panel_when_every_source_keeps_its_schedule(client):
    price_source_make(name="Fresh supplier", schedule="17 4 * * *")
    client.force_login(staff_user_make())

    page = client.get(reverse("sales:dashboard")).content.decode()

    assert 'id="stale-sources"' not in page
