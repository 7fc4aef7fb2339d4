"""How much GPU, memory, compute, storage and network a workload needs.

Pure arithmetic over ``Workload`` (see ``workload.py``) and the model registry; every figure is
returned with an ``Explanation`` (the numbers, in plain language, and the source of the formula).

Units: memory and storage in GB = 10^9 bytes (not GiB), memory bandwidth in GB/s, throughput in
MB/s = 10^6 bytes/s, compute in FLOPs (and TFLOP/s = 10^12 FLOP/s for GPUs), network in Gb/s.

Conventions, each with its source next to the constant or function that applies it:

* Training ``batch_size`` is the global batch; each data-parallel GPU holds ``ceil(batch/gpus)``.
* ``Sizing.memory_gb`` is the whole job as if one device held one copy of the model states, the
  whole batch's activations and every request's KV cache; ``memory_per_gpu_gb`` is what each GPU
  holds after ZeRO sharding (training) or tensor parallelism (inference of transformers).
  Non-transformer models (CNNs, diffusion UNets) are served by whole replicas instead.
* ``system_ram_gb`` and ``cpu_cores`` are per node (server); ``storage_gb`` and
  ``storage_read_mbs`` are for the whole job.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from .i18n import Message, gettext_noop
from .model_registry import Architecture, Modality, ModelEntry, all_models, get_model
from .workload import (
    LIMITS,
    DataKind,
    Optimizer,
    Precision,
    Sharding,
    Task,
    TrainingMethod,
    Workload,
    WorkloadError,
    validate_workload,
)

GB = 1e9
MB = 1e6

# --- Rules and assumptions (each in one named place, with its source). ---------------------------

# Fraction of a GPU's memory a job may plan to fill; the rest absorbs fragmentation and spikes.
# Same default as vLLM's ``gpu_memory_utilization`` (0.9), docs.vllm.ai engine arguments.
USABLE_MEMORY_FRACTION = 0.9
MAX_GPUS = 4096  # min_gpus gives up (returns None) beyond this many GPUs

# Model-FLOPs utilisation for training time. Llama 3 (arXiv:2407.21783, Table 4) reports 38-43%
# BF16 MFU on up to 16K H100; PaLM (arXiv:2204.02311, Table 3) 46.2%. MFU counts model FLOPs
# only, not recomputation (PaLM appendix B).
DEFAULT_MFU = 0.40
SOURCE_MFU = "Llama 3 Herd of Models, arXiv:2407.21783, Table 4 (38-43% BF16 MFU); PaLM app. B"
# Convolutional and diffusion models reach far less: NVIDIA DeepLearningExamples ResNet-50 v1.5
# trains 2,470 img/s on one A100 (mixed precision) x 3 x 8.18 GFLOPs = 60.6 TFLOP/s, 19% of the
# A100's 312 TFLOP/s. Used for models without a transformer architecture.
NON_TRANSFORMER_MFU = 0.20
SOURCE_MFU_CNN = (
    "NVIDIA DeepLearningExamples ResNet-50 v1.5 PyTorch: 2,470 img/s on one A100 80GB, mixed "
    "precision (about 19% of peak)"
)

# Runtime overhead per GPU: CUDA context, cuBLAS/cuDNN/NCCL workspaces and framework buffers.
# Engineering rule (PyTorch's CUDA context alone is several hundred MB; vLLM profiles the rest):
# a fixed 1 GB per GPU plus 10% of everything else on that GPU.
CUDA_CONTEXT_GB = 1.0
RUNTIME_OVERHEAD_FRACTION = 0.10
SOURCE_OVERHEAD = (
    "Stated rule: 1 GB CUDA context and libraries per GPU + 10% framework workspace "
    "(common practice; vLLM reserves memory the same way, docs.vllm.ai)"
)

# Bytes per weight by precision. int4 adds the block-wise quantisation constants of NF4 with
# double quantisation: 0.127 bits per parameter (QLoRA, Dettmers et al. 2023, section 3), close
# to GPTQ/AWQ group-128 fp16 scales (16/128 = 0.125 bits). int8 per-row scales are negligible.
INT4_CONSTANT_BITS = 0.127
WEIGHT_BYTES: MappingProxyType[Precision, float] = MappingProxyType(
    {
        Precision.FP32: 4.0,
        Precision.BF16: 2.0,
        Precision.FP16: 2.0,
        Precision.FP8: 1.0,
        Precision.INT8: 1.0,
        Precision.INT4: (4 + INT4_CONSTANT_BITS) / 8,
    }
)
# KV cache entries carry no per-block constants worth counting.
KV_BYTES: MappingProxyType[Precision, float] = MappingProxyType(
    {**WEIGHT_BYTES, Precision.INT4: 0.5}
)
SOURCE_QUANT = "Dettmers et al. 2023, QLoRA, arXiv:2305.14314, section 3 (NF4, double quantization)"

# Optimizer-state bytes per trained parameter. Mixed precision (bf16/fp16/fp8 weights): 2 bytes
# weights + 2 bytes gradients + K bytes of optimizer states that include the fp32 master copy.
# Adam: K = 12 (fp32 master 4 + momentum 4 + variance 4), ZeRO paper (Rajbhandari et al. 2020,
# arXiv:1910.02054, section 3.1). 8-bit Adam: 2 bytes of states (Dettmers et al. 2021,
# arXiv:2110.02861) + the 4-byte fp32 master = 6. SGD with momentum: 4 + 4 master = 8.
# Pure fp32 training keeps no extra master copy: 4 + 4 + (Adam 8, 8-bit Adam 2, SGD 4).
# FP8 training (Transformer Engine) keeps the same 16-bit weights and fp32 states: same bytes.
MIXED_PRECISION_OPTIMIZER_BYTES = MappingProxyType(
    {Optimizer.ADAMW: 12.0, Optimizer.ADAMW_8BIT: 6.0, Optimizer.SGD: 8.0}
)
FP32_OPTIMIZER_BYTES = MappingProxyType(
    {Optimizer.ADAMW: 8.0, Optimizer.ADAMW_8BIT: 2.0, Optimizer.SGD: 4.0}
)
SOURCE_ZERO = "Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, section 3.1 and Figure 1 (K=12)"
SOURCE_8BIT = "Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization, arXiv:2110.02861"

SOURCE_ACTIVATIONS = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
    "arXiv:2205.05198, sections 4-5 (eq. 1; full recomputation keeps 2sbh per layer)"
)
SOURCE_KV = (
    "KV cache = 2 x layers x kv_heads x head_dim x bytes per token; grouped-query attention: "
    "Ainslie et al. 2023, arXiv:2305.13245; sliding window: Jiang et al. 2023, arXiv:2310.06825"
)
SOURCE_LORA = "Hu et al. 2021, LoRA, arXiv:2106.09685 (r x (d + k) parameters per adapted d x k)"
SOURCE_FLOPS = (
    "Kaplan et al. 2020, arXiv:2001.08361, section 2.1: 6N FLOPs per token, forward 2N, "
    "backward 4N (input and weight gradients); LoRA skips frozen weight gradients (Hu et al. 2021)"
)
SOURCE_DECODE = (
    "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102: each decode "
    "step reads all (active) weights and the KV cache from memory"
)
SOURCE_NON_TRANSFORMER = "Per-sample estimate documented in the model registry entry (notes)"
SOURCE_RECOMPUTE_CNN = (
    "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost, arXiv:1604.06174 "
    "(checkpointing every sqrt(n) layers keeps about 2/sqrt(n) of the activations)"
)

# LoRA adapters when the architecture is unknown (non-transformer): 1% of the base parameters
# at rank 16, scaled with the rank. Stated assumption: typical LoRA files are 0.1-1% of the base.
LORA_FALLBACK_FRACTION_AT_RANK_16 = 0.01

# Checkpoints: full = weights + optimizer states (fp32 master included); LoRA = adapters + their
# optimizer states. Stated assumption: keep the last 3 (e.g. Hugging Face ``save_total_limit``).
KEEP_CHECKPOINTS = 3

# Text data: about 4 bytes of English text per token (OpenAI tokenizer guide: 1 token ~ 4
# characters). Used to turn ``data.total_gb`` of text into tokens.
BYTES_PER_TEXT_TOKEN = 4.0
SOURCE_TOKENS = "OpenAI tokenizer guide: one token is about 4 characters of English text"

# Stated assumptions per data kind.
TYPICAL_ITEM_BYTES = MappingProxyType(
    {
        DataKind.TEXT: 4_000,  # a page of text
        DataKind.DOCUMENTS: 1_000_000,  # a PDF/office file with some images
        DataKind.IMAGES: 110_000,  # ImageNet-1k train: ~138 GB / 1,281,167 JPEGs ~ 108 kB
        DataKind.AUDIO: 1_000_000,  # a minute of compressed audio
        DataKind.VIDEO: 50_000_000,  # a short clip
    }
)
# Sustained read per GPU to keep it fed. Images: NVIDIA DeepLearningExamples ResNet-50 v1.5
# trains 2,470 img/s on one A100 80GB (mixed precision) x ~108 kB per ImageNet JPEG = 270 MB/s.
# Text: an 8B model at 40% MFU on an H100 eats ~8k tokens/s = 33 kB/s; 5 MB/s leaves room for
# shuffled reads. Others are stated assumptions.
READ_MBS_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 5.0,
        DataKind.DOCUMENTS: 50.0,
        DataKind.IMAGES: 270.0,
        DataKind.AUDIO: 30.0,
        DataKind.VIDEO: 500.0,
    }
)
SOURCE_READ = (
    "Stated per-kind assumption; images from NVIDIA DeepLearningExamples ResNet-50 v1.5 "
    "(2,470 img/s per A100) x ImageNet's ~108 kB average JPEG"
)
# Cold start: load the served weights from local storage within a minute (stated assumption).
MODEL_LOAD_SECONDS = 60.0

# CPU cores per GPU: 4 for the training/serving process (launcher, NCCL, tokenisation) plus
# data-loading workers by kind (JPEG/video decode and augmentation are CPU-heavy). Stated.
CPU_CORES_PER_GPU = 4
DATA_CORES_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 0,
        DataKind.DOCUMENTS: 2,
        DataKind.IMAGES: 6,
        DataKind.AUDIO: 2,
        DataKind.VIDEO: 8,
    }
)
# System RAM per node (data side; the builder separately applies RAM >= 2 x VRAM): OS and
# services, 4 GB per GPU process (pinned buffers), data-loader buffers by kind, plus one copy of
# the weights in 16-bit for loading and checkpointing. Stated assumptions.
SYSTEM_BASE_RAM_GB = 16.0
PROCESS_RAM_GB_PER_GPU = 4.0
DATA_RAM_GB_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 2.0,
        DataKind.DOCUMENTS: 4.0,
        DataKind.IMAGES: 8.0,
        DataKind.AUDIO: 4.0,
        DataKind.VIDEO: 16.0,
    }
)

# Interconnect between nodes. NVIDIA's HGX/DGX H100 reference architectures give each GPU its
# own 400 Gb/s NIC on the compute fabric ("2-8-9-400"); Llama 3 trained on 400 Gb/s RoCE and
# InfiniBand. DGX A100 gives each GPU a 200 Gb/s HDR port. Rule: sharded models (ZeRO-3/FSDP)
# and pretraining need 400 Gb/s per GPU; data-parallel fine-tuning and multi-node inference
# (pipeline-parallel between nodes) 200 Gb/s per GPU.
FABRIC = "infiniband_or_roce"
GBPS_SHARDED_OR_PRETRAINING = 400
GBPS_DATA_PARALLEL = 200
GBPS_INFERENCE = 200
SOURCE_FABRIC = (
    "NVIDIA HGX AI Factory reference architecture (2-8-9-400: 400 Gb/s per GPU), "
    "docs.nvidia.com/enterprise-reference-architectures; DGX A100: 8 x 200 Gb/s HDR per node; "
    "Llama 3, arXiv:2407.21783, section 3.3.1 (400 Gb/s RoCE/InfiniBand)"
)

# Seed rule "24 GB+ per GPU for larger projects": a project is large when the whole job needs
# more than 16 GB (more than a 16 GB card can hold at the usable fraction) or the model has 7B+
# parameters.
LARGE_PROJECT_MEMORY_GB = 16.0
LARGE_PROJECT_PARAMETERS = 7e9
LARGE_PROJECT_GPU_MEMORY_GB = 24
SOURCE_LARGE = "GPUQuote seed rule: 24 GB+ per GPU for larger projects"


# --- Public dataclasses. ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuProfile:
    """A GPU as sizing sees it: memory in GB, bandwidth in GB/s, dense tensor TFLOP/s."""

    name: str
    memory_gb: float
    memory_bandwidth_gbs: float
    bf16_tflops: float
    fp8_tflops: float | None = None


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """GPU memory in GB (10^9 bytes); ``total`` is the sum of the other six."""

    weights: float
    gradients: float
    optimizer_states: float
    activations: float
    kv_cache: float
    overhead: float
    total: float


@dataclass(frozen=True, slots=True)
class Interconnect:
    fabric: str  # "infiniband_or_roce"
    gbps_per_gpu: int


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a figure is what it is: ``key`` names the figure (``"memory.kv_cache"``)."""

    key: str
    message: Message
    source: str


