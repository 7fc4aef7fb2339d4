"""The workload in a request: parsed by the engine, documented from the engine's own ranges.

``WorkloadField`` is the one field every endpoint taking a workload uses (configurations, TCO,
partner quotes; the sizing endpoint takes its fields at the top level). Its value is checked by
``workload_from_dict``, every bad field at once, each error under its dotted path; its OpenAPI
schema is ``WorkloadSchema``, built here from ``engine.workload.LIMITS`` and the engine's enums,
so what is documented is what is enforced. The ``*Schema`` serializers below only *describe* the
workload: nothing validates with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.workload import (
    LIMITS,
    DataKind,
    Optimizer,
    Precision,
    Sharding,
    Task,
    TrainingMethod,
    Workload,
    WorkloadError,
    workload_from_dict,
)
from engine.workload.registry import ModelKind
from gpuquote.api.fields import BoundedFloatField, BoundedIntegerField
from quotes.advice.presenters import text

# --- The description, from the engine's ranges and enums ----------------------------------------


def _ranged(path: str, *, integer: bool = False, help_text: str = "") -> serializers.Field:
    low, high = LIMITS[path]
    if integer:  # published as LIMITS holds them (1e15, not 1000000000000000)
        return BoundedIntegerField(
            min_value=low,  # type: ignore[arg-type]
            max_value=high,  # type: ignore[arg-type]
            required=False,
            allow_null=True,
            help_text=help_text,
        )
    return BoundedFloatField(
        min_value=low, max_value=high, required=False, allow_null=True, help_text=help_text
    )


def _choice(enum: type[Enum], help_text: str = "") -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=[member.value for member in enum], required=False, help_text=help_text
    )


class ArchitectureSchema(serializers.Serializer):
    layers = _ranged("architecture.layers", integer=True)
    hidden_size = _ranged("architecture.hidden_size", integer=True)
    attention_heads = _ranged("architecture.attention_heads", integer=True)
    kv_heads = _ranged("architecture.kv_heads", integer=True, help_text="Grouped-query attention.")
    head_dim = _ranged("architecture.head_dim", integer=True, help_text="Default hidden/heads.")
    vocab_size = _ranged("architecture.vocab_size", integer=True)
    sliding_window = _ranged("architecture.sliding_window", integer=True)
    experts = _ranged("architecture.experts", integer=True)
    experts_per_token = _ranged("architecture.experts_per_token", integer=True)
    intermediate_size = _ranged("architecture.intermediate_size", integer=True)
    gated_mlp = serializers.BooleanField(
        required=False,
        allow_null=True,
        help_text="A SwiGLU-style three-matrix MLP (the default); false: a plain two-matrix MLP.",
    )
    tie_word_embeddings = serializers.BooleanField(
        required=False,
        allow_null=True,
        help_text="The output layer shares the input embeddings' weights.",
    )
    context_length = _ranged("architecture.context_length", integer=True)
    kv_lora_rank = _ranged(
        "architecture.kv_lora_rank",
        integer=True,
        help_text="Multi-head latent attention (DeepSeek-V2/V3/R1): config.json kv_lora_rank, "
        "the latent each layer caches per token. Give it with qk_rope_head_dim.",
    )
    qk_rope_head_dim = _ranged(
        "architecture.qk_rope_head_dim",
        integer=True,
        help_text="Multi-head latent attention: config.json qk_rope_head_dim, the RoPE key each "
        "layer caches per token beside the latent. Give it with kv_lora_rank.",
    )


class TrainingSchema(serializers.Serializer):
    method = _choice(TrainingMethod)
    lora_rank = _ranged("training.lora_rank", integer=True, help_text="Default 16.")
    optimizer = _choice(Optimizer)
    batch_size = _ranged(
        "training.batch_size",
        integer=True,
        help_text="Global batch, reached by gradient accumulation: it sets the accumulation "
        "steps, not the memory.",
    )
    micro_batch_size = _ranged(
        "training.micro_batch_size",
        integer=True,
        help_text="Samples per GPU per forward/backward pass, at most batch_size. Default: the "
        "largest power of two up to each GPU's share of the batch that fits its memory.",
    )
    sequence_length = _ranged("training.sequence_length", integer=True)
    gradient_checkpointing = serializers.BooleanField(
        required=False,
        help_text="Recompute activations: far less memory, more compute. Default true.",
    )
    flash_attention = serializers.BooleanField(
        required=False,
        help_text="Fused attention, which never stores the attention scores. Default true.",
    )
    sharding = _choice(Sharding, "none = plain data parallel; zero3 = fully sharded.")
    gpus = _ranged("training.gpus", integer=True, help_text="Data-parallel GPUs.")
    training_tokens = _ranged("training.training_tokens", integer=True)
    epochs = _ranged("training.epochs")
    deadline_days = _ranged("training.deadline_days")


class InferenceSchema(serializers.Serializer):
    concurrent_requests = _ranged("inference.concurrent_requests", integer=True)
    sequence_length = _ranged(
        "inference.sequence_length", integer=True, help_text="Prompt + output tokens."
    )
    kv_cache_precision = _choice(
        Precision,
        "Default: the model's 16-bit activations (fp32 for an fp32 model), whatever the "
        "weights' quantisation, as vLLM does; fp8 only when asked.",
    )
    target_tokens_per_second = _ranged("inference.target_tokens_per_second")


class DataSchema(serializers.Serializer):
    kind = _choice(DataKind)
    items = _ranged("data.items", integer=True)
    total_gb = _ranged("data.total_gb", help_text="GB = 10^9 bytes.")


class WorkloadSchema(serializers.Serializer):
    task = serializers.ChoiceField(choices=[t.value for t in Task])
    model = serializers.CharField(required=False, help_text="A registry id: GET /api/v1/models/.")
    parameters_billions = _ranged("parameters_billions")
    model_kind = _choice(
        ModelKind,
        "With parameters_billions: what the model is (default decoder). decoder: a generative "
        "language model (KV cache); encoder: BERT, embedders, rerankers (no KV cache); "
        "diffusion: image generation (per-image memory, images/s); vision: classification or "
        "detection. A registry model has its own kind.",
    )
    architecture = ArchitectureSchema(required=False)
    precision = _choice(Precision)
    training = TrainingSchema(required=False)
    inference = InferenceSchema(required=False)
    # The stubs see ``Serializer.data``; DRF moves declared fields off the class, so it stays.
    data = DataSchema(required=False)  # type: ignore[assignment]


# --- The field ------------------------------------------------------------------------------------


def workload_validated(data: Any) -> Workload:
    """The engine's parser; its errors become DRF's, one list per dotted field path."""
    if not isinstance(data, Mapping):
        raise serializers.ValidationError([_("Expected a JSON object.")])
    try:
        return workload_from_dict(data)
    except WorkloadError as exc:
        raise serializers.ValidationError(
            {path: [text(message) for message in messages] for path, messages in exc.errors.items()}
        ) from exc


@extend_schema_field(WorkloadSchema)
class _WorkloadDocumented(serializers.Field):
    """A workload in a request body, documented by ``WorkloadSchema``: the one decorated field."""

    def to_representation(self, value: Any) -> Any:
        return value


class WorkloadField(_WorkloadDocumented):
    """A workload (``engine.workload.Workload``), as ``POST /api/v1/sizing/`` takes it."""

    def to_internal_value(self, data: Any) -> Workload:
        return workload_validated(data)


class WorkloadJsonField(_WorkloadDocumented):
    """A workload the engine accepts, kept as the JSON object given (a quote stores its inputs)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        workload_validated(data)
        return dict(data)
