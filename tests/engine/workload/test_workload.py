"""Parsing and validating workloads: the JSON contract of the API and the wizard."""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.i18n import Message
from engine.workload import (
    LIMITS,
    MSG_RANGE,
    Data,
    DataKind,
    Inference,
    Optimizer,
    Precision,
    Sharding,
    Task,
    Training,
    TrainingMethod,
    Workload,
    WorkloadError,
    validate_workload,
    workload_from_dict,
)
from engine.workload.registry import Architecture


def _errors(data):
    with pytest.raises(WorkloadError) as caught:
        workload_from_dict(data)
    return caught.value.errors


def _rendered(errors, path):
    return [message.render() for message in errors[path]]


def test_full_training_workload_parses_every_field():
    workload = workload_from_dict(
        {
            "task": "fine_tuning",
            "model": "llama-3.1-8b",
            "precision": "bf16",
            "architecture": {"sliding_window": 8192},
            "training": {
                "method": "lora",
                "lora_rank": 32,
                "optimizer": "adamw_8bit",
                "batch_size": 16,
                "micro_batch_size": 2,
                "sequence_length": 4096,
                "gradient_checkpointing": True,
                "sharding": "zero2",
                "gpus": 8,
                "training_tokens": 2e9,
                "epochs": 2,
                "deadline_days": 1.5,
            },
            "data": {"kind": "documents", "items": 12000, "total_gb": 3.5},
        }
    )
    assert workload == Workload(
        task=Task.FINE_TUNING,
        precision=Precision.BF16,
        model="llama-3.1-8b",
        architecture=Architecture(sliding_window=8192),
        training=Training(
            method=TrainingMethod.LORA,
            lora_rank=32,
            optimizer=Optimizer.ADAMW_8BIT,
            batch_size=16,
            micro_batch_size=2,
            sequence_length=4096,
            gradient_checkpointing=True,
            sharding=Sharding.ZERO2,
            gpus=8,
            training_tokens=2_000_000_000,
            epochs=2.0,
            deadline_days=1.5,
        ),
        data=Data(kind=DataKind.DOCUMENTS, items=12000, total_gb=3.5),
    )


def test_inference_workload_with_custom_model_and_defaults():
    workload = workload_from_dict(
        {
            "task": "inference",
            "parameters_billions": 13,
            "precision": "int4",
            "architecture": {"layers": 40, "hidden_size": 5120, "attention_heads": 40},
            "inference": {"concurrent_requests": 4, "kv_cache_precision": "fp8"},
        }
    )
    assert workload.parameters_billions == 13.0
    assert workload.architecture == Architecture(layers=40, hidden_size=5120, attention_heads=40)
    assert workload.inference == Inference(
        concurrent_requests=4, sequence_length=4096, kv_cache_precision=Precision.FP8
    )
    assert workload.training is None


def test_missing_sub_objects_take_their_defaults():
    training = workload_from_dict({"task": "pretraining", "model": "llama-2-7b"})
    assert training.training == Training()
    assert training.precision is Precision.BF16
    inference = workload_from_dict({"task": "inference", "model": "llama-2-7b"})
    assert inference.inference == Inference()


def test_all_bad_fields_are_reported_at_once():
    errors = _errors(
        {
            "task": "trainning",
            "model": "gpt-5",
            "precision": "int3",
            "training": {"batch_size": 0, "gpus": "8", "colour": "red"},
            "data": {"kind": "images", "total_gb": -1},
        }
    )
    assert set(errors) == {
        "task",
        "model",
        "precision",
        "training.batch_size",
        "training.gpus",
        "training.colour",
        "data.total_gb",
    }
    assert _rendered(errors, "task") == ["must be one of: inference, fine_tuning, pretraining"]
    assert _rendered(errors, "training.batch_size") == ["must be between 1 and 65536"]
    assert _rendered(errors, "training.gpus") == ["must be a whole number"]
    assert _rendered(errors, "training.colour") == ["is not a known field"]
    assert _rendered(errors, "data.total_gb") == ["must be between 0.001 and 100000000"]


def test_range_message_carries_the_limits_as_parameters():
    errors = _errors({"task": "fine_tuning", "model": "llama-2-7b", "training": {"gpus": 0}})
    assert errors["training.gpus"] == [Message(MSG_RANGE, {"min": 1, "max": 65536})]


def test_unknown_model_lists_the_valid_ids():
    (message,) = _errors({"task": "inference", "model": "llama-4"})["model"]
    assert message.params["model"] == "llama-4"
    assert "llama-3.1-70b" in message.params["ids"]
    assert "GET /api/models/" in message.render()


def test_model_or_parameters_but_not_both_nor_neither():
    assert _rendered(_errors({"task": "inference"}), "model") == [
        "give either model or parameters_billions"
    ]
    both = _errors({"task": "inference", "model": "mistral-7b", "parameters_billions": 7})
    assert _rendered(both, "model") == ["give model or parameters_billions, not both"]


