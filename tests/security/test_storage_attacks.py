"""Attack: fill the database for free. An anonymous visitor posts the same re-price (or the same
wizard submission) 60 times a minute, the rate limit's allowance; each post stored a new result
of 100-150 KB, kept 90 days. The same question on the same data now gives the stored result back
(one row, the same link), a different question or new data stores a new one, and a stored
result takes a fraction of its JSON text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse

from catalog.models import Price
from quotes.advice.computed_cache import computed_get
from quotes.models import WizardResult
from quotes.wizard import services
from tests.quotes.wizard.wizard_cases import (
    FINE_TUNING,
    INFERENCE,
    TRAINING,
    stored_advice,
    wizard_result_make,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

ATTACKER = "203.0.113.7"  # the flood comes from another address than the wizard's walk
SERVING_70B = INFERENCE | {"project": INFERENCE["project"] | {"model": "llama-3.1-70b"}}


def _reprice(client, result: WizardResult, **changes: str):
    advice = stored_advice(result)
    data = {
        "gpu": advice.inputs.gpu_sku,
        "gpu_count": "",
        "horizon_years": str(advice.inputs.horizon_years),
        "region": advice.inputs.region,
        "deployment": advice.inputs.deployment,
    } | changes
    url = reverse("wizard:result_reprice", kwargs={"token": result.token})
    return client.post(url, data, REMOTE_ADDR=ATTACKER)


def _stored_bytes(result: WizardResult) -> int:
    """The size of the result's column as the database holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT result FROM quotes_wizardresult WHERE id = %s", [result.pk])
        (value,) = cursor.fetchone()
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | bytearray | memoryview):
        return len(bytes(value))
    return len(json.dumps(value).encode())


def test_the_same_reprice_posted_sixty_times_stores_one_result(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")

    responses = [_reprice(client, result, horizon_years="5") for _ in range(60)]

    assert [r.status_code for r in responses] == [302] * 60
    assert len({r["Location"] for r in responses}) == 1
    fresh = WizardResult.objects.exclude(pk=result.pk).get()
    assert responses[0]["Location"].startswith(
        reverse("wizard:result", kwargs={"token": fresh.token})
    )
    assert stored_advice(fresh).inputs.horizon_years == 5


def test_another_reprice_or_new_data_stores_a_new_result(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    five_years = _reprice(client, result, horizon_years="5")["Location"]

    four_years = _reprice(client, result, horizon_years="4")["Location"]
    assert four_years != five_years
    assert WizardResult.objects.count() == 3

    price = Price.objects.filter(price_kind="purchase", currency="USD").latest("id")
    price.pk = None
    price.amount += 1
    price.save()  # a new price: new data
    on_new_data = _reprice(client, result, horizon_years="5")["Location"]

    assert on_new_data not in {five_years, four_years}
    assert WizardResult.objects.count() == 4
    assert _reprice(client, result, horizon_years="5")["Location"] == on_new_data
    assert WizardResult.objects.count() == 4


def test_the_same_question_after_an_engine_change_is_computed_again(client, monkeypatch):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    five_years = _reprice(client, result, horizon_years="5")["Location"]
    assert _reprice(client, result, horizon_years="5")["Location"] == five_years

    # A deploy changed a formula: the engine's digest moves, the stored answer is not reused.
    monkeypatch.setattr("quotes.advice.selectors.ENGINE_VERSION", "another-engine")
    after_deploy = _reprice(client, result, horizon_years="5")["Location"]

    assert after_deploy != five_years
    assert WizardResult.objects.count() == 3


def test_the_wizard_submitted_twice_stores_one_result(client):
    first = wizard_result_make(client, FINE_TUNING, language="en")
    done = reverse("wizard:step", kwargs={"step": "deployment"})

    again = client.post(done, FINE_TUNING["deployment"] | {"nav": "next"})

    assert again.status_code == 302
    assert again["Location"] == reverse("wizard:result", kwargs={"token": first.token})
    assert WizardResult.objects.get() == first


def test_the_same_answers_in_another_language_store_their_own_result(client):
    first = wizard_result_make(client, FINE_TUNING, language="en")
    client.cookies["django_language"] = "fr"
    done = reverse("wizard:step", kwargs={"step": "deployment"})

    again = client.post(done, FINE_TUNING["deployment"] | {"nav": "next"})

    french = WizardResult.objects.exclude(pk=first.pk).get()
    assert again["Location"] == reverse("wizard:result", kwargs={"token": french.token})
    assert french.language == "fr"
    assert stored_advice(french) == stored_advice(first)


def test_two_identical_reprices_at_once_store_one_result(client, monkeypatch):
    """The race: while this request computes, the same re-price from another tab is answered
    and stores its result; this request's insert then loses on the unique constraint, and it
    answers with the other's result instead of failing or storing a second one."""
    result = wizard_result_make(client, FINE_TUNING, language="en")
    real_computed_get = services.computed_get
    other: list[Any] = []

    def computed_get(inputs: Any) -> Any:
        if not other:
            other.append(None)
            other[0] = _reprice(client, result, horizon_years="5")  # the other request
        return real_computed_get(inputs)

    monkeypatch.setattr(services, "computed_get", computed_get)

    response = _reprice(client, result, horizon_years="5")

    assert response.status_code == 302
    assert other[0].status_code == 302
    assert response["Location"] == other[0]["Location"]
    fresh = WizardResult.objects.exclude(pk=result.pk).get()
    assert response["Location"].startswith(reverse("wizard:result", kwargs={"token": fresh.token}))


@pytest.mark.parametrize("answers", [SERVING_70B, TRAINING], ids=["serving-70b", "training"])
def test_a_stored_result_takes_a_fraction_of_its_json(client, answers):
    result = wizard_result_make(client, answers, language="en")
    as_json = len(json.dumps(result.result).encode())  # what the JSON column held: 125-147 KB

    stored = _stored_bytes(result)

    assert as_json > 100_000
    assert stored < 40_000
    assert stored * 3 < as_json
    # Read back exactly: the value and the engine's objects are the fresh computation's.
    computed = computed_get(stored_advice(result).inputs)
    assert WizardResult.objects.get(pk=result.pk).result == computed.stored
    assert stored_advice(WizardResult.objects.get(pk=result.pk)) == computed.result