@dataclass(frozen=True, slots=True)
class Sizing:
    """The answer. GB = 10^9 bytes everywhere. See the module docstring for per-node fields."""

    memory_gb: MemoryBreakdown
    memory_per_gpu_gb: MemoryBreakdown
    gpus: int
    min_gpus: int | None  # for the GpuProfile given, else None
    training_flops: float | None
    forward_flops: float | None
    backward_flops: float | None
    training_hours: float | None  # on `gpus` x the GpuProfile given, at MFU
    tokens_per_second: float | None  # inference decode, per GPU group, bandwidth-bound
    system_ram_gb: float  # per node
    storage_gb: float
    storage_read_mbs: float
    cpu_cores: int  # per node
    nodes: int
    interconnect: Interconnect | None
    large_project: bool  # needs >= 24 GB per GPU class
    model_sharded: bool  # several GPUs hold parts of one model copy: needs NVLink
    explanations: tuple[Explanation, ...]
    fits: bool | None = None  # per-GPU total within the usable memory of the GpuProfile given
    gpus_for_deadline: int | None = None  # GPUs to finish within training.deadline_days
    gpus_for_target: int | None = None  # GPUs (whole replicas) for target_tokens_per_second
    mfu: float = DEFAULT_MFU


# --- Formulas (public so that tests and other engine modules can check them). ------------------


def model_state_bytes_per_parameter(
    precision: Precision, optimizer: Optimizer
) -> tuple[float, float, float]:
    """(weights, gradients, optimizer states) bytes per trained parameter. Mixed-precision Adam
    gives (2, 2, 12) = 16 bytes (ZeRO paper, K = 12); fp32 Adam (4, 4, 8)."""
    if precision is Precision.FP32:
        return 4.0, 4.0, FP32_OPTIMIZER_BYTES[optimizer]
    return 2.0, 2.0, MIXED_PRECISION_OPTIMIZER_BYTES[optimizer]


