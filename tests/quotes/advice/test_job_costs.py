"""Experiments are priced as jobs: a run of known length is rented or bought,
and the horizon view reads as "if you run such jobs continuously"."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from engine.tco import Way
from quotes.advice.compute import compute
from quotes.advice.selectors import assumptions_get
from tests.factories import advice_inputs_make

pytestmark = pytest.mark.django_db

ONE_GB_OF_TEXT = {"kind": "text", "total_gb": 1}
JOBS = {
    "70B QLoRA": {
        "task": "fine_tuning",
        "model": "llama-3.1-70b",
        "training": {"method": "qlora"},
        "data": ONE_GB_OF_TEXT,
    },
    "1B pre-training within 14 days": {
        "task": "pretraining",
        "model": "llama-3.2-1b",
        "training": {"training_tokens": 25 * 10**9, "deadline_days": 14},
    },
    "7B LoRA": {
        "task": "fine_tuning",
        "model": "mistral-7b",
        "training": {"method": "lora"},
        "data": ONE_GB_OF_TEXT,
    },
}


def _advise(workload, *, budget=None):
    return compute(
        advice_inputs_make(
            workload=workload,
            environment="experiment",
            uptime="business_hours",
            deployment="not_sure",
            budget=budget,
        )
    )


@pytest.mark.usefixtures("seed_catalog")
@pytest.mark.parametrize("name", list(JOBS))
def test_a_run_costs_far_less_to_rent_than_three_years_of_ownership(name):
    advice = _advise(JOBS[name])
    job = advice.job
    chosen = advice.chosen

    assert job is not None
    assert chosen is not None
    assert advice.tco is not None
    assert job.hours == advice.on_recommended.training_hours
    assert job.gpus == chosen.totals.gpus
    # The cheapest way to run one job is to rent it, and it is a fraction of the 3-year view
    assert job.cheapest in {Way.CLOUD, Way.MANAGED}
    cheapest = job.cloud if job.cheapest is Way.CLOUD else job.managed
    assert cheapest.amount < job.buy.amount
    assert cheapest.amount < advice.tco.on_premises.total.amount / 5
    # Cloud: every GPU-hour started, at the GPU's dated on-demand price
    gpu = next(line.name for line in chosen.parts if line.kind == "gpu")
    prices = assumptions_get(region="FR", currency="EUR", gpu_model=gpu)
    if job.cloud is not None:
        hourly = prices.value("cloud_price_per_gpu_hour")
        expected = Decimal(job.gpus * math.ceil(job.hours)) * hourly
        assert job.cloud.amount == expected.quantize(Decimal("0.01"))
    # Month to month with the host: the months the run starts, and the setup
    fee = advice.managed_offers[chosen.tier].term(0)
    servers = chosen.servers
    assert job.managed.amount == servers * (
        fee.monthly.amount * job.managed_months + fee.setup.amount
    )


@pytest.mark.usefixtures("seed_catalog")
def test_a_7b_experiment_on_5000_eur_gets_the_smallest_purchase_and_a_rental():
    advice = _advise(JOBS["7B LoRA"], budget=Decimal(5000))

    assert advice.chosen is not None  # never "no configuration"
    assert advice.chosen.totals.price.amount <= 5000
    assert advice.job is not None
    assert advice.job.managed.amount < advice.job.buy.amount  # renting the box for the run


@pytest.mark.usefixtures("seed_catalog")
def test_a_service_has_no_job_cost():
    advice = _advise({"task": "inference", "model": "llama-3.1-8b"})
    assert advice.job is None
