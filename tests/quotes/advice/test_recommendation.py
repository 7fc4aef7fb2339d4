"""The answer first: one recommendation read by the result page, the checklist, the
quote screens and the APIs, whose figures are those of the sections below it."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from engine.advice.recommendation import recommend
from engine.build.configuration import Check
from engine.i18n import Message
from engine.tco import Way
from gpuquote.core.formatting import money_format
from tests.quotes.advice.test_job_costs import JOBS, _advise
from tests.quotes.wizard.wizard_cases import INFERENCE, stored_advice, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def test_a_service_is_answered_with_its_price_each_way_and_the_cheapest_over_the_horizon():
    advice = _advise({"task": "inference", "model": "llama-3.1-8b"})
    found = advice.recommendation
    chosen = advice.chosen
    tco = advice.tco

    assert found is not None
    assert chosen is not None
    assert tco is not None
    assert (found.tier, found.servers) == (chosen.tier, chosen.servers)
    assert found.gpus == chosen.totals.gpus
    assert found.buy == chosen.totals.price
    contract = advice.managed_offers[chosen.tier].term(36)
    assert found.managed_monthly == contract.monthly * chosen.servers
    assert found.managed_months == 36
    assert found.cheapest is tco.cheapest
    assert found.cheapest_amount == tco.options[tco.cheapest].total
    assert len(found.reasons) == 3
    assert found.reasons[1].params["n"] == len(chosen.checks)
    assert "rule checks" in found.reasons[1].template
    assert found.job is None


def test_a_run_is_answered_with_the_cheapest_way_to_run_it():
    advice = _advise(JOBS["70B QLoRA"])
    found = advice.recommendation

    assert found is not None
    assert found.job == advice.job
    assert found.cheapest is advice.job.cheapest
    assert found.cheapest in {Way.CLOUD, Way.MANAGED}
    assert "One run takes" in found.reasons[2].template


def test_failed_rules_are_said_in_the_reasons():
    advice = _advise({"task": "inference", "model": "llama-3.1-8b"})
    chosen = advice.chosen
    broken = dataclasses.replace(
        chosen, checks=(*chosen.checks[1:], Check("ecc", False, Message("no ECC")))
    )

    found = recommend(broken, advice.sizing)

    assert found.reasons[1].params == {"failed": 1, "n": len(chosen.checks)}
    assert found.cheapest is None  # no TCO: nothing to compare


def test_the_result_page_leads_with_the_answer(client):
    result = wizard_result_make(client, INFERENCE, language="en")
    advice = stored_advice(result)
    found = advice.recommendation
    assert found is not None
    assert found.managed_monthly is not None
    assert found.cheapest_amount is not None
    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    answer = html[html.index('id="answer"') : html.index("</section>", html.index('id="answer"'))]
    assert html.index('id="answer"') < html.index('id="needs"')
    with translation.override("en"):
        assert money_format(found.buy.amount, "EUR", places=0) in answer
        assert money_format(found.managed_monthly.amount, "EUR", places=0) in answer
        assert money_format(found.cheapest_amount.amount, "EUR", places=0) in answer
    assert "Cheapest over 4 years" in answer
    assert 'href="#quote"' in answer


def test_the_apis_carry_the_recommendation(client):
    workload = {"task": "inference", "model": "llama-3.1-8b"}
    configurations = client.post(
        reverse("api:configurations"),
        {"workload": workload, "environment": "production"},
        content_type="application/json",
    ).json()
    tco = client.post(
        reverse("api:tco"),
        {"workload": workload, "environment": "production"},
        content_type="application/json",
    ).json()

    built = configurations["recommendation"]
    tiers = {o["tier"]: o for o in configurations["options"]}
    # the option that serves the most tokens/s per user per euro, as its card states
    per_user = {
        tier: float(option["performance"]["serving"]["tokens_per_second_per_user"])
        for tier, option in tiers.items()
    }
    chosen = tiers[max(tiers, key=lambda t: per_user[t] / float(tiers[t]["totals"]["price"]))]
    assert built["tier"] == chosen["tier"]
    assert built["buy"] == chosen["totals"]["price"]
    assert (built["managed_monthly"], built["cheapest"]) == (None, None)  # no region: see /tco/
    answer = tco["recommendation"]
    signed = tco["managed_offer"]["terms"][-1]
    servers = tco["configuration"]["servers"]
    assert Decimal(answer["managed_monthly"]) == Decimal(signed["monthly"]) * servers
    assert answer["cheapest"] == tco["cheapest"]
    assert answer["cheapest_amount"] == tco["options"][tco["cheapest"]]["total"]
    assert len(answer["reasons"]) == 3
