"""Stored results, compressed: the column holds compact JSON through zlib, Python reads the same
value back, and the results stored as JSON before the migration read the same after it (and
after it is reversed)."""

from __future__ import annotations

import zlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from quotes.advice.compute import compute
from quotes.advice.store import result_from_json, result_to_json
from quotes.models import WizardResult
from quotes.models.fields import json_pack, json_unpack
from tests.factories import advice_inputs_make, stored_result_make

BEFORE = [("quotes", "0014_revision_approved_digest")]
AFTER = [("quotes", "0015_wizard_result_packed_once_per_input")]

# What the codec writes, and the values JSON must bring back as they were.
AWKWARD = {
    "text": "Dépôt 1 × H100 — «ok» \u2028 \U0001f600",
    "float": 0.1 + 0.2,
    "tiny": 5e-324,
    "big": 1.7976931348623157e308,
    "int": 2**63,
    "list": [None, True, False, -0.0, "1.10"],
    "nested": {"b": 1, "a": 2},
}


def test_a_packed_value_reads_back_exactly():
    packed = json_pack(AWKWARD)

    assert packed[:1] == b"\x78"  # a zlib stream (RFC 1950)
    assert json_unpack(packed) == AWKWARD
    assert list(json_unpack(packed)["nested"]) == ["b", "a"]  # the order is kept


@pytest.mark.django_db
def test_the_model_writes_the_column_compressed_and_reads_the_value():
    result = WizardResult.objects.create(language="en", answers={}, result=AWKWARD)

    with connection.cursor() as cursor:
        cursor.execute("SELECT result FROM quotes_wizardresult WHERE id = %s", [result.pk])
        (raw,) = cursor.fetchone()

    assert zlib.decompress(bytes(raw)).startswith(b'{"text":"D\xc3\xa9p\xc3\xb4t')
    assert WizardResult.objects.get(pk=result.pk).result == AWKWARD


@pytest.mark.django_db
def test_staff_read_the_stored_json_in_the_admin(admin_client):
    result = stored_result_make()

    page = admin_client.get(reverse("admin:quotes_wizardresult_change", args=[result.pk]))

    assert page.status_code == 200
    assert "{&quot;schema&quot;: 2, &quot;advice&quot;: {" in page.content.decode()


@pytest.fixture
def migrations_back_to_the_latest():
    """Whatever the test leaves, the next test finds every migration applied."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("quotes"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("seed_catalog", "migrations_back_to_the_latest")
def test_results_stored_as_json_before_read_the_same_after_the_migration():
    advice = compute(advice_inputs_make())
    stored = result_to_json(advice)
    schema_1 = {"inputs": stored["advice"]["inputs"], "texts": {"en": "Rendered before."}}
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old_model = executor.loader.project_state(BEFORE).apps.get_model("quotes", "WizardResult")
    current = old_model.objects.create(token="a" * 43, language="en", answers={}, result=stored)
    older = old_model.objects.create(token="b" * 43, language="fr", answers={}, result=schema_1)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)

    assert WizardResult.objects.get(pk=current.pk).result == stored
    assert result_from_json(WizardResult.objects.get(pk=current.pk).result) == advice
    assert WizardResult.objects.get(pk=older.pk).result == schema_1
    assert WizardResult.objects.filter(inputs_digest="").count() == 2

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old_model = executor.loader.project_state(BEFORE).apps.get_model("quotes", "WizardResult")
    assert old_model.objects.get(pk=current.pk).result == stored
    assert old_model.objects.get(pk=older.pk).result == schema_1
