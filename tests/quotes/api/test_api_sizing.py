"""POST /api/v1/sizing/ and GET /api/v1/models/: the engine's answers over HTTP."""

import pytest
from django.urls import reverse

from engine.sizing import GpuProfile, kv_cache_bytes_per_token, size
from engine.workload import Precision, workload_from_dict
from engine.workload.registry import get_model
from tests.factories import gpu_make

pytestmark = pytest.mark.django_db

SIZING = reverse("api:sizing")
LLAMA_70B_SERVING = {
    "task": "inference",
    "model": "llama-3.1-70b",
    "precision": "bf16",
    "inference": {"concurrent_requests": 8, "sequence_length": 8192},
}
MEMORY_KEYS = {
    "weights",
    "gradients",
    "optimizer_states",
    "activations",
    "kv_cache",
    "overhead",
    "total",
}


def test_model_registry_lists_every_model_with_exact_parameter_counts(client):
    response = client.get(reverse("api:models"))
    assert response.status_code == 200
    by_id = {row["id"]: row for row in response.json()}
    assert by_id["llama-3.1-8b"]["parameters"] == get_model("llama-3.1-8b").parameters
    assert by_id["llama-3.1-70b"]["architecture"]["kv_heads"] == 8
    for required in ("llama-2-7b", "mixtral-8x7b", "qwen2.5-72b", "resnet-50", "bert-large"):
        assert required in by_id


def test_sizing_returns_the_engine_figures_in_gb(client):
    response = client.post(SIZING, LLAMA_70B_SERVING, content_type="application/json")

    assert response.status_code == 200
    body = response.json()
    expected = size(workload_from_dict(LLAMA_70B_SERVING))
    assert set(body["memory_gb"]) == MEMORY_KEYS
    assert set(body["memory_per_gpu_gb"]) == MEMORY_KEYS
    assert body["memory_gb"]["weights"] == round(expected.memory_gb.weights, 2)
    # KV cache from kv_heads: 2 x 80 layers x 8 kv heads x 128 x 2 bytes per token.
    per_token = kv_cache_bytes_per_token(get_model("llama-3.1-70b").architecture, Precision.BF16)
    assert per_token == 327_680
    assert body["memory_gb"]["kv_cache"] == round(per_token * 8 * 8192 / 1e9, 2)
    assert body["explanations"]
    assert all(item["source"] for item in body["explanations"])


def test_sizing_on_a_catalog_gpu_answers_min_gpus_and_the_reverse_questions(client):
    gpu_make(sku="H100-TEST", memory_gb=80)
    data = LLAMA_70B_SERVING | {"gpu": "H100-TEST"}

    body = client.post(SIZING, data, content_type="application/json").json()

    profile = GpuProfile("H100", 80, 3350, 989.4, 1978.9)
    expected = size(workload_from_dict(LLAMA_70B_SERVING), gpu=profile)
    # 3 GPUs would hold it, but a tensor-parallel degree divides the 64 heads: 1, 2, 4 or 8.
    assert body["min_gpus"] == expected.min_gpus == 4
    assert body["tokens_per_second"] is not None
    assert body["max_context_length"] > 0
    assert body["max_concurrent_requests"] >= 8


def test_sizing_for_a_gpu_memory_size(client):
    data = LLAMA_70B_SERVING | {"gpu_memory_gb": 141}
    body = client.post(SIZING, data, content_type="application/json").json()
    assert body["min_gpus"] == 2


@pytest.mark.parametrize(
    ("payload", "field", "fragment"),
    [
        ({"task": "inference"}, "model", "parameters_billions"),
        ({"task": "dreaming", "model": "llama-2-7b"}, "task", "inference"),
        ({"task": "inference", "model": "gpt-17"}, "model", "llama"),
        (
            {"task": "fine_tuning", "model": "llama-2-7b", "training": {"batch_size": 0}},
            "training.batch_size",
            "65536",
        ),
        ({"task": "inference", "model": "llama-2-7b", "gpu": "NOPE"}, "gpu", "NOPE"),
        ({"task": "inference", "model": "llama-2-7b", "gpus": 0}, "gpus", "1"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_the_allowed_values(
    client, payload, field, fragment
):
    response = client.post(SIZING, payload, content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"type", "title", "status", "detail", "message", "errors"}
    assert field in body["errors"], body
    assert fragment in " ".join(body["errors"][field])


@pytest.mark.parametrize("raw", ["[]", '"text"', "not json", "{", "null", "42"])
def test_malformed_bodies_are_400_never_500(client, raw):
    response = client.post(SIZING, raw, content_type="application/json")
    assert response.status_code == 400


def test_errors_are_translated(client):
    response = client.post(
        SIZING,
        {"task": "inference", "model": "llama-2-7b", "gpus": 0},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert response.status_code == 400
    assert response.json()["message"] != "The request has invalid fields."
