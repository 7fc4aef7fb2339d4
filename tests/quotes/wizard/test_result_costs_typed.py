"""The result page's cost section is read from the engine's own objects, and shows the figures
the API states for the same result: every total, category, year and sensitivity case, the
managed offer's terms and one run of the job."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation

from engine.tco import Way
from quotes.advice.labels import CATEGORY_LABELS
from quotes.advice.presenters import job_to_dict, managed_offer_to_dict, tco_to_dict
from quotes.wizard.result_page import result_context
from tests.quotes.wizard.wizard_cases import (
    FINE_TUNING,
    INFERENCE,
    stored_advice,
    wizard_result_make,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def _api(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


@pytest.mark.parametrize("case", [INFERENCE, FINE_TUNING], ids=["inference", "fine_tuning"])
def test_the_page_shows_the_apis_cost_figures(client, case):
    result = wizard_result_make(client, case, language="en")
    advice = stored_advice(result)
    assert advice.tco is not None
    api = tco_to_dict(advice.tco)  # what POST /api/v1/tco/ answers for the same costs
    ways = [way for way in Way if str(way) in api["options"]]

    with translation.override("en"):
        tco = result_context(result, advice)["tco"]

    assert [item["key"] for item in tco["totals"]] == [str(way) for way in ways]
    for item in tco["totals"]:
        option = api["options"][item["key"]]
        assert item["total"] == Decimal(option["total"])
        assert item["per_gpu_hour"] == Decimal(option["cost_per_gpu_hour"])
    for row in tco["yearly_rows"]:
        assert row["values"] == [
            Decimal(api["options"][way]["monthly_cumulative"][row["year"] * 12 - 1]) for way in ways
        ]
    shown = {row["key"]: row["values"] for row in tco["categories"]}
    for key, values in shown.items():
        assert values == [_api(api["options"][way]["by_category"].get(key)) for way in ways]
    # Every category with an amount is shown, none is dropped for want of a label.
    charged = {
        key
        for option in api["options"].values()
        for key, value in option["by_category"].items()
        if Decimal(value)
    }
    assert set(shown) == charged
    assert charged <= set(CATEGORY_LABELS)
    cases = [row for group in tco["sensitivity"] for row in group["rows"]]
    assert [row["values"] for row in cases] == [
        [_api(row["totals"].get(way)) for way in ways] for row in api["sensitivity"]
    ]
    assert [row["break_even"] for row in cases] == [
        row["break_even_month"]["vs_managed"] for row in api["sensitivity"]
    ]
    assert tco["co2e_kg_per_year"] == api["co2e_kg_per_year"]
    assert tco["assumptions"] == api["assumptions"]


def test_the_managed_offer_and_the_job_are_the_apis_figures(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    advice = stored_advice(result)
    costs = advice.tco
    chosen = advice.chosen
    assert costs is not None
    assert chosen is not None
    assert advice.job is not None
    offer = managed_offer_to_dict(costs.managed_offer, costs.horizon_months)
    assert offer is not None
    job = job_to_dict(advice.job)
    assert job is not None

    with translation.override("en"):
        tco = result_context(result, advice)["tco"]

    servers = chosen.servers
    assert [
        (term["months"], term["monthly"], term["setup"]) for term in tco["managed"]["terms"]
    ] == [
        (term["months"], Decimal(term["monthly"]) * servers, Decimal(term["setup"]) * servers)
        for term in offer["terms"]
    ]
    assert [term["months"] for term in tco["managed"]["terms"] if term["signed"]] == [
        offer["contract_months"]
    ]
    cards = {card["key"]: card["amount"] for card in tco["job"]["cards"]}
    api_cards = {"cloud": job["cloud"], "managed": job["managed"], "on_premises": job["buy"]}
    assert cards == {key: Decimal(value) for key, value in api_cards.items() if value is not None}
