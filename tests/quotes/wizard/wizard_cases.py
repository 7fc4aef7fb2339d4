"""Answers for the wizard's end-to-end tests (server and browser) and the engine's own answer.

Three cases: serving a model (inference), fine-tuning one, and training one from scratch in
production. ``CASES`` are the raw form answers step by step; ``EXPECTED`` the engine inputs they
must produce (the REST API's JSON shape); ``engine_answer`` computes what the engine says for
those inputs through the same selectors the REST API uses. ``FINE_TUNING_WITH_BUDGET`` is the
fine-tuning case with the deployment left open and a budget, and ``wizard_result_make`` walks
the wizard through answers like these and returns the stored result.
"""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from catalog.selectors.service_tiers import service_tier_get
from engine.advice.recommendation import chosen_option
from engine.build.builder import Environment
from engine.workload import workload_from_dict
from quotes.advice.presenters import option_to_dict
from quotes.advice.result import AdviceResult
from quotes.advice.selectors import advice_get, tco_get
from quotes.advice.store import result_from_json
from quotes.api.tco_inputs import configuration_parse
from quotes.models import WizardResult

PROJECT_DEFAULTS = {
    "method": "lora",
    "precision": "bf16",
    "batch_size": "8",
    "sequence_length": "2048",
    "lora_rank": "16",
    "gradient_checkpointing": "on",
}
INFERENCE = {
    "project": PROJECT_DEFAULTS | {"goal": "inference", "model": "llama-3.1-8b"},
    "data": {"kind": "text", "concurrent_users": "16", "context_length": "4096"},
    "usage": {"environment": "production", "uptime": "always_on", "growth_gpus": "0"},
    "deployment": {
        "deployment": "on_premises",
        "region": "DE",
        "currency": "EUR",
        "horizon_years": "4",
        "utilization_pct": "70",
    },
}
FINE_TUNING = {
    "project": PROJECT_DEFAULTS | {"goal": "fine_tuning", "model": "llama-3.1-8b"},
    "data": {"kind": "text", "total_gb": "2", "epochs": "3"},
    "usage": {"environment": "production", "uptime": "business_hours", "growth_gpus": "1"},
    "deployment": {
        "deployment": "managed",
        "region": "FR",
        "currency": "EUR",
        "horizon_years": "3",
        "utilization_pct": "60",
    },
}
# Not sure of the deployment yet, with a budget: what the checklist PDF, the perimeter and the
# security tests walk through.
FINE_TUNING_WITH_BUDGET = FINE_TUNING | {
    "deployment": FINE_TUNING["deployment"] | {"deployment": "not_sure", "budget": "50000"}
}
TRAINING = {
    "project": PROJECT_DEFAULTS
    | {"goal": "pretraining", "model": "custom", "parameters_billions": "1.3", "method": "full"},
    "data": {"kind": "text", "training_tokens": "26000000000", "epochs": "1"},
    "usage": {"environment": "production", "uptime": "always_on", "growth_gpus": "2"},
    "deployment": {
        "deployment": "not_sure",
        "region": "US",
        "currency": "USD",
        "horizon_years": "5",
        "utilization_pct": "80",
        "electricity_price": "0.15",
        "pue": "1.3",
        "budget": "",
    },
}
# The engine inputs each case must produce (the REST API's JSON shape).
EXPECTED = {
    "inference": {
        "workload": {
            "task": "inference",
            "precision": "bf16",
            "model": "llama-3.1-8b",
            "data": {"kind": "text"},
            "inference": {"concurrent_requests": 16, "sequence_length": 4096},
        },
        "environment": "production",
        "uptime": "always_on",
        "growth_gpus": 0,
        "region": "DE",
        "currency": "EUR",
        "horizon_years": 4,
        "utilization": Decimal("0.7"),
        "overrides": {},
    },
    "fine_tuning": {
        "workload": {
            "task": "fine_tuning",
            "precision": "bf16",
            "model": "llama-3.1-8b",
            "data": {"kind": "text", "total_gb": 2.0},
            "training": {
                "method": "lora",
                "batch_size": 8,
                "sequence_length": 2048,
                "lora_rank": 16,
                "gradient_checkpointing": True,
                "epochs": 3.0,
            },
        },
        "environment": "production",
        "uptime": "business_hours",
        "growth_gpus": 1,
        "region": "FR",
        "currency": "EUR",
        "horizon_years": 3,
        "utilization": Decimal("0.6"),
        "overrides": {},
    },
    "training": {
        "workload": {
            "task": "pretraining",
            "precision": "bf16",
            "parameters_billions": 1.3,
            "data": {"kind": "text"},
            "training": {
                "method": "full",
                "batch_size": 8,
                "sequence_length": 2048,
                "lora_rank": 16,
                "gradient_checkpointing": True,
                "epochs": 1.0,
                "training_tokens": 26_000_000_000,
            },
        },
        "environment": "production",
        "uptime": "always_on",
        "growth_gpus": 2,
        "region": "US",
        "currency": "USD",
        "horizon_years": 5,
        "utilization": Decimal("0.8"),
        "overrides": {"electricity_price_per_kwh": Decimal("0.15"), "pue": Decimal("1.3")},
    },
}
CASES = {"inference": INFERENCE, "fine_tuning": FINE_TUNING, "training": TRAINING}


def engine_answer(expected: dict):
    """The engine's own answer for the inputs, through the same selectors as the REST API."""
    workload = workload_from_dict(expected["workload"])
    advice = advice_get(
        workload=workload,
        environment=Environment(expected["environment"]),
        currency=expected["currency"],
        growth_gpus=expected["growth_gpus"],
        always_on=expected["uptime"] == "always_on",
    )
    chosen = chosen_option(advice.build.options)
    assert chosen is not None
    tco = tco_get(
        configuration=configuration_parse(option_to_dict(chosen)),
        horizon_years=expected["horizon_years"],
        utilization=expected["utilization"],
        region=expected["region"],
        currency=expected["currency"],
        overrides=expected["overrides"],
        always_on=expected["uptime"] == "always_on",
        # The wizard's steps leave the support question unanswered: the catalog's default tier.
        service_tier=service_tier_get(code=None, currency=expected["currency"]),
    )
    return advice, chosen, tco


def wizard_result_make(
    client, answers: dict = FINE_TUNING_WITH_BUDGET, *, language: str | None = None, **extra
) -> WizardResult:
    """POST every step of ``answers`` with Next and return the stored result (the only one).

    ``language`` sets the visitor's language cookie first (it stays for the requests after);
    ``extra`` goes with every post, such as ``REMOTE_ADDR``.
    """
    if language:
        client.cookies["django_language"] = language
    for step, data in answers.items():
        response = client.post(
            reverse("wizard:step", kwargs={"step": step}), data | {"nav": "next"}, **extra
        )
        assert response.status_code == 302
    return WizardResult.objects.get()


def stored_advice(result: WizardResult) -> AdviceResult:
    """The stored result read back as the engine's objects."""
    advice = result_from_json(result.result)
    assert advice is not None, "a result of the current schema"
    return advice