def zero_model_state_bytes_per_gpu(
    parameters: float, gpus: int, sharding: Sharding, *, k: float = 12.0
) -> float:
    """Model-state bytes per GPU under ZeRO with mixed-precision Adam (ZeRO paper, Figure 1):
    baseline (2 + 2 + K) x params; stage 1 divides the K bytes by the GPU count, stage 2 also
    the gradients, stage 3 also the weights."""
    weights, grads, states = 2.0 * parameters, 2.0 * parameters, k * parameters
    stage = _STAGE[sharding]
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
    token. Uses the KV heads (grouped-query attention), not the hidden size."""
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


# --- The plan: everything that does not depend on the GPU count, computed once per call. -------


@dataclass(frozen=True, slots=True)
class _Plan:
    training: bool
    weights: float  # bytes, whole job
    gradients: float
    optimizer_states: float
    activation_per_sample: float  # bytes per sequence/sample on one GPU
    batch: int  # global batch (training) or concurrent requests (inference)
    kv_cache: float  # bytes, all requests
    stage: int  # ZeRO stage (training)
    tensor_parallel: bool  # inference: split weights and KV; False: whole replicas

    def per_gpu(self, gpus: int, stage: int | None = None) -> tuple[float, ...]:
        """(weights, gradients, optimizer, activations, kv) bytes on one of ``gpus`` GPUs."""
        share = math.ceil(self.batch / gpus)
        if self.training:
            s = self.stage if stage is None else stage
            return (
                self.weights / gpus if s >= 3 else self.weights,
                self.gradients / gpus if s >= 2 else self.gradients,
                self.optimizer_states / gpus if s >= 1 else self.optimizer_states,
                self.activation_per_sample * share,
                0.0,
            )
        if self.tensor_parallel:
            return (
                self.weights / gpus,
                0.0,
                0.0,
                self.activation_per_sample * self.batch / gpus,
                self.kv_cache / gpus,
            )
        return (self.weights, 0.0, 0.0, self.activation_per_sample * share, 0.0)

    def total_per_gpu(self, gpus: int, stage: int | None = None) -> float:
        base = sum(self.per_gpu(gpus, stage))
        return base + CUDA_CONTEXT_GB * GB + RUNTIME_OVERHEAD_FRACTION * base


_STAGE = MappingProxyType(
    {Sharding.NONE: 0, Sharding.ZERO1: 1, Sharding.ZERO2: 2, Sharding.ZERO3: 3}
)


def _activation_precision_factor(precision: Precision) -> float:
    # Korthikanti's counts are for 16-bit activations; fp32 training stores 4-byte activations.
    return 2.0 if precision is Precision.FP32 else 1.0


def _transformer_training_activation_per_sequence(
    arch: Architecture,
    sequence_length: int,
    recompute: bool,
    precision: Precision,
    flash_attention: bool = True,
) -> float:
    layers, hidden, heads = arch.layers or 0, arch.hidden_size or 0, arch.attention_heads or 0
    k = arch.experts_per_token or 1
    scores = not flash_attention
    per_layer = activation_bytes_per_layer(
        sequence_length,
        1,
        hidden,
        heads,
        recompute=recompute,
        experts_per_token=k,
        attention_scores=scores,
    )
    total = layers * per_layer
    if recompute:
        # The layer being recomputed needs its full activations during its backward pass.
        total += activation_bytes_per_layer(
            sequence_length, 1, hidden, heads, experts_per_token=k, attention_scores=scores
        )
    # Embedding and output terms (Korthikanti et al. section 4): embedding dropout mask sbh,
    # final layer-norm input 2sbh, output-projection input 2sbh and fp32 logits 4sbv.
    total += 5.0 * sequence_length * hidden + 4.0 * sequence_length * (arch.vocab_size or 0)
    return total * _activation_precision_factor(precision)


def _plan(workload: Workload, model: _Model) -> _Plan:
    arch, precision = model.arch, workload.precision
    if workload.is_training:
        t = workload.training_or_default
        trained = model.parameters - model.frozen_parameters
        frozen_bytes = _weight_bytes(model, precision, model.frozen_parameters)
        if t.method is TrainingMethod.FULL:
            w, g, o = model_state_bytes_per_parameter(precision, t.optimizer)
            weights, grads, states = trained * w + frozen_bytes, trained * g, trained * o
        else:
            adapters = lora_adapter_parameters(arch, t.lora_rank, model.parameters)
            base_precision = Precision.INT4 if t.method is TrainingMethod.QLORA else precision
            adapter_precision = Precision.FP32 if precision is Precision.FP32 else Precision.BF16
            w, g, o = model_state_bytes_per_parameter(adapter_precision, t.optimizer)
            base = _weight_bytes(model, base_precision, model.parameters)
            weights, grads, states = base + adapters * w, adapters * g, adapters * o
        if arch.is_transformer:
            per_sample = _transformer_training_activation_per_sequence(
                arch, t.sequence_length, t.gradient_checkpointing, precision, t.flash_attention
            )
        else:
            elements = model.entry.activation_elements_per_sample if model.entry else None
            per_sample = (elements or 0) * 2.0 * _activation_precision_factor(precision)
            if t.gradient_checkpointing and arch.layers:
                per_sample *= min(1.0, 2.0 / math.sqrt(arch.layers))
        return _Plan(
            training=True,
            weights=weights,
            gradients=grads,
            optimizer_states=states,
            activation_per_sample=per_sample,
            batch=t.batch_size,
            kv_cache=0.0,
            stage=_STAGE[t.sharding],
            tensor_parallel=False,
        )
    inf = workload.inference_or_default
    weights = _weight_bytes(model, precision, model.parameters)
    kv = 0.0
    per_request = 0.0
    if model.autoregressive and arch.is_transformer:
        tokens = _kv_tokens(arch, inf.sequence_length)
        kv = kv_cache_bytes_per_token(arch, _kv_precision(workload)) * tokens
        kv *= inf.concurrent_requests
    elif arch.is_transformer:
        # Encoders keep no cache; one layer's activations are live at a time.
        per_request = activation_bytes_per_layer(
            inf.sequence_length, 1, arch.hidden_size or 0, arch.attention_heads or 0
        ) * _activation_precision_factor(precision)
    elif model.entry is not None:
        elements = model.entry.inference_activation_elements_per_sample or 0
        per_request = elements * 2.0 * _activation_precision_factor(precision)
    return _Plan(
        training=False,
        weights=weights,
        gradients=0.0,
        optimizer_states=0.0,
        activation_per_sample=per_request,
        batch=inf.concurrent_requests,
        kv_cache=kv,
        stage=0,
        tensor_parallel=arch.is_transformer,
    )


def _kv_tokens(arch: Architecture, sequence_length: int) -> int:
    if arch.sliding_window:
        return min(sequence_length, arch.sliding_window)
    return sequence_length


def _kv_precision(workload: Workload) -> Precision:
    return workload.inference_or_default.kv_cache_precision or workload.precision


def _breakdown(parts: tuple[float, ...]) -> MemoryBreakdown:
    """GB figures of one device's (weights, gradients, optimizer, activations, kv) bytes."""
    base = sum(parts)
    overhead = CUDA_CONTEXT_GB * GB + RUNTIME_OVERHEAD_FRACTION * base
    w, g, o, a, kv = (x / GB for x in parts)
    return MemoryBreakdown(w, g, o, a, kv, overhead / GB, (base + overhead) / GB)


