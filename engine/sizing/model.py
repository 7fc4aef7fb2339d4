"""Model resolution: the registry entry, the architecture given, or a shape derived from the size.

A custom model (``parameters_billions`` without a full ``architecture``) gets a shape that
belongs to its size and kind, taken from the registry's models of that kind
(``data/models.json``, each entry sourced from its config.json):

* decoders and encoders: layers and hidden size follow power laws fitted (least squares on the
  logarithms) to the registry's dense decoders, respectively encoders; heads, KV heads,
  vocabulary and tied embeddings follow the rules below; the MLP width is whatever makes the
  parameter count equal the size asked for;
* diffusion and vision models: the per-image activations and forward FLOPs of the registry model
  of that kind closest in size, scaled in proportion to the parameters.

Everything here is pure and cached: the same size and kind always give the same shape.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from ..workload import Precision, Workload
from ..workload.registry import Architecture, ModelEntry, ModelKind, all_models, get_model
from .constants import WEIGHT_BYTES

# --- Rules for derived shapes (each from the registry's own models, see below). ----------------

# Decoders: heads of 128 dimensions, as the registry's Llama, Mistral and Qwen decoders from
# 1.5B up (Llama 3.2 1B, Qwen2.5 0.5B and Falcon 40B use 64).
DECODER_HEAD_DIM = 128
# KV heads (grouped-query attention) by hidden size: (smallest hidden size, KV heads). The
# registry's grouped-query decoders from about 8B up keep 8 KV heads (Llama 3.1 8B to 405B,
# Mistral 7B, Llama 2 70B, Qwen2.5 72B: 1,024 KV dimensions per layer); the smaller ones keep
# fewer KV dimensions (Qwen2.5 7B 4 x 128; Qwen2.5 1.5B and 3B 2 x 128, 0.5B 2 x 64; Llama 3.2
# 1B 8 x 64). The tiers interpolate that trend. The attention heads are a multiple of the KV
# heads (whole query groups; from 4096 a multiple of 8, so a layer splits over 2, 4 or 8 GPUs),
# and the KV cache per token never shrinks as the model grows.
DECODER_KV_TIERS: tuple[tuple[int, int], ...] = ((4096, 8), (2048, 4), (1024, 2), (0, 1))
# Encoders: multi-head attention with heads of 64 (BERT, BGE, XLM-R in the registry; BGE small's
# 32 aside), hidden sizes in steps of 128.
ENCODER_HEAD_DIM = 64
ENCODER_HIDDEN_STEP = 128
# MLP width over hidden size: the registry runs from 2.7 (Llama 2) to 5.8 (Qwen2.5 1.5B) for
# decoders and is 4 for encoders. Outside 2..8 the fitted depth does not suit the size, and the
# layer count is solved from the size instead.
MLP_RATIO_RANGE = (2.0, 8.0)
SOURCE_DERIVED_SHAPE = (
    "GPUQuote model registry (engine/data/models.json, shapes from each model's config.json): "
    "power laws of layers and hidden size fitted over the models of the same kind"
)
# Diffusion and vision: at the reference's input size, activations and FLOPs per image grow in
# proportion to the parameters, as in the ResNet family at 224 x 224 (torchvision: ResNet-18
# 11.7M parameters 1.81 GFLOPS, ResNet-50 25.6M 4.09, ResNet-152 60.2M 11.51; pytorch.org/vision
# models table, seen 2026-12-03).
SOURCE_SCALED_SHAPE = (
    "GPUQuote model registry (engine/data/models.json): per-image figures of the closest model of "
    "the same kind, scaled with the parameters (torchvision ResNet family: FLOPs grow about in "
    "proportion to the parameters)"
)

_PER_IMAGE_KINDS = frozenset({ModelKind.DIFFUSION, ModelKind.VISION})


# --- The resolved model. ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelFigures:
    name: str
    parameters: float
    active_parameters: float
    frozen_parameters: float
    arch: Architecture
    autoregressive: bool
    entry: ModelEntry | None
    # Registry models the assumed shape comes from (custom sizes only), by name, comma-separated.
    reference: str | None
    embedding_parameters: float  # input embedding + output head: kept 16-bit when quantised
    kind: ModelKind = ModelKind.DECODER
    # The derived shape's own parameter count (custom transformer sizes without architecture).
    derived_parameters: float | None = None
    # Per-sample figures of models without a transformer architecture (registry or scaled).
    activation_elements_per_sample: float | None = None
    inference_activation_elements_per_sample: float | None = None
    forward_flops_per_sample: float | None = None
    # Custom diffusion / vision models: parameters over those of the registry reference.
    reference_scale: float | None = None


@dataclass(frozen=True, slots=True)
class DerivedShape:
    """The shape assumed for a custom transformer of a given size: ``architecture`` (every
    field set), its own exact ``parameters`` count (the size asked for, to the rounding of the
    MLP width) and the registry models it was fitted over (``references``, ids)."""

    architecture: Architecture
    parameters: int
    references: tuple[str, ...]


def resolve_workload(workload: Workload) -> ModelFigures:
    """The model a (validated) workload names; see ``resolve``."""
    return resolve(
        workload.model, workload.parameters_billions, workload.architecture, workload.model_kind
    )


@lru_cache(maxsize=512)
def resolve(
    model_id: str | None,
    parameters_billions: float | None,
    override: Architecture | None,
    kind: ModelKind | None = None,
) -> ModelFigures:
    """The model a workload names (validated before): registry entry with the architecture
    override applied, or a custom size of ``kind`` (default: decoder) whose shape is given,
    derived from the registry's models of that kind, or for diffusion and vision scaled from
    the closest one."""
    entry = get_model(model_id) if model_id is not None else None
    if entry is not None:
        arch = entry.architecture.overridden_by(override)
        return _model(
            name=entry.name,
            parameters=float(entry.parameters),
            active=float(entry.active_parameters or entry.parameters),
            frozen=float(entry.frozen_parameters),
            arch=arch,
            kind=entry.kind,
            entry=entry,
            activation=entry.activation_elements_per_sample,
            inference_activation=entry.inference_activation_elements_per_sample,
            flops=entry.forward_flops_per_sample,
        )
    parameters = float(parameters_billions or 0) * 1e9
    kind = kind or ModelKind.DECODER
    if kind in _PER_IMAGE_KINDS:
        return _scaled_per_image_model(parameters, kind)
    reference = derived = None
    if override is not None and override.is_transformer:
        arch = override
    else:
        shape = derived_shape(parameters, kind)
        arch = shape.architecture.overridden_by(override)
        reference = ", ".join(_names(shape.references))
        derived = float(shape.parameters)
    active = _moe_active(parameters, arch) if arch.is_moe else parameters
    return _model(
        name="custom model",
        parameters=parameters,
        active=active,
        frozen=0.0,
        arch=arch,
        kind=kind,
        reference=reference,
        derived=derived,
    )


def _model(
    *,
    name: str,
    parameters: float,
    active: float,
    frozen: float,
    arch: Architecture,
    kind: ModelKind,
    entry: ModelEntry | None = None,
    reference: str | None = None,
    derived: float | None = None,
    activation: float | None = None,
    inference_activation: float | None = None,
    flops: float | None = None,
    scale: float | None = None,
) -> ModelFigures:
    embedding = 0.0
    if arch.vocab_size and arch.hidden_size:
        embedding = arch.vocab_size * arch.hidden_size * (1 if arch.tie_word_embeddings else 2)
    return ModelFigures(
        name=name,
        parameters=parameters,
        active_parameters=active,
        frozen_parameters=frozen,
        arch=arch,
        autoregressive=kind is ModelKind.DECODER,
        entry=entry,
        reference=reference,
        embedding_parameters=min(float(embedding), parameters),
        kind=kind,
        derived_parameters=derived,
        activation_elements_per_sample=activation,
        inference_activation_elements_per_sample=inference_activation,
        forward_flops_per_sample=flops,
        reference_scale=scale,
    )


def _names(ids: Sequence[str]) -> list[str]:
    return [entry.name for entry in (get_model(i) for i in ids) if entry is not None]


# --- Shapes derived from the size: decoders and encoders. ----------------------------------------


def derived_shape(parameters: float, kind: ModelKind = ModelKind.DECODER) -> DerivedShape:
    """The transformer shape assumed for a custom ``kind`` model of ``parameters`` weights
    (decoder or encoder): layers and hidden size from power laws fitted over the registry's
    models of that kind, then heads, KV heads and vocabulary by the module's rules, and the MLP
    width that makes the count equal ``parameters``."""
    if kind is ModelKind.ENCODER:
        return _encoder_shape(parameters)
    if kind is ModelKind.DECODER:
        return _decoder_shape(parameters)
    raise ValueError(f"no transformer shape for {kind} models")


def _references(kind: ModelKind) -> tuple[ModelEntry, ...]:
    """Registry models a shape of ``kind`` is fitted over: dense transformers of that kind
    with a known MLP width (mixtures of experts left out: their size is not their shape)."""
    return tuple(
        m
        for m in all_models()
        if m.kind is kind
        and m.architecture.is_transformer
        and not m.architecture.is_moe
        and m.architecture.intermediate_size
        and m.architecture.vocab_size
    )


@dataclass(frozen=True, slots=True)
class _Fit:
    """``value = exp(intercept) x parameters ** slope`` for layers and hidden size, and the
    data-driven constants of one kind."""

    layers: tuple[float, float]
    hidden: tuple[float, float]
    vocab: int  # median vocabulary of the references
    embedding_share: float  # largest share of the parameters in embeddings among them
    context_length: int  # median context length
    untied_from: float  # smallest reference with an untied output head (decoders)
    references: tuple[str, ...]


def _power_law(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least squares of log(y) on log(x): (intercept, slope)."""
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - slope * mx, slope


