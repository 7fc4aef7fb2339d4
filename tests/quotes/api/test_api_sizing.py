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
# Llama 3.1 70B's parameter count: the safetensors index of meta-llama/Llama-3.1-70B on Hugging
# Face gives a total size of 141,107,412,992 bytes in bf16, 2 bytes each.
LLAMA_70B_PARAMETERS = 141_107_412_992 // 2
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
    assert set(body["memory_gb"]) == MEMORY_KEYS
    # Weights: 2 bytes per bf16 parameter, no gradients, optimizer states or activations kept.
    assert get_model("llama-3.1-70b").parameters == LLAMA_70B_PARAMETERS
    weights = LLAMA_70B_PARAMETERS * 2
    # KV cache from kv_heads: 2 x 80 layers x 8 kv heads x 128 x 2 bytes per token.
    per_token = kv_cache_bytes_per_token(get_model("llama-3.1-70b").architecture, Precision.BF16)
    assert per_token == 2 * 80 * 8 * 128 * 2 == 327_680
    kv_cache = per_token * 8192 * 8
    # Overhead: the stated rule of 1 GB of CUDA context and libraries + 10 % framework workspace.
    overhead = 1e9 + 0.10 * (weights + kv_cache)
    assert body["memory_gb"] == {
        "weights": round(weights / 1e9, 2),
        "gradients": 0.0,
        "optimizer_states": 0.0,
        "activations": 0.0,
        "kv_cache": round(kv_cache / 1e9, 2),
        "overhead": round(overhead / 1e9, 2),
        "total": round((weights + kv_cache + overhead) / 1e9, 2),
    }
    assert body["memory_gb"]["weights"] == 141.11
    assert body["memory_gb"]["total"] == 179.84
    assert body["gpus"] == 1  # no GPU named: the whole job on one device
    assert body["memory_per_gpu_gb"] == body["memory_gb"]
    # Every figure explained, in the order of the answer, each line with its source.
    explained = {item["key"]: item for item in body["explanations"]}
    assert [item["key"] for item in body["explanations"]] == [
        "model",
        "memory.weights",
        "memory.gradients",
        "memory.kv_cache",
        "memory.activations",
        "memory.overhead",
        "memory.total",
        "memory_per_gpu.total",
        "nodes",
        "large_project",
        "storage_gb",
        "storage_read_mbs",
        "cpu_cores",
        "system_ram_gb",
    ]
    assert all(item["source"] for item in body["explanations"])
    assert explained["memory.weights"]["text"] == (
        "141.11 GB: 70553706496 parameters at bf16 (2.0 bytes each)"
    )
    assert explained["memory.kv_cache"]["text"] == (
        "21.47 GB: 2 x 80 layers x 8 KV heads x 128 x 2.0 bytes = 327680 bytes per token, "
        "x 8192 tokens x 8 requests"
    )
    assert explained["model"]["source"] == (
        "https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json"
    )


def test_sizing_on_a_catalog_gpu_answers_min_gpus_and_the_reverse_questions(client):
    gpu_make(sku="H100-TEST", memory_gb=80)
    data = LLAMA_70B_SERVING | {"gpu": "H100-TEST"}

    body = client.post(SIZING, data, content_type="application/json").json()

    profile = GpuProfile("H100", 80, 3350, 989.4, 1978.9)
    expected = size(workload_from_dict(LLAMA_70B_SERVING), gpu=profile)
    # 3 GPUs would hold it, but a tensor-parallel degree divides the 64 heads: 1, 2, 4 or 8.
    assert body["min_gpus"] == expected.min_gpus == 4
    # Each decode step reads the weights (2 bytes a parameter) and the KV cache once, at
    # 4 x 3,350 GB/s, and yields one token for each of the 8 requests.
    step_bytes = LLAMA_70B_PARAMETERS * 2 + 327_680 * 8192 * 8
    assert body["tokens_per_second"] == round(4 * 3350e9 / step_bytes * 8, 1) == 659.4
    # Tensor parallel over 4 GPUs, 90 % of their 80 GB usable; per GPU 1 GB of CUDA context +
    # 1.1 x (a quarter of the weights + a quarter of the KV cache). What is left for the KV cache
    # holds this many tokens of 327,680 bytes each (a quarter on each GPU):
    room = (0.9 * 80e9 - 1e9) / 1.1 - LLAMA_70B_PARAMETERS * 2 / 4
    tokens = room / (327_680 / 4)
    assert body["max_concurrent_requests"] == int(tokens / 8192) == 43  # of 8,192 tokens each
    assert body["max_context_length"] == int(tokens / 8) == 44_660  # for each of 8 requests


def test_sizing_for_a_gpu_memory_size(client):
    data = LLAMA_70B_SERVING | {"gpu_memory_gb": 141}
    body = client.post(SIZING, data, content_type="application/json").json()
    assert body["min_gpus"] == 2


def test_sizing_reports_the_micro_batch_accumulation_and_sharding(client):
    training = {"batch_size": 512, "gpus": 8, "training_tokens": 10**9}
    data = {"task": "pretraining", "model": "llama-3.2-1b", "training": training}
    body = client.post(SIZING, data, content_type="application/json").json()
    # No GPU named: one sequence per GPU, the global batch reached by accumulation.
    assert (body["micro_batch"], body["accumulation_steps"]) == (1, 64)
    assert (body["data_parallel"], body["sharding"]) == (8, "none")
    asked = data | {"training": training | {"micro_batch_size": 4}}
    body = client.post(SIZING, asked, content_type="application/json").json()
    assert (body["micro_batch"], body["accumulation_steps"], body["data_parallel"]) == (4, 16, 8)
    explained = {item["key"]: item for item in body["explanations"]}
    assert "DeepSpeed" in explained["micro_batch"]["source"]
    serving = client.post(SIZING, LLAMA_70B_SERVING, content_type="application/json").json()
    assert serving["micro_batch"] is None
    assert serving["sharding"] is None


