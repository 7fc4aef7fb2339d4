"""The cost of one job: rent for the run or buy."""

import math
from decimal import Decimal

import pytest

from engine.tco import Way, job_cost, managed_offer
from tests.engine.tco.tco_cases import assumptions, configuration, eur

HAND = {
    "electricity_price_per_kwh": "0.2",
    "pue": "1.5",
    "cloud_price_per_gpu_hour": "2",
    "host_setup_cost_per_server": "200",
    "host_setup_cost_per_gpu": "50",
}


def _server(**changes):
    fields = {"servers": 2, "gpus_per_server": 4, "power_w": 3000, "price": eur("100000")}
    return configuration(**{**fields, **changes})


def _job(hours, **changes):
    given = assumptions(**HAND).for_gpu_model("H100 SXM")
    config = _server(**changes)
    offer = managed_offer(config, given)
    return job_cost(hours, config, given, offer), offer


def test_a_run_is_priced_rented_by_the_hour_hosted_by_the_month_or_bought_by_hand():
    job, offer = _job(100.5)
    month_to_month = offer.term(0)

    # 8 GPUs x 101 hours started x 2 EUR
    assert (job.cloud, job.cloud_gpu_hours) == (eur("1616.00"), 808)
    # 2 servers x (one month of the month-to-month fee + its setup)
    assert job.managed_months == 1
    assert job.managed.amount == 2 * (month_to_month.monthly.amount + month_to_month.setup.amount)
    # 2 x 3 kW x 100.5 h x PUE 1.5 x 0.20 EUR = 180.90 EUR; plus 2 x 100,000
    assert job.energy == eur("180.90")
    assert job.buy == eur("200180.90")
    assert job.cheapest is Way.CLOUD
    assert (job.gpus, job.hours) == (8, 100.5)


def test_a_longer_run_pays_every_month_it_starts():
    job, offer = _job(731)
    assert job.managed_months == 2
    fee = offer.term(0)
    assert job.managed.amount == 2 * (fee.monthly.amount * 2 + fee.setup.amount)


def test_without_a_cloud_price_the_host_rents_month_to_month():
    given = assumptions(**{k: v for k, v in HAND.items() if k != "cloud_price_per_gpu_hour"})
    config = _server(gpu_model="NVIDIA GeForce RTX 5090 32GB")
    resolved = given.for_gpu_model(config.gpu_model)
    job = job_cost(36.3, config, resolved, managed_offer(config, resolved))

    assert job.cloud is None
    assert job.cheapest in {Way.MANAGED, Way.ON_PREMISES}
    assert job.cheapest is min(
        (Way.MANAGED, Way.ON_PREMISES),
        key=lambda o: (job.managed if o is Way.MANAGED else job.buy).amount,
    )


@pytest.mark.parametrize("hours", [0, -1, math.inf, math.nan])
def test_a_job_needs_a_positive_finite_length(hours):
    with pytest.raises(ValueError, match="positive"):
        _job(hours)


def test_the_cheapest_way_is_the_lowest_figure():
    for hours in (1, 24, 240, 2400, 24000):
        job, _ = _job(hours)
        figures = {
            Way.ON_PREMISES: job.buy,
            Way.MANAGED: job.managed,
            Way.CLOUD: job.cloud,
        }
        assert figures[job.cheapest].amount == min(m.amount for m in figures.values())
        assert job.cloud.amount == Decimal(8 * math.ceil(hours) * 2)