# --- Minimum GPUs. ----------------------------------------------------------------------------


def _smallest_fitting(total: Callable[[int], float], usable_bytes: float) -> int | None:
    """Smallest n in [1, MAX_GPUS] with total(n) <= usable; total is non-increasing in n."""
    if total(MAX_GPUS) > usable_bytes:
        return None
    low, high = 1, MAX_GPUS
    while low < high:
        mid = (low + high) // 2
        if total(mid) <= usable_bytes:
            high = mid
        else:
            low = mid + 1
    return low


def _min_gpus_detail(plan: _Plan, usable_bytes: float) -> tuple[int | None, int]:
    """(GPU count, ZeRO stage it assumes). Training is sized with its own sharding unless
    ZeRO-3 (fully sharded) needs fewer GPUs, e.g. when plain data parallelism cannot hold the
    model states on one GPU at all; then ZeRO-3 is assumed."""
    if not plan.training:
        return _smallest_fitting(plan.total_per_gpu, usable_bytes), 0
    own = _smallest_fitting(lambda g: plan.total_per_gpu(g, plan.stage), usable_bytes)
    if plan.stage == 3 or own == 1:
        return own, plan.stage
    sharded = _smallest_fitting(lambda g: plan.total_per_gpu(g, 3), usable_bytes)
    if own is not None and (sharded is None or own <= sharded):
        return own, plan.stage
    return sharded, 3


def interconnect_gbps_per_gpu(workload: Workload, *, model_sharded: bool) -> int:
    """Gb/s of InfiniBand/RoCE per GPU between servers, should the job span several."""
    if not workload.is_training:
        return GBPS_INFERENCE
    if workload.task is Task.PRETRAINING or model_sharded:
        return GBPS_SHARDED_OR_PRETRAINING
    return GBPS_DATA_PARALLEL


def min_gpus(
    workload: Workload, *, gpu_memory_gb: float, usable_fraction: float = USABLE_MEMORY_FRACTION
) -> int | None:
    """Smallest number of GPUs of ``gpu_memory_gb`` (GB = 10^9 bytes) whose per-GPU total fits
    in ``usable_fraction`` of it; ``None`` when more than ``MAX_GPUS`` would be needed.
    Training that does not fit on one GPU with its own ``sharding`` (e.g. none) is sized with
    ZeRO-3 whenever that needs fewer GPUs; the explanation of ``size()`` says so."""
    validate_workload(workload)
    model = _resolve(workload.model, workload.parameters_billions, workload.architecture)
    plan = _plan(workload, model)
    return _min_gpus_detail(plan, usable_fraction * gpu_memory_gb * GB)[0]


# --- Reverse questions. -----------------------------------------------------------------------


def _largest_fitting(fits: Callable[[int], bool], high: int) -> int:
    """Largest n in [1, high] with fits(n) (fits is monotone: true then false); 0 if none."""
    if not fits(1):
        return 0
    if fits(high):
        return high
    low = 1
    while high - low > 1:
        mid = (low + high) // 2
        if fits(mid):
            low = mid
        else:
            high = mid
    return low


def _check_gpus(gpus: int | None) -> None:
    """The GPU count argument of the public functions, held to the workload's GPU range."""
    low, high = LIMITS["training.gpus"]
    if gpus is not None and not low <= gpus <= high:
        raise WorkloadError(
            {
                "gpus": [
                    Message(
                        gettext_noop("must be between %(min)s and %(max)s"),
                        {
                            "min": int(low),
                            "max": int(high),
                        },
                    )
                ]
            }
        )


def _inference_model(workload: Workload, gpus: int) -> _Model:
    _check_gpus(gpus)
    validate_workload(workload)
    if workload.is_training:
        raise WorkloadError(
            {"task": [Message(gettext_noop("this question is about inference workloads"))]}
        )
    return _resolve(workload.model, workload.parameters_billions, workload.architecture)


def max_context_length(workload: Workload, *, gpu: GpuProfile, gpus: int = 1) -> int:
    """Longest ``sequence_length`` (prompt + output tokens) that fits with the workload's
    ``concurrent_requests`` on ``gpus`` x ``gpu`` (tensor parallel), capped by the model's
    context length; 0 when even one token does not fit. Needs a model with a KV cache."""
    model = _inference_model(workload, gpus)
    if not (model.autoregressive and model.arch.is_transformer):
        raise WorkloadError(
            {"model": [Message(gettext_noop("has no token context to size (no KV cache)"))]}
        )
    usable = USABLE_MEMORY_FRACTION * gpu.memory_gb * GB
    inf = workload.inference_or_default
    cap = model.arch.context_length or int(LIMITS["inference.sequence_length"][1])
    base = _plan(workload, model)
    per_token = kv_cache_bytes_per_token(model.arch, _kv_precision(workload))

    def fits(tokens: int) -> bool:
        kv = per_token * _kv_tokens(model.arch, tokens) * inf.concurrent_requests
        plan = _Plan(False, base.weights, 0.0, 0.0, 0.0, inf.concurrent_requests, kv, 0, True)
        return plan.total_per_gpu(gpus) <= usable

    return _largest_fitting(fits, cap)


def max_concurrent_requests(workload: Workload, *, gpu: GpuProfile, gpus: int = 1) -> int:
    """Most concurrent requests of the workload's ``sequence_length`` that fit on ``gpus`` x
    ``gpu``; 0 when not even one fits."""
    model = _inference_model(workload, gpus)
    usable = USABLE_MEMORY_FRACTION * gpu.memory_gb * GB
    base = _plan(workload, model)
    inf = workload.inference_or_default
    kv_per_request = base.kv_cache / inf.concurrent_requests

    def fits(requests: int) -> bool:
        plan = _Plan(
            False,
            base.weights,
            0.0,
            0.0,
            base.activation_per_sample,
            requests,
            kv_per_request * requests,
            0,
            base.tensor_parallel,
        )
        return plan.total_per_gpu(gpus) <= usable

    return _largest_fitting(fits, int(LIMITS["inference.concurrent_requests"][1]))


# --- Compute. ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Compute:
    total: float
    forward: float
    backward: float
    tokens: float | None  # tokens (transformers) or samples (per-sample models)
    per_sample: bool


def _training_tokens(workload: Workload) -> float | None:
    t, data = workload.training_or_default, workload.data
    if t.training_tokens is not None:
        return float(t.training_tokens)
    if data is None:
        return None
    if data.kind is DataKind.TEXT and data.total_gb is not None:
        return data.total_gb * GB / BYTES_PER_TEXT_TOKEN * t.epochs
    if data.items is not None:
        return data.items * t.sequence_length * t.epochs
    return None


def _training_compute(workload: Workload, model: _Model) -> _Compute | None:
    t = workload.training_or_default
    lora = t.method is not TrainingMethod.FULL
    if model.arch.is_transformer:
        tokens = _training_tokens(workload)
        if tokens is None:
            return None
        active = model.active_parameters
        adapters = lora_adapter_parameters(model.arch, t.lora_rank, model.parameters) if lora else 0
        if lora:
            # Forward through base + adapters; backward computes input gradients everywhere
            # (2 FLOPs per weight per token) but weight gradients only for the adapters.
            forward = 2.0 * (active + adapters) * tokens
            backward = 2.0 * (active + adapters) * tokens + 2.0 * adapters * tokens
        else:
            forward = 2.0 * active * tokens
            backward = 4.0 * active * tokens
        return _Compute(forward + backward, forward, backward, tokens, per_sample=False)
    flops = model.entry.forward_flops_per_sample if model.entry else None
    data = workload.data
    if flops is None or data is None or data.items is None:
        return None
    samples = data.items * t.epochs
    forward = flops * samples
    backward = (1.0 if lora else 2.0) * flops * samples
    return _Compute(forward + backward, forward, backward, samples, per_sample=True)


