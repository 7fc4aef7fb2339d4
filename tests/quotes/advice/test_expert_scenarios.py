"""Expert scenarios (issue 14): realistic jobs against the seed catalog, and what an
ML-infrastructure engineer accepts for each, with the reason.

Each row is data: the workload and environment, then what the builder's chosen (balanced, else
only) option must satisfy. Rows the builder does not meet yet are marked ``xfail(strict=True)``
with the point of issue 14 that fixes them: when a point lands, its rows pass and the marker must
go (strict), so the table only ever moves towards "all pass".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from engine.builder import Environment, Option, Tier
from engine.workload import workload_from_dict
from quotes.advice.selectors import advice_get

pytestmark = pytest.mark.django_db

FP8_ARCHITECTURES = {"Ada Lovelace", "Hopper", "Blackwell", "CDNA 3", "CDNA3"}


@dataclass(frozen=True)
class Scenario:
    name: str
    workload: dict[str, Any]
    environment: str
    reason: str  # why an expert accepts (or asks for) what the row checks
    gpu_families: frozenset[str] = frozenset()  # one of these in the GPU's name; empty: any
    max_gpus: int | None = None  # an upper tier or the choice must not exceed it
    fits: bool = True  # False: nothing in the catalog can do it, and the answer says so
    current_parts_only: bool = True  # an end-of-life part only when nothing current will do
    fp8_capable: bool = False
    pending: str = ""  # the issue-14 point that makes this row pass
    extra: dict[str, Any] = field(default_factory=dict)


SCENARIOS = [
    Scenario(
        "8B chatbot, 50 users, production",
        {"task": "inference", "model": "llama-3.1-8b", "inference": {"concurrent_requests": 50}},
        "production",
        "8B in BF16 with a 50-user KV cache fits one or two cards in one server; an 8-GPU box "
        "or three 1U servers with one L4 each over InfiniBand is waste",
        max_gpus=2,
        pending="points 5 and 6: pack a replica into one server; bound the upper tiers",
    ),
    Scenario(
        "70B QLoRA experiment",
        {"task": "fine_tuning", "model": "llama-3.1-70b", "training": {"method": "qlora"}},
        "experiment",
        "QLoRA of 70B needs ~87 GB with recomputation: one or two large cards, not a cluster",
        max_gpus=2,
    ),
    Scenario(
        "405B served in FP8",
        {
            "task": "inference",
            "model": "llama-3.1-405b",
            "precision": "fp8",
            "inference": {"concurrent_requests": 8},
        },
        "production",
        "FP8 needs FP8 tensor cores (Hopper, Ada, Blackwell, CDNA 3): never an A100",
        fp8_capable=True,
    ),
    Scenario(
        "7B LoRA experiment",
        {"task": "fine_tuning", "model": "mistral-7b", "training": {"method": "lora"}},
        "experiment",
        "a 7B LoRA fits one 24-48 GB card with recomputation",
        max_gpus=1,
    ),
    Scenario(
        "13B full fine-tune",
        {"task": "fine_tuning", "model": "llama-2-13b", "training": {"method": "full"}},
        "production",
        "current datacenter parts are available: no end-of-life A100 as new",
        gpu_families=frozenset({"H100", "H200", "B200", "MI300X", "L40S", "RTX 6000", "H100 NVL"}),
    ),
    Scenario(
        "Mixtral 8x7B serving",
        {"task": "inference", "model": "mixtral-8x7b", "inference": {"concurrent_requests": 16}},
        "production",
        "~94 GB of BF16 weights plus KV cache: two 80 GB cards or one 141-192 GB card, one server",
        max_gpus=4,
    ),
    Scenario(
        "BERT-large training",
        {
            "task": "pretraining",
            "model": "bert-large",
            "training": {"training_tokens": 10**9},
            "data": {"kind": "text", "total_gb": 20},
        },
        "experiment",
        "a 0.34B encoder trains on one card",
        max_gpus=1,
    ),
    Scenario(
        "1B custom model inference",
        {"task": "inference", "parameters_billions": 1.0},
        "experiment",
        "a 1B model serves from one small card",
        max_gpus=1,
    ),
]


@pytest.fixture(autouse=True)
def catalog():
    call_command("load_catalog", stdout=StringIO())


def _chosen(scenario: Scenario) -> tuple[Option | None, Any]:
    advice = advice_get(
        workload=workload_from_dict(scenario.workload),
        environment=Environment(scenario.environment),
        currency="EUR",
    )
    by_tier = {option.tier: option for option in advice.build.options}
    return by_tier.get(Tier.BALANCED) or next(iter(advice.build.options), None), advice


def _params() -> list[Any]:
    return [
        pytest.param(
            scenario,
            id=scenario.name,
            marks=[pytest.mark.xfail(strict=True, reason=scenario.pending)]
            if scenario.pending
            else [],
        )
        for scenario in SCENARIOS
    ]


@pytest.mark.parametrize("scenario", _params())
def test_an_expert_accepts_the_configuration(scenario: Scenario):
    chosen, advice = _chosen(scenario)
    if not scenario.fits:
        assert chosen is None
        assert advice.build.unmet, "the answer says why nothing fits"
        return
    assert chosen is not None, [m.render() for m in advice.build.unmet]
    gpu = next(line for line in chosen.parts if line.kind == "gpu")
    assert all(check.passed for check in chosen.checks), scenario.reason
    if scenario.gpu_families:
        assert any(family in gpu.name for family in scenario.gpu_families), (gpu.name, scenario)
    if scenario.max_gpus is not None:
        for option in advice.build.options:
            assert option.totals.gpus <= scenario.max_gpus, (option.tier, scenario.reason)
    if scenario.current_parts_only:
        assert all(line.availability == "current" for line in chosen.parts), scenario.reason
    if scenario.fp8_capable:
        assert not any(name in gpu.name for name in ("A100", "V100", "T4")), scenario.reason