def test_sizing_on_a_gpu_returns_the_training_plan_with_its_deadline(client):
    gpu_make(sku="H100-TEST", memory_gb=80)
    training = {"batch_size": 512, "gpus": 8, "training_tokens": 10**10, "deadline_days": 30}
    data = {"task": "pretraining", "model": "llama-3.2-1b", "training": training}
    body = client.post(SIZING, data | {"gpu": "H100-TEST"}, content_type="application/json").json()

    plan = body["training_plan"]
    assert (plan["micro_batch"], plan["accumulation_steps"]) == (
        body["micro_batch"], body["accumulation_steps"],
    )  # fmt: skip
    assert (plan["gpus"], plan["global_batch"], plan["tensor_parallel"]) == (8, 512, 1)
    assert plan["hours"] == body["training_hours"]
    assert plan["units_per_second"] == pytest.approx(10**10 / (body["training_hours"] * 3600), 1e-3)
    assert plan["margin"] == pytest.approx(30 * 24 / body["training_hours"] - 1, 1e-3)
    assert plan["meets_deadline"] is True
    assert 0 < plan["goodput"] < 1
    explained = {item["key"]: item for item in body["explanations"]}
    assert plan["mfu_source"] == explained["training_hours"]["source"]
    serving = client.post(SIZING, LLAMA_70B_SERVING, content_type="application/json").json()
    assert serving["training_plan"] is None


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
        (
            {
                "task": "fine_tuning",
                "model": "llama-2-7b",
                "training": {"batch_size": 8, "micro_batch_size": 16},
            },
            "training.micro_batch_size",
            "batch_size",
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


def test_a_context_beyond_the_models_maximum_is_a_400_naming_the_field_and_the_maximum(client):
    payload = {
        "task": "inference",
        "model": "qwen2.5-7b",
        "inference": {"sequence_length": 131073},
    }

    response = client.post(SIZING, payload, content_type="application/json")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == {
        "inference.sequence_length": [
            "must be at most 131072 tokens: the longest context qwen2.5-7b takes (its "
            "context_length)"
        ]
    }
    french = client.post(
        SIZING, payload, content_type="application/json", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert french.json()["errors"] == {
        "inference.sequence_length": [
            "doit être d'au plus 131072 tokens\u00a0: le plus long contexte que qwen2.5-7b "
            "accepte (son context_length)"
        ]
    }


def test_a_custom_model_without_a_maximum_context_is_sized_with_a_note(client):
    payload = {
        "task": "inference",
        "parameters_billions": 7,
        "inference": {"sequence_length": 200000},
    }

    body = client.post(SIZING, payload, content_type="application/json").json()

    notes = [e for e in body["explanations"] if e["key"] == "model.context"]
    assert [note["text"] for note in notes] == [
        "no maximum context is known for this model (architecture.context_length not given): "
        "the 200000-token context is taken as asked, not checked against what the model takes"
    ]


def test_deepseek_v3_is_sized_with_its_latent_attention_cache(client):
    payload = {
        "task": "inference",
        "model": "deepseek-v3",
        "precision": "fp8",
        "inference": {"concurrent_requests": 32, "sequence_length": 8192},
    }

    body = client.post(SIZING, payload, content_type="application/json").json()

    # (512 latent + 64 RoPE key) x 61 layers x 2 bytes = 70,272 bytes per token (DeepSeek-V2
    # paper, arXiv:2405.04434, Table 1), x 8,192 tokens x 32 requests.
    assert body["memory_gb"]["kv_cache"] == round(70_272 * 8192 * 32 / 1e9, 2) == 18.42


LATENT_CONFIG = {"layers": 61, "hidden_size": 7168, "attention_heads": 128}


@pytest.mark.parametrize(
    ("given", "missing"),
    [("kv_lora_rank", "qk_rope_head_dim"), ("qk_rope_head_dim", "kv_lora_rank")],
)
def test_half_a_latent_attention_is_a_400_saying_the_engine_cannot_model_it(client, given, missing):
    payload = {
        "task": "inference",
        "parameters_billions": 671,
        "architecture": {**LATENT_CONFIG, given: 512},
    }

    response = client.post(SIZING, payload, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["errors"] == {
        f"architecture.{given}": [
            f"the engine cannot model latent attention (MLA) with {given} alone: its KV cache "
            f"is (kv_lora_rank + qk_rope_head_dim) x layers elements per token; give {missing} "
            "too (from the model's config.json)"
        ]
    }
    french = client.post(
        SIZING, payload, content_type="application/json", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert french.status_code == 400
    assert french.json()["errors"][f"architecture.{given}"][0].startswith(
        f"le moteur ne sait pas modéliser l'attention latente (MLA) avec {given} seul"
    )


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
    assert response["Content-Language"] == "fr"
    assert response.json()["message"] == "La requête contient des champs non valides."
    assert response.json()["errors"] == {
        "gpus": ["Assurez-vous que cette valeur est supérieure ou égale à\xa01."]
    }