def test_task_is_required():
    assert _rendered(_errors({"model": "mistral-7b"}), "task") == ["is required"]


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"training": {"batch_size": True}}, "training.batch_size", "must be a whole number"),
        ({"training": {"batch_size": 2.5}}, "training.batch_size", "must be a whole number"),
        ({"training": {"epochs": "two"}}, "training.epochs", "must be a number"),
        (
            {"training": {"gradient_checkpointing": "yes"}},
            "training.gradient_checkpointing",
            "must be true or false",
        ),
        ({"training": []}, "training", "must be an object"),
        (
            {"training": {"sharding": "zero4"}},
            "training.sharding",
            "must be one of: none, zero1, zero2, zero3",
        ),
    ],
)
def test_type_errors_name_the_field(raw, path, message):
    errors = _errors({"task": "fine_tuning", "model": "llama-2-7b", **raw})
    assert _rendered(errors, path) == [message]


def test_integral_floats_are_accepted_as_integers():
    workload = workload_from_dict(
        {"task": "fine_tuning", "model": "llama-2-7b", "training": {"batch_size": 8.0}}
    )
    assert workload.training is not None
    assert workload.training.batch_size == 8
    assert isinstance(workload.training.batch_size, int)


def test_pretraining_must_train_every_weight():
    errors = _errors(
        {"task": "pretraining", "model": "llama-2-7b", "training": {"method": "qlora"}}
    )
    assert _rendered(errors, "training.method") == [
        "pretraining trains every weight: method must be full"
    ]


def test_full_training_rejects_integer_weights_but_lora_accepts_them():
    errors = _errors({"task": "fine_tuning", "model": "llama-2-7b", "precision": "int4"})
    assert list(errors) == ["precision"]
    lora = workload_from_dict(
        {
            "task": "fine_tuning",
            "model": "llama-2-7b",
            "precision": "int8",
            "training": {"method": "lora"},
        }
    )
    assert lora.precision is Precision.INT8


def test_custom_architecture_needs_the_transformer_core():
    errors = _errors(
        {"task": "inference", "parameters_billions": 7, "architecture": {"layers": 32}}
    )
    assert _rendered(errors, "architecture") == [
        "an architecture for parameters_billions needs layers, hidden_size and attention_heads"
    ]


def test_architecture_consistency_is_checked_after_merging_with_the_registry():
    errors = _errors(
        {"task": "inference", "model": "llama-3.1-70b", "architecture": {"kv_heads": 7}}
    )
    assert _rendered(errors, "architecture.kv_heads") == ["must divide attention_heads (64) evenly"]
    errors = _errors(
        {
            "task": "inference",
            "parameters_billions": 47,
            "architecture": {
                "layers": 32,
                "hidden_size": 4096,
                "attention_heads": 32,
                "experts": 8,
                "experts_per_token": 9,
            },
        }
    )
    assert _rendered(errors, "architecture.experts_per_token") == ["must be at most experts (8)"]


# --- Context beyond the model's maximum ----------------------------------------------------------


def test_a_context_beyond_the_models_maximum_is_refused_naming_the_field_and_the_maximum():
    # Mistral 7B v0.1: config.json max_position_embeddings 32,768.
    errors = _errors(
        {"task": "inference", "model": "mistral-7b", "inference": {"sequence_length": 32769}}
    )
    assert list(errors) == ["inference.sequence_length"]
    assert _rendered(errors, "inference.sequence_length") == [
        "must be at most 32768 tokens: the longest context mistral-7b takes (its context_length)"
    ]
    assert errors["inference.sequence_length"][0].params["max"] == 32768
    bad = Workload(
        task=Task.INFERENCE, model="mistral-7b", inference=Inference(sequence_length=32769)
    )
    with pytest.raises(WorkloadError) as caught:
        validate_workload(bad)
    assert "inference.sequence_length: must be at most 32768 tokens" in str(caught.value)


def test_a_context_at_the_maximum_is_accepted():
    workload = workload_from_dict(
        {"task": "inference", "model": "qwen2.5-7b", "inference": {"sequence_length": 131072}}
    )
    assert workload.inference_or_default.sequence_length == 131072


def test_a_maximum_given_in_the_architecture_is_checked_too():
    custom = {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "context_length": 8192}
    errors = _errors(
        {
            "task": "inference",
            "parameters_billions": 7,
            "architecture": custom,
            "inference": {"sequence_length": 8193},
        }
    )
    assert _rendered(errors, "inference.sequence_length") == [
        "must be at most 8192 tokens: the longest context given in architecture.context_length"
    ]
    # A registry model whose maximum is overridden (a RoPE-scaled Llama 2) takes the new one.
    longer = workload_from_dict(
        {
            "task": "inference",
            "model": "llama-2-7b",
            "architecture": {"context_length": 16384},
            "inference": {"sequence_length": 16384},
        }
    )
    assert longer.inference_or_default.sequence_length == 16384


def test_a_custom_model_without_a_maximum_is_accepted_at_any_context():
    workload = workload_from_dict(
        {"task": "inference", "parameters_billions": 7, "inference": {"sequence_length": 500000}}
    )
    assert workload.inference_or_default.sequence_length == 500000


