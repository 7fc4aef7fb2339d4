"""The calculators' services (``quotes.advice.calculators``): what each answers, and that the
API's views add nothing to them but validation and serialisation."""

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from engine.advice.on_gpu import gpu_profile
from engine.build.builder import Environment, Tier
from engine.money import Money
from engine.sizing import max_concurrent_requests, max_context_length, min_gpus, size
from engine.tco import TcoConfiguration
from engine.workload import workload_from_dict
from quotes.advice.calculators import (
    Reach,
    configurations_answer,
    sizing_answer,
    tco_answer,
)
from quotes.advice.inputs import API_DEFAULT_UTILIZATION, DEFAULT_HORIZON_YEARS, DEFAULT_REGION
from quotes.advice.selectors import catalog_gpu_get
from quotes.api.answers import (
    configurations_answer_to_dict,
    sizing_answer_to_dict,
    tco_answer_to_dict,
)
from tests.factories import gpu_make

pytestmark = pytest.mark.django_db

LLAMA_70B_SERVING = {
    "task": "inference",
    "model": "llama-3.1-70b",
    "precision": "bf16",
    "inference": {"concurrent_requests": 8, "sequence_length": 8192},
}
LORA_8B = {
    "task": "fine_tuning",
    "model": "llama-3.1-8b",
    "training": {"method": "lora"},
    "data": {"kind": "text", "total_gb": 1},
}
EIGHT_H100_USD = TcoConfiguration(
    servers=1,
    gpus_per_server=8,
    gpu_model="H100 SXM",
    power_w=10200,
    price=Money(Decimal("250000.00"), "USD"),
    rack_units=8,
)
TCO_DEFAULTS: dict[str, Any] = {
    "environment": Environment.PRODUCTION,
    "always_on": False,
    "horizon_years": DEFAULT_HORIZON_YEARS,
    "utilization": API_DEFAULT_UTILIZATION,  # as POST /api/v1/tco/ without them
    "region": DEFAULT_REGION,
    "overrides": {},
}


def _post(client, name, payload):
    response = client.post(reverse(f"api:{name}"), payload, content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_sizing_on_a_catalog_gpu_answers_how_far_serving_reaches_on_it():
    gpu = catalog_gpu_get(sku=gpu_make(sku="H100-TEST", memory_gb=80).sku)
    assert gpu is not None
    workload = workload_from_dict(LLAMA_70B_SERVING)

    answer = sizing_answer(workload=workload, gpu=gpu)

    profile = gpu_profile(gpu)
    assert answer.sizing == size(workload, gpu=profile)
    assert answer.sizing.gpus == 4
    assert answer.reach == Reach(
        max_context_length=max_context_length(workload, gpu=profile, gpus=4),
        max_concurrent_requests=max_concurrent_requests(workload, gpu=profile, gpus=4),
    )


def test_sizing_for_a_memory_size_answers_its_min_gpus_and_nothing_on_a_gpu():
    workload = workload_from_dict(LLAMA_70B_SERVING)

    answer = sizing_answer(workload=workload, gpu_memory_gb=141)

    assert answer.sizing.min_gpus == min_gpus(workload, gpu_memory_gb=141) == 2
    assert answer.reach is None
    assert answer.sizing.memory_gb == size(workload).memory_gb


def test_training_on_a_gpu_has_no_serving_reach():
    gpu = catalog_gpu_get(sku=gpu_make(sku="H100-TEST", memory_gb=80).sku)

    answer = sizing_answer(workload=workload_from_dict(LORA_8B), gpu=gpu)

    assert answer.reach is None
    assert answer.sizing.training_hours is not None


def test_the_sizing_endpoint_is_the_service_serialised(client):
    gpu_make(sku="H100-TEST", memory_gb=80)
    body = _post(client, "sizing", LLAMA_70B_SERVING | {"gpu": "H100-TEST", "gpus": 8})

    answer = sizing_answer(
        workload=workload_from_dict(LLAMA_70B_SERVING),
        gpu=catalog_gpu_get(sku="H100-TEST"),
        gpus=8,
    )
    assert body == sizing_answer_to_dict(answer)


@pytest.mark.usefixtures("seed_catalog")
@pytest.mark.parametrize(
    ("model", "offered", "recommended"),
    [
        # 2 x H100 NVL serve three times the budget's tokens/s per user for 1.8 times its price.
        ("llama-3.1-70b", [Tier.BUDGET, Tier.BALANCED, Tier.PERFORMANCE], Tier.PERFORMANCE),
        # No balanced option: nothing between one L4 and one L40S is faster than the L4.
        ("llama-3.1-8b", [Tier.BUDGET, Tier.PERFORMANCE], Tier.PERFORMANCE),
    ],
)
def test_configurations_recommend_the_most_delivered_per_euro(client, model, offered, recommended):
    workload = {"task": "inference", "model": model}

    answer = configurations_answer(
        workload=workload_from_dict(workload), environment=Environment.PRODUCTION, currency="EUR"
    )

    options = answer.advice.build.options
    assert [option.tier for option in options] == offered
    assert answer.recommendation is not None
    assert answer.recommendation.tier is recommended
    value = {o.tier: o.delivered / float(o.totals.price.amount) for o in options if o.delivered}
    assert max(value, key=lambda tier: value[tier]) is recommended
    assert set(answer.performance) == set(offered)
    body = _post(client, "configurations", {"workload": workload, "environment": "production"})
    assert body == configurations_answer_to_dict(answer)


def test_a_configuration_priced_in_another_currency_is_refused_on_the_currency():
    with pytest.raises(ValidationError) as refused:
        tco_answer(configuration=EIGHT_H100_USD, currency="EUR", **TCO_DEFAULTS)

    # The sentence names the currency asked for, not the prices' (as the endpoint always has).
    assert list(refused.value.message_dict) == ["currency"]


def test_a_workload_no_catalog_option_runs_is_refused_on_the_workload():
    # No catalog: nothing can be built.
    with pytest.raises(ValidationError) as refused:
        tco_answer(workload=workload_from_dict(LLAMA_70B_SERVING), **TCO_DEFAULTS)

    assert list(refused.value.message_dict) == ["workload"]
    assert refused.value.message_dict["workload"]


def test_a_configuration_is_costed_in_its_own_currency_without_a_built_option():
    answer = tco_answer(configuration=EIGHT_H100_USD, **TCO_DEFAULTS)

    assert answer.result.currency == "USD"
    assert (answer.built, answer.recommendation, answer.job) == (None, None, None)


@pytest.mark.usefixtures("seed_catalog")
def test_the_tco_endpoint_is_the_service_serialised_with_the_job_of_a_training_run(client):
    body = _post(client, "tco", {"workload": LORA_8B, "environment": "experiment"})

    answer = tco_answer(
        workload=workload_from_dict(LORA_8B),
        **TCO_DEFAULTS | {"environment": Environment.EXPERIMENT},
    )
    assert answer.built is not None
    assert answer.job is not None
    assert answer.recommendation is not None
    assert answer.recommendation.tier is answer.built.option.tier
    assert body == tco_answer_to_dict(answer)
