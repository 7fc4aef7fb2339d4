"""The software stack in the API's configurations: every option states its stack line
by line (operating system, driver, CUDA or ROCm, container runtime, frameworks for the work), in
the reader's language, each line with its source."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

CONFIGURATIONS = reverse("api:configurations")
SERVE_8B = {"task": "inference", "model": "llama-3.1-8b", "inference": {"concurrent_requests": 8}}
FULL_FINE_TUNE_70B = {
    "task": "fine_tuning",
    "model": "llama-3.1-70b",
    "training": {"method": "full"},
}


def _stacks(client, workload, language="en") -> list[list[dict]]:
    body = client.post(
        CONFIGURATIONS,
        {"workload": workload, "environment": "production"},
        content_type="application/json",
        headers={"accept-language": language},
    ).json()
    return [option["performance"]["software"]["stack"] for option in body["options"]]


def test_each_option_states_its_stack_line_by_line_with_sources(client):
    stacks = _stacks(client, SERVE_8B)
    assert stacks
    for stack in stacks:
        assert [line["key"] for line in stack][:5] == [
            "os",
            "driver",
            "platform",
            "container",
            "frameworks",
        ]
        assert all(source.startswith("https://") for line in stack for source in line["sources"])
        frameworks = next(line["text"] for line in stack if line["key"] == "frameworks")
        assert "vLLM" in frameworks


def test_a_model_split_over_the_gpus_gets_a_sharding_framework(client):
    stacks = _stacks(client, FULL_FINE_TUNE_70B)
    assert stacks
    for stack in stacks:
        frameworks = next(line["text"] for line in stack if line["key"] == "frameworks")
        assert "FSDP" in frameworks


def test_the_stack_reads_in_french(client):
    stack = _stacks(client, SERVE_8B, language="fr")[0]
    words = {line["key"]: line["text"] for line in stack}
    assert "pour le service" in words["frameworks"]
    assert "ou plus récent" in words["platform"]