def _peak_flops(gpu: GpuProfile, precision: Precision) -> float:
    if precision is Precision.FP8 and gpu.fp8_tflops:
        return gpu.fp8_tflops * 1e12
    if precision is Precision.FP32:
        # fp32 training runs on TF32 tensor cores at half the BF16 rate (A100/H100 datasheets).
        return gpu.bf16_tflops * 1e12 / 2
    return gpu.bf16_tflops * 1e12


def _decode_tokens_per_second(
    workload: Workload, model: _Model, plan: _Plan, gpu: GpuProfile, gpus: int
) -> tuple[float, float, float]:
    """(tokens/s, GB read per step, steps/s): roofline upper bound for one GPU group."""
    inf = workload.inference_or_default
    requests = inf.concurrent_requests
    bytes_per_weight = plan.weights / model.parameters
    read_params = model.active_parameters
    arch = model.arch
    if arch.is_moe and arch.experts and arch.experts_per_token:
        # Distinct experts touched per layer in one step, routing assumed uniform.
        e, k = arch.experts, arch.experts_per_token
        per_expert = (model.parameters - model.active_parameters) / (e - k) if e > k else 0.0
        shared = model.active_parameters - k * per_expert
        read_params = shared + per_expert * e * (1 - (1 - k / e) ** requests)
    step_bytes = read_params * bytes_per_weight + plan.kv_cache
    bandwidth = gpu.memory_bandwidth_gbs * GB * gpus
    steps = bandwidth / step_bytes
    compute_cap = _peak_flops(gpu, workload.precision) * gpus / (2.0 * model.active_parameters)
    return min(steps * requests, compute_cap), step_bytes / GB, steps


# --- Explanations. ----------------------------------------------------------------------------


def _r(x: float, digits: int = 2) -> float:
    return round(x, digits)


def _sig(x: float) -> float:
    """Three significant digits, still a number (the shell formats it for the locale)."""
    return float(f"{x:.3g}")


def _explain(
    out: list[Explanation], key: str, template: str, source: str, **params: object
) -> None:
    out.append(Explanation(key, Message(template, params), source))


# --- size(). ----------------------------------------------------------------------------------


def size(
    workload: Workload,
    *,
    gpus: int | None = None,
    gpu: GpuProfile | None = None,
    gpus_per_node: int = 8,
    mfu: float | None = None,
) -> Sizing:
    """Size ``workload``. ``gpus`` None: training uses ``workload.training.gpus``, inference the
    minimum that fits on ``gpu`` (or 1). ``mfu`` overrides the model-FLOPs utilisation used for
    training time (default ``DEFAULT_MFU`` for transformers, ``NON_TRANSFORMER_MFU`` otherwise).
    Memory in GB = 10^9 bytes."""
    _check_gpus(gpus)
    if gpus_per_node < 1:
        raise ValueError("gpus_per_node must be at least 1")
    validate_workload(workload)
    model = _resolve(workload.model, workload.parameters_billions, workload.architecture)
    plan = _plan(workload, model)
    training = workload.is_training
    t = workload.training_or_default
    inf = workload.inference_or_default
    ex: list[Explanation] = []
    usable = USABLE_MEMORY_FRACTION * gpu.memory_gb * GB if gpu else None

    min_n: int | None = None
    min_stage = plan.stage
    if usable is not None:
        min_n, min_stage = _min_gpus_detail(plan, usable)
    if gpus is None:
        gpus = t.gpus if training else (min_n or 1)

    whole = _breakdown(plan.per_gpu(1))
    per_gpu = _breakdown(plan.per_gpu(gpus))
    fits = None if usable is None else per_gpu.total * GB <= usable

    _explain_model(ex, workload, model)
    _explain_memory(ex, workload, model, plan, whole, per_gpu, gpus)

    model_sharded = False
    if training:
        model_sharded = plan.stage == 3 and gpus > 1
        if min_n is not None and min_n > 1 and min_stage == 3 and plan.stage < 3:
            model_sharded = True
    else:
        model_sharded = plan.tensor_parallel and gpus > 1

    if gpu is not None:
        _explain_fit(ex, workload, plan, per_gpu, gpu, gpus, min_n, min_stage, fits)

    # Compute and time.
    compute = _training_compute(workload, model) if training else None
    hours = gpus_for_deadline = None
    if training:
        _explain_compute(ex, workload, model, compute)
    if mfu is None:
        mfu = DEFAULT_MFU if model.arch.is_transformer else NON_TRANSFORMER_MFU
    mfu_source = SOURCE_MFU if model.arch.is_transformer else SOURCE_MFU_CNN
    if compute is not None and gpu is not None:
        peak = _peak_flops(gpu, workload.precision)
        recompute = compute.forward if t.gradient_checkpointing else 0.0
        seconds_one_gpu = (compute.total + recompute) / (peak * mfu)
        hours = seconds_one_gpu / gpus / 3600
        _explain(
            ex,
            "training_hours",
            gettext_noop(
                "%(hours)s hours on %(gpus)s x %(gpu)s: %(flops)s FLOPs, including one more "
                "forward pass for recomputation, at %(mfu)s%% of %(tflops)s TFLOP/s per GPU"
            )
            if recompute
            else gettext_noop(
                "%(hours)s hours on %(gpus)s x %(gpu)s: %(flops)s FLOPs at %(mfu)s%% of "
                "%(tflops)s TFLOP/s per GPU"
            ),
            mfu_source,
            hours=_sig(hours),
            gpus=gpus,
            gpu=gpu.name,
            flops=_sig(compute.total + recompute),
            mfu=_r(mfu * 100, 1),
            tflops=_r(peak / 1e12, 1),
        )
        if t.deadline_days is not None:
            gpus_for_deadline = math.ceil(seconds_one_gpu / (t.deadline_days * 86400))
            _explain(
                ex,
                "gpus_for_deadline",
                gettext_noop(
                    "%(n)s x %(gpu)s finish within %(days)s days (%(gpu_hours)s GPU-hours, "
                    "assuming linear scaling)"
                ),
                mfu_source,
                n=gpus_for_deadline,
                gpu=gpu.name,
                days=t.deadline_days,
                gpu_hours=_sig(seconds_one_gpu / 3600),
            )

    tokens_per_second = gpus_for_target = None
    if not training and model.autoregressive and model.arch.is_transformer and gpu is not None:
        tokens_per_second, step_gb, _ = _decode_tokens_per_second(workload, model, plan, gpu, gpus)
        _explain(
            ex,
            "tokens_per_second",
            gettext_noop(
                "%(tps)s tokens/s at most: each decode step reads %(step_gb)s GB (the weights "
                "of the experts in use + KV cache) at %(bandwidth)s GB/s x %(gpus)s GPUs and "
                "yields one token for each of %(requests)s requests"
            )
            if model.arch.is_moe
            else gettext_noop(
                "%(tps)s tokens/s at most: each decode step reads %(step_gb)s GB (weights + KV "
                "cache) at %(bandwidth)s GB/s x %(gpus)s GPUs and yields one token for each of "
                "%(requests)s requests"
            ),
            SOURCE_DECODE,
            tps=_r(tokens_per_second, 1),
            step_gb=_r(step_gb, 2),
            bandwidth=gpu.memory_bandwidth_gbs,
            gpus=gpus,
            requests=inf.concurrent_requests,
        )
        if inf.target_tokens_per_second is not None and tokens_per_second > 0:
            replicas = math.ceil(inf.target_tokens_per_second / tokens_per_second)
            gpus_for_target = replicas * gpus
            _explain(
                ex,
                "gpus_for_target",
                gettext_noop(
                    "%(gpus_total)s GPUs (%(replicas)s copies of %(gpus)s GPUs) reach "
                    "%(target)s tokens/s"
                ),
                SOURCE_DECODE,
                gpus_total=gpus_for_target,
                replicas=replicas,
                gpus=gpus,
                target=inf.target_tokens_per_second,
            )

    # Nodes and network.
    nodes = math.ceil(gpus / gpus_per_node)
    gpus_in_node = min(gpus, gpus_per_node)
    interconnect = None
    if nodes > 1:
        gbps = interconnect_gbps_per_gpu(workload, model_sharded=model_sharded)
        interconnect = Interconnect(FABRIC, gbps)
        _explain(
            ex,
            "interconnect",
            gettext_noop(
                "%(nodes)s nodes of up to %(per_node)s GPUs: %(gbps)s Gb/s per GPU of "
                "InfiniBand or RoCE between nodes"
            ),
            SOURCE_FABRIC,
            nodes=nodes,
            per_node=gpus_per_node,
            gbps=gbps,
        )
    else:
        _explain(
            ex,
            "nodes",
            gettext_noop("%(gpus)s GPUs fit in one server of up to %(per_node)s GPUs"),
            SOURCE_FABRIC,
            gpus=gpus,
            per_node=gpus_per_node,
        )
    if model_sharded:
        _explain(
            ex,
            "model_sharded",
            gettext_noop(
                "several GPUs hold parts of one model copy: they exchange activations or "
                "weights every step and need NVLink between them"
            ),
            SOURCE_ZERO if training else SOURCE_DECODE,
        )

    large = whole.total > LARGE_PROJECT_MEMORY_GB or model.parameters >= LARGE_PROJECT_PARAMETERS
    _explain(
        ex,
        "large_project",
        gettext_noop(
            "large project (24 GB+ GPUs): the job needs %(gb)s GB and the model has "
            "%(params)s parameters (thresholds: more than %(limit_gb)s GB or %(limit_b)s "
            "billion parameters)"
        )
        if large
        else gettext_noop(
            "small project: %(gb)s GB and %(params)s parameters stay under %(limit_gb)s GB and "
            "%(limit_b)s billion parameters"
        ),
        SOURCE_LARGE,
        gb=_r(whole.total),
        params=int(model.parameters),
        limit_gb=LARGE_PROJECT_MEMORY_GB,
        limit_b=LARGE_PROJECT_PARAMETERS / 1e9,
    )

    ram, storage, read, cores = _system_side(
        ex, workload, model, plan, whole, gpus, gpus_in_node, model_sharded, hours, compute
    )

    return Sizing(
        memory_gb=whole,
        memory_per_gpu_gb=per_gpu,
        gpus=gpus,
        min_gpus=min_n,
        training_flops=compute.total if compute else None,
        forward_flops=compute.forward if compute else None,
        backward_flops=compute.backward if compute else None,
        training_hours=hours,
        tokens_per_second=tokens_per_second,
        system_ram_gb=ram,
        storage_gb=storage,
        storage_read_mbs=read,
        cpu_cores=cores,
        nodes=nodes,
        interconnect=interconnect,
        large_project=large,
        model_sharded=model_sharded,
        explanations=tuple(ex),
        fits=fits,
        gpus_for_deadline=gpus_for_deadline,
        gpus_for_target=gpus_for_target,
        mfu=mfu,
    )


