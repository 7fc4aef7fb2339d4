"""The workload's enums and frozen dataclasses: task, precision, training, inference, data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .registry import Architecture, ModelKind


class Task(StrEnum):
    INFERENCE = "inference"
    FINE_TUNING = "fine_tuning"
    PRETRAINING = "pretraining"


class Precision(StrEnum):
    """Number format of the weights. For training, ``bf16``/``fp16`` mean standard mixed
    precision: half-precision weights and gradients, fp32 master weights and optimizer states."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"


class TrainingMethod(StrEnum):
    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"


class Optimizer(StrEnum):
    ADAMW = "adamw"
    ADAMW_8BIT = "adamw_8bit"
    SGD = "sgd"  # with momentum


class Sharding(StrEnum):
    """How data-parallel GPUs share the model states (ZeRO stages, Rajbhandari et al. 2020)."""

    NONE = "none"  # plain data parallel: every GPU holds everything
    ZERO1 = "zero1"  # optimizer states partitioned
    ZERO2 = "zero2"  # + gradients partitioned
    ZERO3 = "zero3"  # + parameters partitioned (fully sharded, FSDP)


class DataKind(StrEnum):
    TEXT = "text"
    IMAGES = "images"
    DOCUMENTS = "documents"
    AUDIO = "audio"
    VIDEO = "video"


# Precisions a full training run can keep its weights in (int8/int4 weights cannot be trained
# directly; they serve inference or as the frozen base of LoRA/QLoRA).
TRAINABLE_PRECISIONS = frozenset({Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8})


@dataclass(frozen=True, slots=True)
class Training:
    """A training run.

    ``batch_size`` is the global batch: sequences (or samples) per optimizer step across all
    data-parallel GPUs. It is reached by gradient accumulation: each GPU holds one micro-batch
    at a time, ``micro_batch_size`` when given, else the largest power of two up to its share of
    the batch that fits its memory (the sizing chooses it and reports the accumulation steps).
    ``training_tokens`` is the total number of tokens processed (all epochs); when it is missing
    the tokens come from ``data`` and ``epochs``.
    """

    method: TrainingMethod = TrainingMethod.FULL
    lora_rank: int = 16
    optimizer: Optimizer = Optimizer.ADAMW
    batch_size: int = 8
    micro_batch_size: int | None = None
    sequence_length: int = 2048
    # Activation recomputation (Chen et al. 2016, arXiv:1604.06174): on by default, as in the
    # LoRA/QLoRA fine-tuning recipes (Dettmers et al. 2023, arXiv:2305.14314) and large-model
    # training stacks (Korthikanti et al. 2022, arXiv:2205.05198): far less memory for about a
    # third more compute. The wizard, the API, partner quotes and the staff builder all start here.
    gradient_checkpointing: bool = True
    # Fused attention (FlashAttention, Dao et al. 2022, arXiv:2205.14135) never stores the
    # s x s attention scores: the default in current PyTorch/Transformers training stacks.
    flash_attention: bool = True
    sharding: Sharding = Sharding.NONE
    gpus: int = 1
    training_tokens: int | None = None
    epochs: float = 1.0
    deadline_days: float | None = None


@dataclass(frozen=True, slots=True)
class Inference:
    """Serving. ``sequence_length`` is prompt + output tokens per request; ``kv_cache_precision``
    defaults to the model's 16-bit activations (FP32 for an FP32 model) whatever the weights'
    quantisation, as vLLM does (FP8 only when asked); ``target_tokens_per_second`` is the
    aggregate decode rate wanted over all requests."""

    concurrent_requests: int = 1
    sequence_length: int = 4096
    kv_cache_precision: Precision | None = None
    target_tokens_per_second: float | None = None


@dataclass(frozen=True, slots=True)
class Data:
    """The data set: its kind, how many items and/or how many GB (10^9 bytes)."""

    kind: DataKind = DataKind.TEXT
    items: int | None = None
    total_gb: float | None = None


@dataclass(frozen=True, slots=True)
class Workload:
    """One sizing request. Give either ``model`` (a registry id) or ``parameters_billions``
    (with an optional ``architecture`` and ``model_kind``). An explicit ``architecture``
    overrides the registry's field by field (fields left ``None`` keep the registry value).
    ``model_kind`` says what a custom-size model is (``None``: a decoder, a generative language
    model); a registry model has its own kind, which ``model_kind`` may only repeat.
    ``training`` / ``inference`` fall back to their defaults when missing; the one not matching
    ``task`` is ignored."""

    task: Task
    precision: Precision = Precision.BF16
    model: str | None = None
    parameters_billions: float | None = None
    architecture: Architecture | None = None
    training: Training | None = None
    inference: Inference | None = None
    data: Data | None = None
    model_kind: ModelKind | None = None

    @property
    def is_training(self) -> bool:
        return self.task is not Task.INFERENCE

    @property
    def training_or_default(self) -> Training:
        return self.training if self.training is not None else Training()

    @property
    def inference_or_default(self) -> Inference:
        return self.inference if self.inference is not None else Inference()

    @property
    def model_kind_or_default(self) -> ModelKind:
        """The kind given, else a decoder (a registry model's own kind is the registry's)."""
        return self.model_kind if self.model_kind is not None else ModelKind.DECODER
