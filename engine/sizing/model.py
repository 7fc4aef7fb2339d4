"""Model resolution: the registry entry or the architecture given, else the closest reference."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..model_registry import Architecture, Modality, ModelEntry, all_models, get_model
from ..workload import (
    Precision,
)
from .constants import WEIGHT_BYTES

# --- Model resolution. ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Model:
    name: str
    parameters: float
    active_parameters: float
    frozen_parameters: float
    arch: Architecture
    autoregressive: bool
    entry: ModelEntry | None
    reference: str | None  # registry model whose shape is assumed (parameters_billions only)
    embedding_parameters: float  # input embedding + output head: kept 16-bit when quantised


def _closest_reference(parameters: float) -> ModelEntry:
    candidates = [
        m
        for m in all_models()
        if m.autoregressive and m.modality is Modality.TEXT and not m.architecture.is_moe
    ]
    return min(candidates, key=lambda m: abs(math.log(m.parameters / parameters)))


@lru_cache(maxsize=512)
def _resolve(
    model_id: str | None, parameters_billions: float | None, override: Architecture | None
) -> _Model:
    """The model a workload names (validated before): registry entry with the architecture
    override applied, or a custom size whose shape is given or borrowed from the registry."""
    entry = get_model(model_id) if model_id is not None else None
    reference = None
    if entry is not None:
        arch = entry.architecture.overridden_by(override)
        parameters = float(entry.parameters)
        active = float(entry.active_parameters or entry.parameters)
        name, autoregressive = entry.name, entry.autoregressive
        frozen = float(entry.frozen_parameters)
    else:
        parameters = float(parameters_billions or 0) * 1e9
        if override is not None and override.is_transformer:
            arch = override
        else:
            ref = _closest_reference(parameters)
            arch = ref.architecture.overridden_by(override)
            reference = ref.name
        # A custom model is taken to be a generative (decoder) language model.
        name, autoregressive, frozen = "custom model", True, 0.0
        active = _moe_active(parameters, arch) if arch.is_moe else parameters
    embedding = 0.0
    if arch.vocab_size and arch.hidden_size:
        embedding = arch.vocab_size * arch.hidden_size * (1 if arch.tie_word_embeddings else 2)
    return _Model(
        name=name,
        parameters=parameters,
        active_parameters=active,
        frozen_parameters=frozen,
        arch=arch,
        autoregressive=autoregressive,
        entry=entry,
        reference=reference,
        embedding_parameters=min(float(embedding), parameters),
    )


def _moe_active(parameters: float, arch: Architecture) -> float:
    """Active parameters of a custom mixture of experts: the expert MLPs are the parameters
    beyond attention and embeddings; a token uses ``experts_per_token`` of ``experts``."""
    hidden = arch.hidden_size or 0
    head_dim = arch.resolved_head_dim or 0
    heads = 2 * (arch.attention_heads or 0) + 2 * (arch.resolved_kv_heads or 0)
    attention = hidden * head_dim * heads
    embedding = (arch.vocab_size or 0) * hidden * (1 if arch.tie_word_embeddings else 2)
    experts_total = max(parameters - (arch.layers or 0) * attention - embedding, 0.0)
    k, e = arch.experts_per_token or 1, arch.experts or 1
    return parameters - experts_total * (e - k) / e


def _weight_bytes(model: _Model, precision: Precision, parameters: float) -> float:
    """Bytes of ``parameters`` weights at ``precision``; below 16 bits the input embedding and
    output head stay 16-bit (bitsandbytes, GPTQ and AWQ do not quantise them)."""
    per = WEIGHT_BYTES[precision]
    if per >= 2.0:
        return parameters * per
    kept = min(model.embedding_parameters, parameters)
    return kept * 2.0 + (parameters - kept) * per