def _explain_model(ex: list[Explanation], workload: Workload, model: _Model) -> None:
    if model.reference is not None:
        _explain(
            ex,
            "model",
            gettext_noop(
                "no architecture given: layer shapes (KV cache, activations, adapters) are "
                "assumed like %(reference)s, the registry model closest in size; give "
                "architecture for exact figures"
            ),
            "GPUQuote model registry",
            reference=model.reference,
        )
    elif model.entry is not None:
        _explain(
            ex,
            "model",
            gettext_noop("%(name)s: %(params)s parameters, %(active)s used per token")
            if model.active_parameters != model.parameters
            else gettext_noop("%(name)s: %(params)s parameters"),
            model.entry.sources[0],
            name=model.name,
            params=int(model.parameters),
            active=int(model.active_parameters),
        )


def _explain_memory(
    ex: list[Explanation],
    workload: Workload,
    model: _Model,
    plan: _Plan,
    whole: MemoryBreakdown,
    per_gpu: MemoryBreakdown,
    gpus: int,
) -> None:
    precision = workload.precision
    t = workload.training_or_default
    arch = model.arch
    training = workload.is_training
    if training and t.method is not TrainingMethod.FULL:
        adapters = lora_adapter_parameters(arch, t.lora_rank, model.parameters)
        base_precision = Precision.INT4 if t.method is TrainingMethod.QLORA else precision
        _explain(
            ex,
            "memory.weights",
            gettext_noop(
                "%(gb)s GB: frozen base of %(params)s parameters at %(precision)s "
                "(%(bytes)s bytes each) plus %(adapters)s rank-%(rank)s LoRA adapter parameters "
                "on every attention and MLP projection"
            ),
            SOURCE_QUANT if base_precision is Precision.INT4 else SOURCE_LORA,
            gb=_r(whole.weights),
            params=int(model.parameters),
            precision="NF4" if t.method is TrainingMethod.QLORA else precision.value,
            bytes=_r(WEIGHT_BYTES[base_precision], 4),
            adapters=int(adapters),
            rank=t.lora_rank,
        )
        trained = adapters
    else:
        trained = model.parameters - model.frozen_parameters
        if training:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters, %(bytes)s bytes each for the %(precision)s "
                "training copy (%(frozen)s of them frozen)"
            )
        elif WEIGHT_BYTES[precision] < 2:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters at %(precision)s (%(bytes)s bytes each); the "
                "embedding and output head stay 16-bit"
            )
        else:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters at %(precision)s (%(bytes)s bytes each)"
            )
        _explain(
            ex,
            "memory.weights",
            template,
            SOURCE_ZERO if training else SOURCE_QUANT,
            gb=_r(whole.weights),
            params=int(model.parameters),
            precision=precision.value,
            bytes=(
                model_state_bytes_per_parameter(precision, t.optimizer)[0]
                if training
                else _r(WEIGHT_BYTES[precision], 4)
            ),
            frozen=int(model.frozen_parameters),
        )
    if training:
        _, g, o = model_state_bytes_per_parameter(
            Precision.FP32 if precision is Precision.FP32 else Precision.BF16, t.optimizer
        )
        _explain(
            ex,
            "memory.gradients",
            gettext_noop("%(gb)s GB: %(bytes)s bytes per trained parameter (%(trained)s trained)"),
            SOURCE_ZERO,
            gb=_r(whole.gradients),
            bytes=g,
            trained=int(trained),
        )
        _explain(
            ex,
            "memory.optimizer_states",
            gettext_noop(
                "%(gb)s GB: %(optimizer)s keeps %(bytes)s bytes per trained parameter "
                "(fp32 master weights included in mixed precision)"
            ),
            SOURCE_8BIT if t.optimizer is Optimizer.ADAMW_8BIT else SOURCE_ZERO,
            gb=_r(whole.optimizer_states),
            optimizer=t.optimizer.value,
            bytes=o,
        )
        if arch.is_transformer:
            per_layer = activation_bytes_per_layer(
                t.sequence_length,
                1,
                arch.hidden_size or 0,
                arch.attention_heads or 0,
                recompute=t.gradient_checkpointing,
                experts_per_token=arch.experts_per_token or 1,
                attention_scores=not t.flash_attention,
            )
            _explain(
                ex,
                "memory.activations",
                gettext_noop(
                    "%(gb)s GB for %(batch)s sequences of %(tokens)s tokens: with gradient "
                    "checkpointing each layer keeps only its input, %(per_layer_mb)s MB per "
                    "sequence x %(layers)s layers, plus one layer being recomputed and the "
                    "embedding and output terms; %(per_gpu)s sequences per GPU"
                )
                if t.gradient_checkpointing
                else gettext_noop(
                    "%(gb)s GB for %(batch)s sequences of %(tokens)s tokens: %(per_layer_mb)s "
                    "MB per sequence per layer x %(layers)s layers, plus embedding and output "
                    "terms; %(per_gpu)s sequences per GPU"
                ),
                SOURCE_ACTIVATIONS,
                gb=_r(whole.activations),
                batch=t.batch_size,
                tokens=t.sequence_length,
                per_layer_mb=_r(per_layer / MB, 1),
                layers=arch.layers,
                per_gpu=math.ceil(t.batch_size / gpus),
            )
        else:
            _explain(
                ex,
                "memory.activations",
                gettext_noop(
                    "%(gb)s GB: %(per_sample_mb)s MB per sample x %(batch)s samples (registry "
                    "estimate, reduced to 2/sqrt(layers) by gradient checkpointing)"
                )
                if t.gradient_checkpointing
                else gettext_noop(
                    "%(gb)s GB: %(per_sample_mb)s MB per sample x %(batch)s samples (registry "
                    "estimate)"
                ),
                SOURCE_RECOMPUTE_CNN if t.gradient_checkpointing else SOURCE_NON_TRANSFORMER,
                gb=_r(whole.activations),
                per_sample_mb=_r(plan.activation_per_sample / MB, 1),
                batch=t.batch_size,
            )
    else:
        inf = workload.inference_or_default
        _explain(
            ex,
            "memory.gradients",
            gettext_noop("no gradients or optimizer states at inference"),
            SOURCE_ZERO,
        )
        if plan.kv_cache:
            per_token = kv_cache_bytes_per_token(arch, _kv_precision(workload))
            tokens = _kv_tokens(arch, inf.sequence_length)
            _explain(
                ex,
                "memory.kv_cache",
                gettext_noop(
                    "%(gb)s GB: 2 x %(layers)s layers x %(kv_heads)s KV heads x %(head_dim)s x "
                    "%(bytes)s bytes = %(per_token)s bytes per token, x %(tokens)s tokens (the "
                    "sliding window) x %(requests)s requests"
                )
                if tokens < inf.sequence_length
                else gettext_noop(
                    "%(gb)s GB: 2 x %(layers)s layers x %(kv_heads)s KV heads x %(head_dim)s x "
                    "%(bytes)s bytes = %(per_token)s bytes per token, x %(tokens)s tokens x "
                    "%(requests)s requests"
                ),
                SOURCE_KV,
                gb=_r(whole.kv_cache),
                layers=arch.layers,
                kv_heads=arch.resolved_kv_heads,
                head_dim=arch.resolved_head_dim,
                bytes=KV_BYTES[_kv_precision(workload)],
                per_token=int(per_token),
                tokens=tokens,
                requests=inf.concurrent_requests,
            )
        else:
            _explain(
                ex,
                "memory.kv_cache",
                gettext_noop("no KV cache: this model does not generate token by token"),
                SOURCE_KV,
            )
        _explain(
            ex,
            "memory.activations",
            gettext_noop(
                "%(gb)s GB of activations for %(requests)s requests (decode workspace of "
                "generative models is in the overhead)"
            ),
            SOURCE_NON_TRANSFORMER if not arch.is_transformer else SOURCE_ACTIVATIONS,
            gb=_r(whole.activations),
            requests=inf.concurrent_requests,
        )
    _explain(
        ex,
        "memory.overhead",
        gettext_noop(
            "%(gb)s GB per GPU: %(fixed)s GB CUDA context and libraries + %(percent)s%% "
            "framework workspace"
        ),
        SOURCE_OVERHEAD,
        gb=_r(per_gpu.overhead),
        fixed=CUDA_CONTEXT_GB,
        percent=int(RUNTIME_OVERHEAD_FRACTION * 100),
    )
    _explain(
        ex,
        "memory.total",
        gettext_noop(
            "%(gb)s GB for the whole job, as if one device held one copy of the model and the "
            "whole batch"
        ),
        SOURCE_ZERO if training else SOURCE_KV,
        gb=_r(whole.total),
    )
    if training:
        templates = {
            0: gettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPUs: plain data parallel, every GPU holds all "
                "model states and its share of the batch"
            ),
            1: gettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 1 splits the optimizer states"
            ),
            2: gettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 2 splits optimizer states and "
                "gradients"
            ),
            3: gettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 3 (fully sharded) splits "
                "optimizer states, gradients and weights"
            ),
        }
        template = templates[plan.stage]
    elif plan.tensor_parallel:
        template = gettext_noop(
            "%(gb)s GB per GPU on %(gpus)s GPUs: tensor parallelism splits weights and KV cache"
        )
    else:
        template = gettext_noop(
            "%(gb)s GB per GPU on %(gpus)s GPUs: each GPU runs a whole copy on its share of "
            "the requests"
        )
    _explain(ex, "memory_per_gpu.total", template, SOURCE_ZERO, gb=_r(per_gpu.total), gpus=gpus)


