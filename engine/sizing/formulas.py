"""The formulas of sizing, public so that tests and other engine modules can check them."""

from __future__ import annotations

from types import MappingProxyType

from ..workload import Optimizer, Precision, Sharding
from ..workload.registry import Architecture
from .constants import (
    FP32_OPTIMIZER_BYTES,
    KV_BYTES,
    LORA_FALLBACK_FRACTION_AT_RANK_16,
    MIXED_PRECISION_OPTIMIZER_BYTES,
)

# --- Formulas (public so that tests and other engine modules can check them). ------------------


def model_state_bytes_per_parameter(
    precision: Precision, optimizer: Optimizer
) -> tuple[float, float, float]:
    """(weights, gradients, optimizer states) bytes per trained parameter. Mixed-precision Adam
    gives (2, 2, 12) = 16 bytes (ZeRO paper, K = 12); fp32 Adam (4, 4, 8)."""
    if precision is Precision.FP32:
        return 4.0, 4.0, FP32_OPTIMIZER_BYTES[optimizer]
    return 2.0, 2.0, MIXED_PRECISION_OPTIMIZER_BYTES[optimizer]


# ZeRO stage per sharding choice.
STAGE = MappingProxyType(
    {Sharding.NONE: 0, Sharding.ZERO1: 1, Sharding.ZERO2: 2, Sharding.ZERO3: 3}
)


def sharding_of(stage: int) -> Sharding:
    """The sharding choice of a ZeRO stage (the reverse of ``STAGE``)."""
    return next(sharding for sharding, s in STAGE.items() if s == stage)


def zero_model_state_bytes_per_gpu(
    parameters: float, gpus: int, sharding: Sharding, *, k: float = 12.0
) -> float:
    """Model-state bytes per GPU under ZeRO with mixed-precision Adam (ZeRO paper, Figure 1):
    baseline (2 + 2 + K) x params; stage 1 divides the K bytes by the GPU count, stage 2 also
    the gradients, stage 3 also the weights."""
    weights, grads, states = 2.0 * parameters, 2.0 * parameters, k * parameters
    stage = STAGE[sharding]
    return (
        (weights / gpus if stage >= 3 else weights)
        + (grads / gpus if stage >= 2 else grads)
        + (states / gpus if stage >= 1 else states)
    )


def activation_bytes_per_layer(
    sequence_length: int,
    batch: int,
    hidden_size: int,
    attention_heads: int,
    *,
    recompute: bool = False,
    experts_per_token: int = 1,
    attention_scores: bool = True,
) -> float:
    """Activation bytes one transformer layer keeps for the backward pass, 16-bit activations,
    no tensor/sequence parallelism (Korthikanti et al. 2022, section 4.1 and eq. 1):
    ``s*b*h*(34 + 5*a*s/h)``: attention block 11sbh + 5as^2b, MLP 19sbh, two layer norms 4sbh.
    A mixture of experts runs the MLP for ``experts_per_token`` experts per token, so the MLP
    term is multiplied by it (dense: 1). With full recomputation (gradient checkpointing) only
    the layer input is kept: ``2*s*b*h``. ``attention_scores=False`` drops the ``5as/h`` term
    (attention scores recomputed, as with FlashAttention or Korthikanti's selective
    recomputation); ``size()`` keeps it, the conservative published formula."""
    s, b, h, a = sequence_length, batch, hidden_size, attention_heads
    if recompute:
        return 2.0 * s * b * h
    scores = 5 * a * s / h if attention_scores else 0.0
    return s * b * h * (15 + 19 * experts_per_token + scores)


def kv_cache_bytes_per_token(arch: Architecture, kv_precision: Precision) -> float:
    """``2 x layers x kv_heads x head_dim x bytes``: keys and values of every layer for one
    token. Uses the KV heads (grouped-query attention), not the hidden size.

    Multi-head latent attention (DeepSeek-V2/V3/R1) caches instead, per layer, one compressed
    latent and one decoupled RoPE key shared by all heads: ``(kv_lora_rank + qk_rope_head_dim)
    x layers x bytes`` (DeepSeek-AI 2024, arXiv:2405.04434, section 2.1 and Table 1: ``(d_c +
    d_h^R) l`` elements). DeepSeek-V3 in BF16: (512 + 64) x 61 x 2 = 70,272 bytes."""
    if arch.is_latent_attention:
        if arch.layers is None:
            return 0.0
        latent = (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)
        return float(arch.layers * latent) * KV_BYTES[kv_precision]
    kv_heads, head_dim = arch.resolved_kv_heads, arch.resolved_head_dim
    if arch.layers is None or kv_heads is None or head_dim is None:
        return 0.0
    return 2.0 * arch.layers * kv_heads * head_dim * KV_BYTES[kv_precision]


def default_intermediate_size(arch: Architecture) -> int:
    """MLP width when the architecture does not say: 4h for a plain MLP; 8h/3 for a gated MLP,
    which has the same parameter count (LLaMA, Touvron et al. 2023, arXiv:2302.13971, 2.2)."""
    hidden = arch.hidden_size or 0
    return 4 * hidden if arch.gated_mlp is False else round(8 * hidden / 3)


def lora_adapter_parameters(arch: Architecture, rank: int, base_parameters: float) -> float:
    """LoRA adapter parameters: ``r x (d + k)`` for every adapted ``d x k`` matrix (Hu et al.
    2021). Adapted, as QLoRA did (Dettmers et al. 2023, section 4): every linear layer of each
    transformer block: q, k, v and o projections and each MLP projection (3 for a gated MLP,
    2 for a plain one; every expert of a mixture of experts). Without a transformer
    architecture: ``LORA_FALLBACK_FRACTION_AT_RANK_16`` of the base, scaled with the rank."""
    if not arch.is_transformer:
        return base_parameters * LORA_FALLBACK_FRACTION_AT_RANK_16 * rank / 16
    hidden = arch.hidden_size or 0
    head_dim = arch.resolved_head_dim or 0
    q_out = (arch.attention_heads or 0) * head_dim
    kv_out = (arch.resolved_kv_heads or 0) * head_dim
    attention = (hidden + q_out) + 2 * (hidden + kv_out) + (q_out + hidden)
    intermediate = arch.intermediate_size or default_intermediate_size(arch)
    matrices = 2 if arch.gated_mlp is False else 3
    mlp = matrices * (hidden + intermediate) * (arch.experts or 1)
    return float(rank * (arch.layers or 0) * (attention + mlp))
