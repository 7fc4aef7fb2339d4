"""The global batch is an optimisation setting, not a hardware one: the same tokens and deadline
at any global batch give builds of about the same price.

Memory holds one micro-batch per GPU and gradient accumulation reaches the global batch
(DeepSpeed: train_batch_size = micro batch x accumulation steps x GPUs; Korthikanti et al. 2022,
arXiv:2205.05198, size activations per micro-batch). Before, every GPU held its whole share of
the batch: 8 sequences gave 3 x 48 GB cards for about 32,000 EUR, 2,048 gave 24 MI300X for
about 865,000 EUR (27 times the price).
"""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest

from engine.build.builder import Environment, Tier
from engine.workload import workload_from_dict
from quotes.advice.selectors import advice_get

GLOBAL_BATCHES = (8, 64, 512, 2048)
MOST_PRICE_RATIO = Decimal("1.5")


def _budget_option(batch: int):
    workload = workload_from_dict(
        {
            "task": "pretraining",
            "model": "llama-3.2-1b",
            "training": {
                "training_tokens": 100 * 10**9,
                "deadline_days": 30,
                "batch_size": batch,
                "sequence_length": 2048,
            },
        }
    )
    advice = advice_get(workload=workload, environment=Environment.EXPERIMENT, currency="EUR")
    options = {option.tier: option for option in advice.build.options}
    assert Tier.BUDGET in options, [m.render() for m in advice.build.unmet]
    return advice, options[Tier.BUDGET]


@pytest.fixture
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


@pytest.mark.django_db
@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(("small", "large"), list(itertools.combinations(GLOBAL_BATCHES, 2)))
def test_the_global_batch_barely_changes_the_price(small, large):
    small_advice, small_option = _budget_option(small)
    large_advice, large_option = _budget_option(large)
    prices = sorted([small_option.totals.price.amount, large_option.totals.price.amount])
    assert prices[1] <= MOST_PRICE_RATIO * prices[0], (small, large, prices)
    # The job itself needs the same memory: one micro-batch, whatever the global batch.
    assert small_advice.sizing.memory_gb == large_advice.sizing.memory_gb
    assert large_advice.sizing.accumulation_steps == large
