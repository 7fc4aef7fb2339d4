"""The public model registry: architectures and exact parameter counts of well-known models.

The data lives in ``data/models.json`` (one entry per model, each with the model card /
config.json / paper it was taken from) and is read once per process, then cached. Parameter
counts are exact integers: the number of trainable weights (``nn.Parameter``) of the released
checkpoint. Where a checkpoint also stores non-parameter buffers (Llama 2 keeps 64 rotary
``inv_freq`` values per layer), those are not counted; the entry's notes say so.

``Architecture`` is defined here (not in ``workload``) because it is both registry data and a
workload input; ``workload`` re-exports it. This keeps the import graph one-way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "models.json"


class Modality(StrEnum):
    TEXT = "text"  # language models and text encoders
    IMAGE = "image"  # image generation (diffusion)
    VISION = "vision"  # image understanding (classification, detection)


class ModelKind(StrEnum):
    """What a model does, which decides its memory model. Defined here (not in ``workload``)
    because it is both registry data (``ModelEntry.kind``) and a workload input."""

    DECODER = "decoder"  # generative language model: token by token, with a KV cache
    ENCODER = "encoder"  # BERT, embedders, rerankers: one forward pass per request, no KV cache
    DIFFUSION = "diffusion"  # image generation: per-image memory, batches of images
    VISION = "vision"  # image classification / detection (CNN or ViT): per-image memory


class RegistryError(RuntimeError):
    """The data file is malformed: a programming error, raised when the registry is loaded."""


@dataclass(frozen=True, slots=True)
class Architecture:
    """The shape of a model. Every field is optional: ``None`` means unknown / not applicable.

    ``layers``, ``hidden_size`` and ``attention_heads`` together make a model a transformer for
    the activation and KV-cache formulas. ``kv_heads`` defaults to ``attention_heads`` (multi-head
    attention), ``head_dim`` to ``hidden_size // attention_heads``. ``experts`` and
    ``experts_per_token`` describe a mixture of experts. ``intermediate_size`` (MLP width),
    ``gated_mlp`` (SwiGLU-style three-matrix MLP, the default, vs a plain two-matrix MLP),
    ``tie_word_embeddings`` and ``context_length`` (longest supported context) refine LoRA adapter
    counts, quantised weight sizes and the longest context.

    ``kv_lora_rank`` and ``qk_rope_head_dim`` describe multi-head latent attention (MLA,
    DeepSeek-V2/V3/R1; DeepSeek-AI 2024, arXiv:2405.04434, section 2.1): each layer caches one
    compressed latent of ``kv_lora_rank`` elements and one decoupled RoPE key of
    ``qk_rope_head_dim`` elements per token, shared by every head, instead of per-head keys and
    values. They come together (validation refuses one without the other).
    """

    layers: int | None = None
    hidden_size: int | None = None
    attention_heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    vocab_size: int | None = None
    sliding_window: int | None = None
    experts: int | None = None
    experts_per_token: int | None = None
    intermediate_size: int | None = None
    gated_mlp: bool | None = None
    tie_word_embeddings: bool | None = None
    context_length: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None

    @property
    def is_latent_attention(self) -> bool:
        """Multi-head latent attention: the KV cache holds a latent and a RoPE key per layer."""
        return self.kv_lora_rank is not None and self.qk_rope_head_dim is not None

    @property
    def is_transformer(self) -> bool:
        return (
            self.layers is not None
            and self.hidden_size is not None
            and self.attention_heads is not None
        )

    @property
    def resolved_kv_heads(self) -> int | None:
        return self.kv_heads if self.kv_heads is not None else self.attention_heads

    @property
    def resolved_head_dim(self) -> int | None:
        if self.head_dim is not None:
            return self.head_dim
        if self.hidden_size is None or not self.attention_heads:
            return None
        return self.hidden_size // self.attention_heads

    @property
    def is_moe(self) -> bool:
        return (self.experts or 1) > 1

    def overridden_by(self, override: Architecture | None) -> Architecture:
        """This architecture with every field the override sets (not ``None``) replaced."""
        if override is None:
            return self
        changes = {
            f.name: getattr(override, f.name)
            for f in fields(override)
            if getattr(override, f.name) is not None
        }
        return replace(self, **changes) if changes else self


ARCHITECTURE_FIELDS = tuple(f.name for f in fields(Architecture))


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One registry model.

    ``parameters`` counts every weight the model loads (all experts of a mixture of experts, and
    for a pipeline such as SDXL the text encoders and VAE too). ``active_parameters`` is what one
    token uses (mixture of experts only; ``None`` means all of them). ``frozen_parameters`` are
    loaded but never trained (SDXL's text encoders and VAE). ``autoregressive`` models generate
    token by token and keep a KV cache. Non-transformers carry documented per-sample estimates:
    ``activation_elements_per_sample`` (tensors kept for the backward pass at the default input
    size, in elements, 2 bytes each in 16-bit training),
    ``inference_activation_elements_per_sample`` (peak live tensors at inference) and
    ``forward_flops_per_sample``.
    """

    id: str
    name: str
    family: str
    parameters: int
    modality: Modality
    architecture: Architecture
    license: str
    sources: tuple[str, ...]
    autoregressive: bool
    active_parameters: int | None = None
    frozen_parameters: int = 0
    activation_elements_per_sample: int | None = None
    inference_activation_elements_per_sample: int | None = None
    forward_flops_per_sample: float | None = None
    notes: str = ""

    @property
    def kind(self) -> ModelKind:
        """The model's kind, from its modality and whether it generates token by token."""
        if self.modality is Modality.IMAGE:
            return ModelKind.DIFFUSION
        if self.modality is Modality.VISION:
            return ModelKind.VISION
        return ModelKind.DECODER if self.autoregressive else ModelKind.ENCODER


