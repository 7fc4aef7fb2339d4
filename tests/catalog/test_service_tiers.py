"""Managed hosting's service tiers: the model's rules in the database, the engine's
view of the offered tiers per catalog version, the seed loaded by ``load_catalog``, the admin,
and ``GET /api/v1/service-tiers/``."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from catalog.management.commands.load_catalog import SERVICE_TIER_FIELDS
from catalog.models import ServiceTier
from catalog.selectors import catalog_version_get, service_tier_get, service_tiers_get
from engine.commerce.service_tiers import Coverage
from engine.commerce.service_tiers import ServiceTier as EngineServiceTier
from engine.money import Money
from gpuquote.core.roles import MANAGER_GROUP, REP_GROUP
from quotes.api.auth import AnonymousThrottle
from tests.factories import staff_user_make

pytestmark = pytest.mark.django_db

SEED_FILE = Path(__file__).resolve().parents[2] / "catalog" / "data" / "service_tiers.json"
URL = "/api/v1/service-tiers/"


def tier_make(**overrides: Any) -> ServiceTier:
    """A valid offered tier (24x7 at 450.00 EUR / 522.00 USD), saved without validation: the
    database alone judges it."""
    values: dict[str, Any] = {
        "code": "gold",
        "name_en": "Gold",
        "name_fr": "Or",
        "coverage": Coverage.ALWAYS.value,
        "response_minutes": 30,
        "replacement_hours": 4,
        "os_driver_upkeep": True,
        "monitoring": True,
        "backups": True,
        "monthly_price_eur": Decimal("450.00"),
        "monthly_price_usd": Decimal("522.00"),
        "position": 20,
    }
    return ServiceTier.objects.create(**(values | overrides))


def offered(code: str | None, currency: str = "EUR") -> EngineServiceTier:
    """The offered tier ``code`` (the default one for None), which must exist."""
    tier = service_tier_get(code=code, currency=currency)
    assert tier is not None, code
    return tier


@pytest.fixture
def seeded_tiers(tmp_path) -> None:
    """The committed seed tiers, loaded by ``load_catalog`` (with no parts: only the tiers
    matter here)."""
    parts = tmp_path / "parts.json"
    parts.write_text(json.dumps({"parts": []}), encoding="utf-8")
    call_command("load_catalog", str(parts), stdout=StringIO())


# --- The model: the database refuses what no tier may be ----------------------------------------


@pytest.mark.parametrize(
    ("overrides", "constraint"),
    [
        ({"monthly_price_eur": Decimal("-0.01")}, "catalog_servicetier_monthly_price_eur_gte_0"),
        ({"monthly_price_usd": Decimal("-1")}, "catalog_servicetier_monthly_price_usd_gte_0"),
        ({"response_minutes": 0}, "catalog_servicetier_response_minutes_bounded"),
        ({"response_minutes": 10_081}, "catalog_servicetier_response_minutes_bounded"),
        ({"replacement_hours": 0}, "catalog_servicetier_replacement_hours_bounded"),
        ({"coverage": "weekends"}, "catalog_servicetier_coverage_known"),
        ({"name_en": ""}, "catalog_servicetier_code_and_name_not_empty"),
        ({"is_default": True, "active": False}, "catalog_servicetier_default_is_offered"),
    ],
)
def test_the_database_refuses_a_tier_out_of_bounds(overrides, constraint):
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        tier_make(**overrides)

    assert not ServiceTier.objects.exists()


def test_the_database_refuses_a_second_offered_default():
    tier_make(code="basic", is_default=True)

    # PostgreSQL names the partial unique index, SQLite its column.
    refused = r"catalog_servicetier_one_default|catalog_servicetier\.is_default"
    with pytest.raises(IntegrityError, match=refused), transaction.atomic():
        tier_make(code="gold", is_default=True)

    assert list(ServiceTier.objects.values_list("code", "is_default")) == [("basic", True)]


def test_a_withdrawn_tier_may_keep_its_code_while_another_one_is_the_default():
    tier_make(code="basic", is_default=True)
    tier_make(code="old", active=False)

    assert ServiceTier.objects.count() == 2


def test_validation_names_the_bounds_before_the_database_is_asked():
    tier_make(code="basic", is_default=True)
    tier = ServiceTier(
        code="gold",
        name_en="Gold",
        name_fr="Or",
        coverage="24x7",
        response_minutes=0,
        replacement_hours=4,
        monthly_price_eur=Decimal("-5"),
        monthly_price_usd=Decimal("5"),
        is_default=True,
    )

    with pytest.raises(ValidationError) as refused:
        tier.full_clean()

    errors = refused.value.message_dict
    assert set(errors) == {"response_minutes", "monthly_price_eur", "__all__"}
    assert "Another offered tier is the default: untick it there first." in errors["__all__"]


# --- The selector: the engine's tiers, per catalog version ---------------------------------------


def test_the_currency_picks_the_price_column():
    tier_make()

    (eur,) = service_tiers_get(currency="EUR")
    (usd,) = service_tiers_get(currency="USD")

    assert eur.monthly == Money(Decimal("450.00"), "EUR")
    assert usd.monthly == Money(Decimal("522.00"), "USD")
    assert (eur.code, eur.coverage, eur.response_minutes, eur.replacement_hours) == (
        "gold",
        Coverage.ALWAYS,
        30,
        4,
    )
    assert (eur.name("en"), eur.name("fr-be")) == ("Gold", "Or")
    with pytest.raises(ValueError, match="unknown currency"):
        service_tiers_get(currency="GBP")


def test_the_default_tier_answers_when_no_code_is_given_and_an_unknown_code_gets_none():
    tier_make(code="basic", is_default=True, monthly_price_eur=Decimal(0), position=10)
    tier_make(code="gold")

    assert offered(None).code == "basic"
    assert offered("").code == "basic"
    assert offered("gold").code == "gold"
    assert service_tier_get(code="platinum", currency="EUR") is None


def test_no_default_tier_gives_none_when_no_code_is_given():
    tier_make(code="gold")

    assert service_tier_get(code=None, currency="EUR") is None


def test_offered_tiers_come_by_position_and_a_withdrawn_one_is_not_offered():
    tier_make(code="gold", position=20)
    tier_make(code="basic", position=10)
    tier_make(code="silver", position=15, active=False)

    assert [tier.code for tier in service_tiers_get(currency="EUR")] == ["basic", "gold"]
    assert service_tier_get(code="silver", currency="EUR") is None


def test_an_edit_changes_the_catalog_version_and_the_tiers_at_once_in_this_process():
    tier = tier_make()
    before = catalog_version_get()
    assert offered("gold").monthly == Money(Decimal("450.00"), "EUR")

    tier.monthly_price_eur = Decimal("480.00")
    tier.save()

    assert catalog_version_get() != before
    assert offered("gold").monthly == Money(Decimal("480.00"), "EUR")


def test_a_deleted_tier_changes_the_catalog_version_and_leaves_the_offer():
    tier = tier_make()
    before = catalog_version_get()
    service_tiers_get(currency="EUR")

    tier.delete()

    assert catalog_version_get() != before
    assert service_tiers_get(currency="EUR") == ()


def test_the_tiers_are_read_once_per_catalog_version(django_assert_num_queries):
    tier_make()
    # The catalog version (parts and tiers in one query, prices in another), then the tiers.
    with django_assert_num_queries(3):
        service_tiers_get(currency="EUR")
    with django_assert_num_queries(0):  # both currencies were built from that one read
        service_tiers_get(currency="USD")
        service_tier_get(code=None, currency="EUR")


# --- The seed: load_catalog creates the missing tiers and keeps the sales team's edits ----------


def test_load_catalog_seeds_both_tiers(seeded_tiers):
    rows = {
        row["code"]: row
        for row in ServiceTier.objects.values(
            *(name for name in SERVICE_TIER_FIELDS if name != "position")
        )
    }

    assert rows == {
        "standard": {
            "code": "standard",
            "name_en": "Business hours",
            "name_fr": "Heures ouvrées",
            "coverage": "business_hours",
            "response_minutes": 240,
            "replacement_hours": 72,
            "os_driver_upkeep": False,
            "monitoring": True,
            "backups": False,
            "monthly_price_eur": Decimal("0.00"),
            "monthly_price_usd": Decimal("0.00"),
            "is_default": True,
            "active": True,
        },
        "24x7": {
            "code": "24x7",
            "name_en": "24×7",
            "name_fr": "24 h/24, 7 j/7",
            "coverage": "24x7",
            "response_minutes": 30,
            "replacement_hours": 4,
            "os_driver_upkeep": True,
            "monitoring": True,
            "backups": True,
            "monthly_price_eur": Decimal("450.00"),
            "monthly_price_usd": Decimal("522.00"),
            "is_default": False,
            "active": True,
        },
    }


def test_every_seed_tier_states_its_basis():
    for entry in json.loads(SEED_FILE.read_text(encoding="utf-8"))["service_tiers"]:
        assert entry["basis"], entry["code"]
        assert all(line.strip() for line in entry["basis"]), entry["code"]


def test_a_rerun_keeps_what_the_sales_team_edited(seeded_tiers, tmp_path):
    ServiceTier.objects.filter(code="24x7").update(monthly_price_eur=Decimal("399.00"))
    ServiceTier.objects.filter(code="standard").update(name_fr="Jours ouvrés")
    before = list(ServiceTier.objects.order_by("code").values())
    out = StringIO()

    call_command("load_catalog", str(tmp_path / "parts.json"), stdout=out)

    assert list(ServiceTier.objects.order_by("code").values()) == before
    assert "service tiers: 0 created, 2 kept as they are" in out.getvalue()


def test_a_seed_default_does_not_displace_the_sales_teams_default(tmp_path):
    tier_make(code="gold", is_default=True)
    parts = tmp_path / "parts.json"
    parts.write_text(json.dumps({"parts": []}), encoding="utf-8")

    call_command("load_catalog", str(parts), stdout=StringIO())

    defaults = ServiceTier.objects.filter(is_default=True).values_list("code", flat=True)
    assert list(defaults) == ["gold"]
    assert ServiceTier.objects.filter(code="standard", is_default=False).exists()


def test_a_bad_tier_names_itself_and_writes_nothing(tmp_path):
    parts = tmp_path / "parts.json"
    parts.write_text(json.dumps({"parts": []}), encoding="utf-8")
    tiers = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    tiers["service_tiers"][1]["response_minutes"] = 0
    bad = tmp_path / "tiers.json"
    bad.write_text(json.dumps(tiers), encoding="utf-8")

    with pytest.raises(CommandError, match=r"service tier 24x7: .*response_minutes"):
        call_command("load_catalog", str(parts), "--service-tiers", str(bad), stdout=StringIO())

    assert not ServiceTier.objects.exists()


# --- The admin: the sales team edits the tiers with the model's permissions ---------------------


def _admin_user(group: str, *codenames: str):
    user = staff_user_make(group=group)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="catalog", codename__in=codenames)
    )
    return user


def test_a_sales_manager_lists_and_edits_the_tiers_and_is_recorded(client, seeded_tiers):
    manager = _admin_user(MANAGER_GROUP, "view_servicetier", "change_servicetier")
    client.force_login(manager)
    tier = ServiceTier.objects.get(code="24x7")

    listing = client.get(reverse("admin:catalog_servicetier_changelist"))
    form = client.get(reverse("admin:catalog_servicetier_change", args=[tier.pk]))
    changed = client.post(
        reverse("admin:catalog_servicetier_change", args=[tier.pk]),
        {
            "code": "24x7",
            "name_en": "24×7",
            "name_fr": "24 h/24, 7 j/7",
            "active": "on",
            "position": 20,
            "coverage": "24x7",
            "response_minutes": 15,
            "replacement_hours": 4,
            "os_driver_upkeep": "on",
            "monitoring": "on",
            "backups": "on",
            "monthly_price_eur": "500.00",
            "monthly_price_usd": "580.00",
        },
    )

    assert listing.status_code == 200
    shown = [tier.code for tier in listing.context["cl"].result_list]
    assert shown == ["standard", "24x7"]
    assert "450.00" in listing.content.decode()  # the 24x7 tier's EUR price column
    assert form.status_code == 200
    assert changed.status_code == 302, changed.content.decode()[:2000]
    tier.refresh_from_db()
    assert (tier.response_minutes, tier.monthly_price_eur, tier.updated_by) == (
        15,
        Decimal("500.00"),
        manager,
    )


def test_making_a_second_tier_the_default_in_the_admin_is_refused_with_a_message(
    client, seeded_tiers
):
    client.force_login(_admin_user(MANAGER_GROUP, "view_servicetier", "change_servicetier"))
    tier = ServiceTier.objects.get(code="24x7")
    before = list(ServiceTier.objects.order_by("code").values())

    response = client.post(
        reverse("admin:catalog_servicetier_change", args=[tier.pk]),
        {
            "code": "24x7",
            "name_en": "24×7",
            "name_fr": "24 h/24, 7 j/7",
            "active": "on",
            "is_default": "on",
            "position": 20,
            "coverage": "24x7",
            "response_minutes": 30,
            "replacement_hours": 4,
            "monthly_price_eur": "450.00",
            "monthly_price_usd": "522.00",
        },
    )

    assert response.status_code == 200
    assert "Another offered tier is the default: untick it there first." in (
        response.content.decode()
    )
    assert list(ServiceTier.objects.order_by("code").values()) == before


def test_staff_without_the_permission_cannot_open_the_tiers(client, seeded_tiers):
    client.force_login(_admin_user(REP_GROUP))

    response = client.get(reverse("admin:catalog_servicetier_changelist"))

    assert response.status_code == 403


# --- The API: GET /api/v1/service-tiers/ ----------------------------------------------------------

EN_BUSINESS_HOURS = {
    "code": "standard",
    "name": "Business hours",
    "coverage": "business_hours",
    "coverage_label": "Business hours (working days)",
    "response_minutes": 240,
    "replacement_hours": 72,
    "os_driver_upkeep": False,
    "monitoring": True,
    "backups": False,
    "monthly": "0.00",
    "currency": "EUR",
    "is_default": True,
    "included_operations": [
        "Business hours (working days) support: a first answer within 4 h",
        "A failed part replaced within 72 h",
        "The GPUs watched by the host, which acts on the alerts",
    ],
}
EN_ALWAYS = {
    "code": "24x7",
    "name": "24×7",
    "coverage": "24x7",
    "coverage_label": "24×7 (every hour of every day)",
    "response_minutes": 30,
    "replacement_hours": 4,
    "os_driver_upkeep": True,
    "monitoring": True,
    "backups": True,
    "monthly": "450.00",
    "currency": "EUR",
    "is_default": False,
    "included_operations": [
        "24×7 (every hour of every day) support: a first answer within 30 min",
        "A failed part replaced within 4 h",
        "Operating system, GPU driver and CUDA or ROCm kept up to date",
        "The GPUs watched by the host, which acts on the alerts",
        "The system disks backed up every day",
    ],
}


def test_anyone_lists_the_tiers_in_english_by_position_in_eur(client, seeded_tiers):
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 200
    assert response.json() == [EN_BUSINESS_HOURS, EN_ALWAYS]
    assert "Accept-Language" in response["Vary"]


def test_a_french_reader_gets_french_names_and_sentences(client, seeded_tiers):
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == 200
    business_hours, always = response.json()
    assert (business_hours["name"], always["name"]) == ("Heures ouvrées", "24 h/24, 7 j/7")
    assert business_hours["coverage_label"] == "Heures ouvrées (jours ouvrés)"
    assert business_hours["included_operations"] == [
        "Heures ouvrées (jours ouvrés) : une première réponse de l’assistance sous 4 h",
        "Une pièce défaillante remplacée sous 72 h",
        "Les GPU surveillés par l’hébergeur, qui traite les alertes",
    ]
    assert always["included_operations"] == [
        "24 h/24, 7 j/7 (à toute heure, tous les jours) : une première réponse de l’assistance "
        "sous 30 min",
        "Une pièce défaillante remplacée sous 4 h",
        "Système d’exploitation, pilote GPU et CUDA ou ROCm tenus à jour",
        "Les GPU surveillés par l’hébergeur, qui traite les alertes",
        "Les disques système sauvegardés chaque jour",
    ]
    # The figures and codes do not depend on the language.
    assert always["monthly"] == "450.00"
    assert always["coverage"] == "24x7"


def test_usd_prices_with_currency_usd(client, seeded_tiers):
    response = client.get(URL, {"currency": "USD"})

    assert response.status_code == 200
    assert [(row["code"], row["monthly"], row["currency"]) for row in response.json()] == [
        ("standard", "0.00", "USD"),
        ("24x7", "522.00", "USD"),
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [("currency=GBP", "currency"), ("currency=EUR&currency=USD", "currency"), ("lang=fr", "lang")],
)
def test_a_bad_query_is_a_400_naming_the_parameter(client, seeded_tiers, query, field):
    response = client.get(f"{URL}?{query}")

    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "https://gpuquote.example/problems/invalid-input"
    assert list(body["errors"]) == [field]


def test_no_tier_offered_is_an_empty_list(client):
    tier_make(active=False)

    response = client.get(URL)

    assert response.status_code == 200
    assert response.json() == []


def test_an_edit_shows_in_the_next_answer(client, seeded_tiers):
    client.get(URL)
    tier = ServiceTier.objects.get(code="24x7")
    tier.monthly_price_eur = Decimal("470.00")
    tier.save()

    rows = client.get(URL).json()

    assert rows[1]["monthly"] == "470.00"


def test_the_list_costs_at_most_the_version_and_one_read_then_nothing(
    client, seeded_tiers, django_assert_max_num_queries, django_assert_num_queries
):
    with django_assert_max_num_queries(3):  # the catalog version (2), the tiers (1)
        assert client.get(URL).status_code == 200
    tier_make(code="gold", position=30)  # more tiers: no more queries
    client.get(URL)
    with django_assert_num_queries(0):  # cached for this catalog version
        response = client.get(URL, {"currency": "USD"})
    assert len(response.json()) == 3


def test_anonymous_callers_are_throttled(client, seeded_tiers, monkeypatch):
    rates = AnonymousThrottle.THROTTLE_RATES | {"anon": "2/minute"}
    monkeypatch.setattr(AnonymousThrottle, "THROTTLE_RATES", rates)

    answers = [client.get(URL).status_code for _ in range(3)]

    assert answers == [200, 200, 429]