def _embedding_share(entry: ModelEntry) -> float:
    arch = entry.architecture
    copies = 1 if arch.tie_word_embeddings else 2
    return (arch.vocab_size or 0) * (arch.hidden_size or 0) * copies / entry.parameters


@cache
def _fit(kind: ModelKind) -> _Fit:
    refs = _references(kind)
    untied = [m.parameters for m in refs if m.architecture.tie_word_embeddings is False]
    return _Fit(
        layers=_power_law([(m.parameters, m.architecture.layers or 1) for m in refs]),
        hidden=_power_law([(m.parameters, m.architecture.hidden_size or 1) for m in refs]),
        vocab=int(statistics.median_low([m.architecture.vocab_size or 0 for m in refs])),
        embedding_share=max(_embedding_share(m) for m in refs),
        context_length=int(
            statistics.median_low([m.architecture.context_length or 0 for m in refs])
        ),
        untied_from=float(min(untied)) if untied else math.inf,
        references=tuple(m.id for m in sorted(refs, key=lambda m: m.parameters)),
    )


def _at(law: tuple[float, float], parameters: float) -> float:
    intercept, slope = law
    return math.exp(intercept + slope * math.log(parameters))


def _vocabulary(fit: _Fit, parameters: float, hidden_fitted: float, copies: int) -> int:
    """The references' median vocabulary, held for small models to the largest embedding
    share among them (a 0.1B model cannot spend its whole size on a 128k vocabulary); a
    multiple of 128. Grows with the size (the fitted hidden size grows more slowly)."""
    cap = fit.embedding_share * parameters / (hidden_fitted * copies)
    return max(128, min(fit.vocab, int(cap) // 128 * 128))


@cache
def _decoder_hidden_grid() -> tuple[int, ...]:
    """Hidden sizes a derived decoder may take: heads of ``DECODER_HEAD_DIM``, the heads a
    multiple of the KV heads of their tier."""
    grid = []
    for heads in range(1, 1025):
        hidden = heads * DECODER_HEAD_DIM
        if heads % _decoder_kv_heads(hidden) == 0:
            grid.append(hidden)
    return tuple(grid)


def _decoder_kv_heads(hidden: int) -> int:
    return next(kv for smallest, kv in DECODER_KV_TIERS if hidden >= smallest)


def _nearest(grid: Sequence[int], value: float) -> int:
    """The grid value nearest to ``value`` in ratio (log space): monotone in ``value``."""
    i = bisect.bisect_left(grid, value)
    candidates = grid[max(i - 1, 0) : i + 1]
    return min(candidates, key=lambda g: abs(math.log(g / value)))


@lru_cache(maxsize=1024)
def _decoder_shape(parameters: float) -> DerivedShape:
    fit = _fit(ModelKind.DECODER)
    hidden_fitted = _at(fit.hidden, parameters)
    hidden = _nearest(_decoder_hidden_grid(), hidden_fitted)
    layers = max(1, round(_at(fit.layers, parameters)))
    heads = hidden // DECODER_HEAD_DIM
    kv_heads = _decoder_kv_heads(hidden)
    tied = parameters < fit.untied_from
    copies = 1 if tied else 2
    vocab = _vocabulary(fit, parameters, hidden_fitted, copies)
    # Llama-style layer: q and o (h x h), k and v (h x kv dims), a gated MLP of 3 matrices and
    # two RMSNorms; embedding (+ untied head) and a final norm.
    attention = 2 * hidden * hidden + 2 * hidden * kv_heads * DECODER_HEAD_DIM + 2 * hidden
    fixed = vocab * hidden * copies + hidden
    layers, intermediate = _fit_layers(layers, hidden, attention, 3 * hidden, parameters - fixed)
    arch = Architecture(
        layers=layers,
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=kv_heads,
        head_dim=DECODER_HEAD_DIM,
        vocab_size=vocab,
        intermediate_size=intermediate,
        gated_mlp=True,
        tie_word_embeddings=tied,
        context_length=fit.context_length,
    )
    return DerivedShape(arch, decoder_parameter_count(arch), fit.references)


def _fit_layers(
    layers: int,
    hidden: int,
    per_layer_fixed: float,
    per_mlp_unit: float,
    budget: float,
) -> tuple[int, int]:
    """(layers, MLP width) spending ``budget`` parameters on the layers, each with
    ``per_layer_fixed`` parameters plus ``per_mlp_unit`` per unit of MLP width: the fitted
    ``layers`` when the width stays within ``MLP_RATIO_RANGE`` of the hidden size, else the
    layers solved at the range's bound (tiny or enormous sizes). The width is rounded to a
    multiple of 64, at least 64."""
    low, high = (r * hidden for r in MLP_RATIO_RANGE)
    mlp = (budget / layers - per_layer_fixed) / per_mlp_unit
    if not low <= mlp <= high:
        bound = low if mlp < low else high
        layers = max(1, round(budget / (per_layer_fixed + per_mlp_unit * bound)))
        mlp = min(max((budget / layers - per_layer_fixed) / per_mlp_unit, low), high)
    return layers, max(64, round(mlp / 64) * 64)


def decoder_parameter_count(arch: Architecture) -> int:
    """Parameters of a Llama-style decoder (no biases): per layer the q, k, v, o projections,
    the MLP (3 matrices gated, 2 plain) and two norms; the embedding, the output head unless
    tied, and the final norm."""
    h, layers = arch.hidden_size or 0, arch.layers or 0
    head_dim = arch.resolved_head_dim or 0
    q = (arch.attention_heads or 0) * head_dim
    kv = (arch.resolved_kv_heads or 0) * head_dim
    matrices = 2 if arch.gated_mlp is False else 3
    per_layer = 2 * h * q + 2 * h * kv + matrices * h * (arch.intermediate_size or 0) + 2 * h
    head = 1 if arch.tie_word_embeddings else 2
    return layers * per_layer + (arch.vocab_size or 0) * h * head + h


@lru_cache(maxsize=1024)
def _encoder_shape(parameters: float) -> DerivedShape:
    fit = _fit(ModelKind.ENCODER)
    hidden_fitted = _at(fit.hidden, parameters)
    hidden = max(
        ENCODER_HIDDEN_STEP, round(hidden_fitted / ENCODER_HIDDEN_STEP) * ENCODER_HIDDEN_STEP
    )
    layers = max(1, round(_at(fit.layers, parameters)))
    heads = hidden // ENCODER_HEAD_DIM
    vocab = _vocabulary(fit, parameters, hidden_fitted, 1)
    context = fit.context_length
    # BERT layer: q, k, v, o with biases, two LayerNorms, MLP h -> i -> h with biases.
    # Embeddings: tokens, positions, 2 token types, LayerNorm; pooler h x h + h.
    attention = 4 * hidden * hidden + 9 * hidden
    fixed = (vocab + context + 2) * hidden + 2 * hidden + hidden * hidden + hidden
    layers, intermediate = _fit_layers(
        layers, hidden, attention, 2 * hidden + 1, parameters - fixed
    )
    arch = Architecture(
        layers=layers,
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=heads,
        head_dim=ENCODER_HEAD_DIM,
        vocab_size=vocab,
        intermediate_size=intermediate,
        gated_mlp=False,
        tie_word_embeddings=True,
        context_length=context,
    )
    return DerivedShape(arch, encoder_parameter_count(arch), fit.references)


def encoder_parameter_count(arch: Architecture) -> int:
    """Parameters of a BERT-style encoder (BertModel with its pooler): token, position
    (``context_length``) and 2 token-type embeddings with a LayerNorm; per layer q, k, v, o and
    the two MLP matrices with biases and two LayerNorms; the pooler."""
    h, layers, i = arch.hidden_size or 0, arch.layers or 0, arch.intermediate_size or 0
    embeddings = ((arch.vocab_size or 0) + (arch.context_length or 0) + 2) * h + 2 * h
    per_layer = 4 * (h * h + h) + 2 * h + (h * i + i) + (i * h + h) + 2 * h
    return embeddings + layers * per_layer + h * h + h


# --- Diffusion and vision: per-image figures scaled from the closest registry model. -------------


def _scaled_per_image_model(parameters: float, kind: ModelKind) -> ModelFigures:
    ref = _closest(parameters, kind)
    scale = parameters / ref.parameters

    def scaled(value: float | None) -> float | None:
        return None if value is None else value * scale

    return _model(
        name="custom model",
        parameters=parameters,
        active=parameters,
        frozen=ref.frozen_parameters * scale,
        arch=ref.architecture,
        kind=kind,
        reference=ref.name,
        activation=scaled(ref.activation_elements_per_sample),
        inference_activation=scaled(ref.inference_activation_elements_per_sample),
        flops=scaled(ref.forward_flops_per_sample),
        scale=scale,
    )


def _closest(parameters: float, kind: ModelKind) -> ModelEntry:
    """The registry model of ``kind`` closest in size (ratio), preferring one with a FLOP
    count at equal distance."""
    candidates = [m for m in all_models() if m.kind is kind]
    return min(
        candidates,
        key=lambda m: (
            abs(math.log(m.parameters / parameters)),
            m.forward_flops_per_sample is None,
        ),
    )


# --- Helpers shared by the plan. ------------------------------------------------------------------


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


def weight_bytes(model: ModelFigures, precision: Precision, parameters: float) -> float:
    """Bytes of ``parameters`` weights at ``precision``; below 16 bits the input embedding and
    output head stay 16-bit (bitsandbytes, GPTQ and AWQ do not quantise them)."""
    per = WEIGHT_BYTES[precision]
    if per >= 2.0:
        return parameters * per
    kept = min(model.embedding_parameters, parameters)
    return kept * 2.0 + (parameters - kept) * per