_REQUIRED = ("id", "name", "family", "parameters", "modality", "license", "sources")
_OPTIONAL_INT = (
    "active_parameters",
    "activation_elements_per_sample",
    "inference_activation_elements_per_sample",
)


def entry_from_json(raw: Mapping[str, Any]) -> ModelEntry:
    label = raw.get("id", "<no id>")
    missing = [key for key in _REQUIRED if key not in raw]
    if missing:
        raise RegistryError(f"model {label}: missing {', '.join(missing)}")
    arch_raw = raw.get("architecture") or {}
    unknown = set(arch_raw) - set(ARCHITECTURE_FIELDS)
    if unknown:
        raise RegistryError(f"model {label}: unknown architecture fields {sorted(unknown)}")
    if not isinstance(raw["parameters"], int) or raw["parameters"] <= 0:
        raise RegistryError(f"model {label}: parameters must be a positive integer")
    for key in _OPTIONAL_INT:
        value = raw.get(key)
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise RegistryError(f"model {label}: {key} must be a positive integer or null")
    sources = raw["sources"]
    if not sources or not all(isinstance(s, str) and s for s in sources):
        raise RegistryError(f"model {label}: sources must be a non-empty list of strings")
    return ModelEntry(
        id=raw["id"],
        name=raw["name"],
        family=raw["family"],
        parameters=raw["parameters"],
        modality=Modality(raw["modality"]),
        architecture=Architecture(**arch_raw),
        license=raw["license"],
        sources=tuple(sources),
        autoregressive=bool(raw.get("autoregressive", False)),
        active_parameters=raw.get("active_parameters"),
        frozen_parameters=raw.get("frozen_parameters", 0),
        activation_elements_per_sample=raw.get("activation_elements_per_sample"),
        inference_activation_elements_per_sample=raw.get(
            "inference_activation_elements_per_sample"
        ),
        forward_flops_per_sample=raw.get("forward_flops_per_sample"),
        notes=raw.get("notes", ""),
    )


@cache
def load_registry() -> Mapping[str, ModelEntry]:
    """All registry models by id, read from ``data/models.json`` once per process."""
    with DATA_FILE.open(encoding="utf-8") as handle:
        document = json.load(handle)
    entries: dict[str, ModelEntry] = {}
    for raw in document["models"]:
        entry = entry_from_json(raw)
        if entry.id in entries:
            raise RegistryError(f"duplicate model id {entry.id}")
        entries[entry.id] = entry
    return MappingProxyType(entries)


def get_model(model_id: str) -> ModelEntry | None:
    """The registry entry for ``model_id``, or ``None`` when the id is unknown."""
    return load_registry().get(model_id)


def model_ids() -> tuple[str, ...]:
    """Every valid ``model`` value, in registry order."""
    return tuple(load_registry())


def all_models() -> tuple[ModelEntry, ...]:
    return tuple(load_registry().values())