def _explain_fit(
    ex: list[Explanation],
    workload: Workload,
    plan: _Plan,
    per_gpu: MemoryBreakdown,
    gpu: GpuProfile,
    gpus: int,
    min_n: int | None,
    min_stage: int,
    fits: bool | None,
) -> None:
    usable_gb = USABLE_MEMORY_FRACTION * gpu.memory_gb
    _explain(
        ex,
        "fits",
        gettext_noop(
            "%(need)s GB per GPU fits in %(usable)s GB usable (%(percent)s%% of %(mem)s GB)"
        )
        if fits
        else gettext_noop(
            "%(need)s GB per GPU does not fit in %(usable)s GB usable (%(percent)s%% of %(mem)s GB)"
        ),
        "vLLM engine arguments, gpu_memory_utilization default 0.9 (docs.vllm.ai)",
        need=_r(per_gpu.total),
        usable=_r(usable_gb),
        percent=int(USABLE_MEMORY_FRACTION * 100),
        mem=gpu.memory_gb,
    )
    if min_n is None:
        _explain(
            ex,
            "min_gpus",
            gettext_noop("does not fit on %(max)s x %(gpu)s or fewer"),
            SOURCE_ZERO,
            max=MAX_GPUS,
            gpu=gpu.name,
        )
    elif plan.training and min_stage == 3 and plan.stage < 3 and min_n > 1:
        _explain(
            ex,
            "min_gpus",
            gettext_noop(
                "at least %(n)s x %(gpu)s, assuming ZeRO-3 / FSDP (fully sharded): with the "
                "chosen sharding the model states do not fit on one GPU"
            ),
            SOURCE_ZERO,
            n=min_n,
            gpu=gpu.name,
        )
    else:
        _explain(
            ex,
            "min_gpus",
            gettext_noop("at least %(n)s x %(gpu)s (%(mem)s GB each)"),
            SOURCE_ZERO,
            n=min_n,
            gpu=gpu.name,
            mem=gpu.memory_gb,
        )


