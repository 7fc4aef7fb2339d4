"""Regional TCO defaults: seeded once from the engine, edited by staff, never overwritten."""

import importlib
from decimal import Decimal

import pytest
from django.apps import apps as django_apps
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from catalog.selectors import versions_forget
from engine.assumptions import REGIONS, builtin_facts
from quotes.advice.selectors import assumptions_get
from quotes.models import RegionAssumption

pytestmark = pytest.mark.django_db


def test_seeding_creates_every_regional_default_once(capsys):
    call_command("load_assumptions")
    expected = sum(len(builtin_facts(region)) for region in REGIONS)
    assert RegionAssumption.objects.count() == expected
    fr_pue = RegionAssumption.objects.get(region="FR", name="pue")
    assert fr_pue.value == builtin_facts("FR")["pue"].value
    assert "Uptime" in fr_pue.source

    call_command("load_assumptions")
    assert RegionAssumption.objects.count() == expected
    assert f"0 created, {expected} kept" in capsys.readouterr().out


def test_seeding_keeps_staff_edits():
    call_command("load_assumptions")
    RegionAssumption.objects.filter(region="DE", name="pue").update(value=Decimal("1.25"))
    versions_forget()  # a bulk update sends no signal (seen within DATA_VERSION_MS)
    call_command("load_assumptions")
    assert RegionAssumption.objects.get(region="DE", name="pue").value == Decimal("1.25")
    assert assumptions_get(region="DE", currency="EUR").value("pue") == Decimal("1.25")


def test_staff_edit_in_the_admin_is_validated_and_recorded(client, staff_user):
    call_command("load_assumptions")
    row = RegionAssumption.objects.get(region="FR", name="pue")
    client.force_login(staff_user)
    url = reverse("admin:quotes_regionassumption_change", args=[row.pk])
    data = {"region": "FR", "name": "pue", "currency": "", "source": "Our site, 2026"}

    refused = client.post(url, data | {"value": "7"})
    accepted = client.post(url, data | {"value": "1.4"})

    assert refused.status_code == 200  # the form again, with the error
    assert "between" in refused.content.decode()
    assert accepted.status_code == 302
    row.refresh_from_db()
    assert (row.value, row.source, row.updated_by) == (Decimal("1.4"), "Our site, 2026", staff_user)


def test_money_needs_a_currency_and_ratios_none():
    with pytest.raises(ValidationError, match="currency"):
        RegionAssumption(
            region="FR", name="electricity_price_per_kwh", value=Decimal("0.2"), source="x"
        ).full_clean()
    with pytest.raises(ValidationError, match="currency"):
        RegionAssumption(
            region="FR", name="pue", value=Decimal("1.4"), currency="EUR", source="x"
        ).full_clean()


def test_rows_seeded_with_an_old_builtin_source_get_the_public_one_and_edits_stay():
    # quotes/migrations/0008: a row seeded before keeps its text; an old placeholder or project
    # path is replaced by the current built-in source, a staff member's own source is kept.
    migration = importlib.import_module("quotes.migrations.0008_builtin_sources_public")
    seeded = RegionAssumption.objects.create(
        region="FR",
        name="managed_discount_36m_pct",
        value=Decimal("0.10"),
        source="Provider's commercial policy (placeholder, confirm with the host)",
    )
    edited = RegionAssumption.objects.create(
        region="DE",
        name="managed_discount_36m_pct",
        value=Decimal("0.08"),
        source="Our 2026 hosting contract, clause 4",
    )

    migration.public_sources(django_apps, None)

    seeded.refresh_from_db()
    edited.refresh_from_db()
    assert seeded.source == builtin_facts("FR")["managed_discount_36m_pct"].source
    assert "placeholder" not in seeded.source
    assert seeded.value == Decimal("0.10")
    assert edited.source == "Our 2026 hosting contract, clause 4"


def test_a_manager_edits_the_hosts_own_cost_base_in_the_admin(client, staff_user):
    call_command("load_assumptions")
    row = RegionAssumption.objects.get(region="FR", name="host_electricity_price_per_kwh")
    assert "nrg_pc_205" in row.source
    client.force_login(staff_user)
    url = reverse("admin:quotes_regionassumption_change", args=[row.pk])
    data = {
        "region": "FR",
        "name": "host_electricity_price_per_kwh",
        "currency": "EUR",
        "source": "Our 2027 power purchase agreement",
    }

    response = client.post(url, data | {"value": "0.075"})

    assert response.status_code == 302
    row.refresh_from_db()
    assert (row.value, row.updated_by) == (Decimal("0.075"), staff_user)
    versions_forget()
    french = assumptions_get(region="FR", currency="EUR")
    assert french.value("host_electricity_price_per_kwh") == Decimal("0.075")
    assert (
        french.value("electricity_price_per_kwh")
        == builtin_facts("FR")["electricity_price_per_kwh"].value
    )  # the customer's own tariff is another figure
