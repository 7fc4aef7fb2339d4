"""The public dataclasses of sizing: what a GPU is to it and what it answers."""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import Message
from .constants import DEFAULT_MFU, SOURCE_MFU

# --- Public dataclasses. ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuProfile:
    """A GPU as sizing sees it: memory in GB, bandwidth in GB/s, dense tensor TFLOP/s."""

    name: str
    memory_gb: float
    memory_bandwidth_gbs: float
    bf16_tflops: float
    fp8_tflops: float | None = None
    # The share of peak a transformer's training reaches on this GPU, with its source (the GPU
    # model's record: ``engine.assumptions.gpu_models``).
    training_mfu: float = DEFAULT_MFU
    training_mfu_source: str = SOURCE_MFU
    # FP8 training: the share of the FP8 peak (None: ``training_mfu`` of the FP8 peak).
    training_mfu_fp8: float | None = None
    training_mfu_fp8_source: str = SOURCE_MFU


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
    # Inference: GPUs holding one copy of the model (tensor x pipeline parallel); ``gpus`` is a
    # whole number of copies. 1: each GPU holds a whole copy, and in training.
    replica_gpus: int = 1
    # Serving a diffusion or vision model: images per second on ``gpus`` x the GpuProfile given
    # (compute-bound); None otherwise.
    images_per_second: float | None = None
    # Training (None at inference): samples each GPU holds at a time, the micro-batches it runs
    # per optimizer step to make the global batch, the data-parallel GPUs, and the sharding of
    # the model states the per-GPU figures assume (a ``Sharding`` value, e.g. "zero3").
    # Sources: ``SOURCE_MICRO_BATCH`` and ``SOURCE_SHARDING``.
    micro_batch: int | None = None
    accumulation_steps: int | None = None
    data_parallel: int | None = None
    sharding: str | None = None