def _explain_compute(
    ex: list[Explanation], workload: Workload, model: _Model, compute: _Compute | None
) -> None:
    if compute is None:
        _explain(
            ex,
            "training_flops",
            gettext_noop(
                "compute not estimated: give training_tokens or the data size (and for "
                "image models, a registry model with a per-image FLOP count)"
            ),
            SOURCE_FLOPS,
        )
        return
    if compute.per_sample:
        _explain(
            ex,
            "training_flops",
            gettext_noop(
                "%(flops)s FLOPs: %(samples)s samples x %(per_sample)s forward FLOPs, forward "
                "%(fwd)s + backward %(bwd)s"
            ),
            SOURCE_FLOPS,
            flops=_sig(compute.total),
            samples=int(compute.tokens or 0),
            per_sample=_sig(compute.forward / (compute.tokens or 1)),
            fwd=_sig(compute.forward),
            bwd=_sig(compute.backward),
        )
        return
    lora = workload.training_or_default.method is not TrainingMethod.FULL
    _explain(
        ex,
        "training_flops",
        gettext_noop(
            "%(flops)s FLOPs for %(tokens)s tokens and %(params)s parameters used per token: "
            "forward %(fwd)s (2ND), backward %(bwd)s (input gradients 2ND; weight gradients "
            "only for the %(adapters)s adapter parameters)"
        )
        if lora
        else gettext_noop(
            "%(flops)s FLOPs = 6ND for %(tokens)s tokens and %(params)s parameters used per "
            "token: forward %(fwd)s (2ND), backward %(bwd)s (4ND)"
        ),
        SOURCE_FLOPS,
        flops=_sig(compute.total),
        tokens=_sig(compute.tokens or 0),
        params=int(model.active_parameters),
        fwd=_sig(compute.forward),
        bwd=_sig(compute.backward),
        adapters=int(
            lora_adapter_parameters(
                model.arch, workload.training_or_default.lora_rank, model.parameters
            )
        )
        if lora
        else 0,
    )


def _system_side(
    ex: list[Explanation],
    workload: Workload,
    model: _Model,
    plan: _Plan,
    whole: MemoryBreakdown,
    gpus: int,
    gpus_in_node: int,
    model_sharded: bool,
    hours: float | None,
    compute: _Compute | None,
) -> tuple[float, float, float, int]:
    data = workload.data
    kind = data.kind if data is not None else None
    training = workload.is_training
    t = workload.training_or_default

    # Dataset size.
    dataset_gb = 0.0
    if data is not None:
        if data.total_gb is not None:
            dataset_gb = data.total_gb
        elif data.items is not None:
            dataset_gb = data.items * TYPICAL_ITEM_BYTES[data.kind] / GB

    # Storage: dataset + model files + checkpoints.
    weights16_gb = model.parameters * 2.0 / GB
    if training:
        if t.method is TrainingMethod.FULL:
            checkpoint_gb = whole.weights + whole.optimizer_states
        else:
            adapters = lora_adapter_parameters(model.arch, t.lora_rank, model.parameters)
            checkpoint_gb = adapters * 2.0 / GB + whole.optimizer_states
        base_gb = weights16_gb if workload.task is Task.FINE_TUNING else 0.0
        storage = dataset_gb + base_gb + KEEP_CHECKPOINTS * checkpoint_gb
        _explain(
            ex,
            "storage_gb",
            gettext_noop(
                "%(gb)s GB: data %(data_gb)s GB + base model %(base_gb)s GB + %(keep)s "
                "checkpoints of %(ckpt_gb)s GB (weights + optimizer states)"
            ),
            SOURCE_ZERO,
            gb=_r(storage),
            data_gb=_r(dataset_gb),
            base_gb=_r(base_gb),
            keep=KEEP_CHECKPOINTS,
            ckpt_gb=_r(checkpoint_gb),
        )
    else:
        storage = dataset_gb + whole.weights
        _explain(
            ex,
            "storage_gb",
            gettext_noop("%(gb)s GB: model files %(model_gb)s GB + data %(data_gb)s GB"),
            SOURCE_QUANT,
            gb=_r(storage),
            model_gb=_r(whole.weights),
            data_gb=_r(dataset_gb),
        )

    # Read throughput.
    read = READ_MBS_PER_GPU[kind] * gpus if kind is not None else 0.0
    if training and hours and dataset_gb:
        read = max(read, dataset_gb * GB * t.epochs / (hours * 3600) / MB)
    if not training:
        read = max(read, whole.weights * GB / MODEL_LOAD_SECONDS / MB)
    _explain(
        ex,
        "storage_read_mbs",
        gettext_noop(
            "%(mbs)s MB/s: the most of %(per_gpu)s MB/s per GPU for %(kind)s data x %(gpus)s "
            "GPUs, reading the data set once per epoch in the training time, and at inference "
            "loading the weights within %(load_s)s s"
        )
        if kind is not None
        else gettext_noop(
            "%(mbs)s MB/s: no data set given; at inference, loading the weights within %(load_s)s s"
        ),
        SOURCE_READ,
        mbs=_r(read, 0),
        per_gpu=READ_MBS_PER_GPU[kind] if kind is not None else 0,
        kind=kind.value if kind is not None else "",
        gpus=gpus,
        load_s=int(MODEL_LOAD_SECONDS),
    )

    # CPU cores per node.
    per_gpu_cores = CPU_CORES_PER_GPU + (DATA_CORES_PER_GPU[kind] if kind is not None else 0)
    cores = per_gpu_cores * gpus_in_node
    _explain(
        ex,
        "cpu_cores",
        gettext_noop(
            "%(cores)s cores per node: %(gpus)s GPUs x (%(base)s for the process + %(data)s "
            "for loading %(kind)s data)"
        )
        if kind is not None
        else gettext_noop("%(cores)s cores per node: %(gpus)s GPUs x %(base)s for the process"),
        "Stated rule (GPUQuote sizing)",
        cores=cores,
        base=CPU_CORES_PER_GPU,
        data=DATA_CORES_PER_GPU[kind] if kind is not None else 0,
        kind=kind.value if kind is not None else "",
        gpus=gpus_in_node,
    )

    # System RAM per node.
    group = gpus if model_sharded else 1
    weights_share_gb = weights16_gb * min(1.0, gpus_in_node / group)
    loader = DATA_RAM_GB_PER_GPU[kind] if kind is not None else 0.0
    ram = SYSTEM_BASE_RAM_GB + gpus_in_node * (PROCESS_RAM_GB_PER_GPU + loader) + weights_share_gb
    _explain(
        ex,
        "system_ram_gb",
        gettext_noop(
            "%(gb)s GB per node (data side): %(base)s GB system + %(gpus)s GPUs x "
            "(%(process)s GB process + %(loader)s GB data buffers) + %(weights)s GB of 16-bit "
            "weights for loading and checkpoints"
        ),
        "Stated rule (GPUQuote sizing); the builder also applies RAM >= 2 x VRAM",
        gb=_r(ram, 1),
        base=SYSTEM_BASE_RAM_GB,
        gpus=gpus_in_node,
        process=PROCESS_RAM_GB_PER_GPU,
        loader=loader,
        weights=_r(weights_share_gb, 1),
    )
    return ram, storage, read, cores