def test_an_unstated_context_defaults_to_the_models_maximum_when_that_is_shorter():
    bert = workload_from_dict({"task": "inference", "model": "bert-large"})
    assert bert.inference_or_default.sequence_length == 512
    falcon = workload_from_dict(
        {"task": "inference", "model": "falcon-40b", "inference": {"concurrent_requests": 4}}
    )
    assert falcon.inference == Inference(concurrent_requests=4, sequence_length=2048)
    llama = workload_from_dict({"task": "inference", "model": "llama-3.1-8b"})
    assert llama.inference_or_default.sequence_length == Inference().sequence_length == 4096


def test_training_may_ask_for_sequences_beyond_the_maximum():
    # Context extension fine-tunes on longer sequences than the model was trained for.
    workload = workload_from_dict(
        {"task": "fine_tuning", "model": "llama-2-7b", "training": {"sequence_length": 8192}}
    )
    assert workload.training_or_default.sequence_length == 8192


def test_limits_name_real_fields():
    known: dict[str, Any] = {
        "parameters_billions": Workload,
        "architecture": Architecture,
        "training": Training,
        "inference": Inference,
        "data": Data,
    }
    for path in LIMITS:
        head, _, tail = path.partition(".")
        owner = known[head]
        if tail:
            assert tail in owner.__dataclass_fields__, path
        low, high = LIMITS[path]
        assert low < high


def test_direct_construction_is_validated_by_validate_workload():
    bad = Workload(task=Task.INFERENCE, model="llama-2-7b", inference=Inference(sequence_length=0))
    with pytest.raises(WorkloadError) as caught:
        validate_workload(bad)
    assert list(caught.value.errors) == ["inference.sequence_length"]
    assert "inference.sequence_length: must be between 1 and 10000000" in str(caught.value)
    validate_workload(Workload(task=Task.INFERENCE, model="llama-2-7b"))


@given(st.integers(min_value=-10, max_value=70_000))
def test_batch_size_is_accepted_exactly_within_its_limits(batch_size):
    data = {"task": "fine_tuning", "model": "llama-2-7b", "training": {"batch_size": batch_size}}
    low, high = LIMITS["training.batch_size"]
    if low <= batch_size <= high:
        training = workload_from_dict(data).training
        assert training is not None
        assert training.batch_size == batch_size
    else:
        with pytest.raises(WorkloadError) as caught:
            workload_from_dict(data)
        assert list(caught.value.errors) == ["training.batch_size"]


def test_micro_batch_size_is_parsed_and_held_to_the_global_batch():
    def training(**fields: Any) -> dict[str, Any]:
        return {"task": "pretraining", "model": "llama-3.2-1b", "training": fields}

    parsed = workload_from_dict(training(batch_size=512, micro_batch_size=4)).training
    assert parsed is not None
    assert (parsed.batch_size, parsed.micro_batch_size) == (512, 4)
    default = workload_from_dict(training(batch_size=512)).training
    assert default is not None
    assert default.micro_batch_size is None
    errors = _errors(training(batch_size=16, micro_batch_size=32))
    assert list(errors) == ["training.micro_batch_size"]
    assert _rendered(errors, "training.micro_batch_size") == ["must be at most batch_size (16)"]
    assert list(_errors(training(micro_batch_size=0))) == ["training.micro_batch_size"]
    assert list(_errors(training(micro_batch_size=1.5))) == ["training.micro_batch_size"]
    assert LIMITS["training.micro_batch_size"] == LIMITS["training.batch_size"]


SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
KEYS = st.sampled_from(
    [
        "task",
        "model",
        "precision",
        "parameters_billions",
        "architecture",
        "training",
        "inference",
        "data",
        "kind",
        "batch_size",
        "layers",
        "unknown",
    ]
)
JSON_VALUES = SCALARS | st.lists(SCALARS, max_size=2) | st.dictionaries(KEYS, SCALARS, max_size=4)


def _parse(data):
    try:
        return workload_from_dict(data), None
    except WorkloadError as error:
        return None, error


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.dictionaries(KEYS, JSON_VALUES, max_size=6))
def test_any_json_gives_a_workload_or_a_workload_error(data):
    workload, error = _parse(data)
    if error is None:
        validate_workload(workload)
    else:
        assert error.errors
        assert all(error.errors.values())


def test_half_a_latent_attention_is_refused_after_merging_with_the_registry():
    # Llama has no latent attention: a kv_lora_rank alone cannot be sized, so it is refused.
    errors = _errors(
        {"task": "inference", "model": "llama-3.1-70b", "architecture": {"kv_lora_rank": 512}}
    )
    assert list(errors) == ["architecture.kv_lora_rank"]
    assert "cannot model latent attention" in _rendered(errors, "architecture.kv_lora_rank")[0]
    # DeepSeek-V3 already has both: overriding one of them is a latent attention still.
    workload = workload_from_dict(
        {"task": "inference", "model": "deepseek-v3", "architecture": {"kv_lora_rank": 256}}
    )
    assert workload.architecture == Architecture(kv_lora_rank=256)
