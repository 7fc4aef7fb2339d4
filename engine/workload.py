"""What the customer wants to run: the sizing engine's input dataclasses, enums and validation.

The JSON names of ``workload_from_dict`` are an API contract shared with the REST API and the
wizard forms: ``task``, ``model`` / ``parameters_billions`` / ``architecture``, ``precision``,
``training``, ``inference`` and ``data``. Allowed ranges live in one place, ``LIMITS``, keyed by
field path; the DRF serializers and forms reuse it. A bad workload raises ``WorkloadError`` with
every bad field at once, each with translatable messages.

Units: ``data.total_gb`` is in GB (10^9 bytes); sequence lengths and ``training_tokens`` are
tokens; ``deadline_days`` are calendar days of wall-clock time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from .i18n import Message, gettext_noop
from .model_registry import ARCHITECTURE_FIELDS, Architecture, get_model, model_ids

__all__ = [
    "LIMITS",
    "Architecture",
    "Data",
    "DataKind",
    "Inference",
    "Optimizer",
    "Precision",
    "Sharding",
    "Task",
    "Training",
    "TrainingMethod",
    "Workload",
    "WorkloadError",
    "validate_workload",
    "workload_from_dict",
]


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
    ``gpus`` data-parallel GPUs, no gradient accumulation; each GPU holds ``ceil(batch/gpus)``.
    ``training_tokens`` is the total number of tokens processed (all epochs); when it is missing
    the tokens come from ``data`` and ``epochs``.
    """

    method: TrainingMethod = TrainingMethod.FULL
    lora_rank: int = 16
    optimizer: Optimizer = Optimizer.ADAMW
    batch_size: int = 8
    sequence_length: int = 2048
    gradient_checkpointing: bool = False
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
    defaults to the weights' precision; ``target_tokens_per_second`` is the aggregate decode rate
    wanted over all requests."""

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
    (with an optional ``architecture``). An explicit ``architecture`` overrides the registry's
    field by field (fields left ``None`` keep the registry value). ``training`` / ``inference``
    fall back to their defaults when missing; the one not matching ``task`` is ignored."""

    task: Task
    precision: Precision = Precision.BF16
    model: str | None = None
    parameters_billions: float | None = None
    architecture: Architecture | None = None
    training: Training | None = None
    inference: Inference | None = None
    data: Data | None = None

    @property
    def is_training(self) -> bool:
        return self.task is not Task.INFERENCE

    @property
    def training_or_default(self) -> Training:
        return self.training if self.training is not None else Training()

    @property
    def inference_or_default(self) -> Inference:
        return self.inference if self.inference is not None else Inference()


# --- Allowed ranges: the one place, reused by the API serializers and the wizard forms. -------

LIMITS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "parameters_billions": (0.001, 10_000),  # 1 million to 10 trillion parameters
        "architecture.layers": (1, 1_000),
        "architecture.hidden_size": (1, 131_072),
        "architecture.attention_heads": (1, 1_024),
        "architecture.kv_heads": (1, 1_024),
        "architecture.head_dim": (1, 1_024),
        "architecture.vocab_size": (1, 10_000_000),
        "architecture.sliding_window": (1, 10_000_000),
        "architecture.experts": (1, 1_024),
        "architecture.experts_per_token": (1, 1_024),
        "architecture.intermediate_size": (1, 1_048_576),
        "architecture.context_length": (1, 10_000_000),
        "training.lora_rank": (1, 4_096),
        "training.batch_size": (1, 65_536),
        "training.sequence_length": (1, 10_000_000),
        "training.gpus": (1, 65_536),
        "training.training_tokens": (1, 1e15),
        "training.epochs": (0.01, 1_000),
        "training.deadline_days": (0.01, 3_650),
        "inference.concurrent_requests": (1, 100_000),
        "inference.sequence_length": (1, 10_000_000),
        "inference.target_tokens_per_second": (0.01, 1e9),
        "data.items": (1, 1e13),
        "data.total_gb": (0.001, 1e8),  # 1 MB to 100 PB
    }
)


# --- Messages (English templates; the shell translates them). --------------------------------

MSG_RANGE = gettext_noop("must be between %(min)s and %(max)s")
MSG_REQUIRED = gettext_noop("is required")
MSG_UNKNOWN_FIELD = gettext_noop("is not a known field")
MSG_INTEGER = gettext_noop("must be a whole number")
MSG_NUMBER = gettext_noop("must be a number")
MSG_BOOLEAN = gettext_noop("must be true or false")
MSG_OBJECT = gettext_noop("must be an object")
MSG_STRING = gettext_noop("must be a text value")
MSG_CHOICE = gettext_noop("must be one of: %(choices)s")
MSG_UNKNOWN_MODEL = gettext_noop(
    "unknown model %(model)s; valid ids are listed by GET /api/models/ (currently: %(ids)s)"
)
MSG_MODEL_OR_PARAMETERS = gettext_noop("give either model or parameters_billions")
MSG_NOT_BOTH = gettext_noop("give model or parameters_billions, not both")
MSG_ARCH_NEEDS = gettext_noop(
    "an architecture for parameters_billions needs layers, hidden_size and attention_heads"
)
MSG_KV_HEADS = gettext_noop("must divide attention_heads (%(heads)s) evenly")
MSG_EXPERTS_PER_TOKEN = gettext_noop("must be at most experts (%(experts)s)")
MSG_EXPERTS_NEED_K = gettext_noop("is required when experts is more than 1")
MSG_PRETRAIN_FULL = gettext_noop("pretraining trains every weight: method must be full")
MSG_FULL_PRECISION = gettext_noop(
    "full training needs fp32, bf16, fp16 or fp8 weights; int8 and int4 are for inference or "
    "as the frozen base of lora/qlora"
)


class WorkloadError(ValueError):
    """A workload with bad fields. ``errors`` maps each field path (``"training.batch_size"``) to
    its messages; the API's exception handler renders it as ``{"errors": {field: [...]}}``."""

    def __init__(self, errors: Mapping[str, Sequence[Message]]) -> None:
        self.errors: dict[str, list[Message]] = {key: list(value) for key, value in errors.items()}
        summary = "; ".join(
            f"{path}: {', '.join(message.render() for message in messages)}"
            for path, messages in self.errors.items()
        )
        super().__init__(f"invalid workload: {summary}")


def _range_message(path: str) -> Message:
    low, high = LIMITS[path]
    return Message(MSG_RANGE, {"min": _plain(low), "max": _plain(high)})


def _plain(number: float) -> int | float:
    return int(number) if float(number).is_integer() else number


def _add(errors: dict[str, list[Message]], path: str, message: Message) -> None:
    errors.setdefault(path, []).append(message)


def _check_range(errors: dict[str, list[Message]], path: str, value: float | None) -> None:
    if value is None:
        return
    low, high = LIMITS[path]
    if not low <= value <= high:
        _add(errors, path, _range_message(path))


def _collect_errors(workload: Workload) -> dict[str, list[Message]]:
    """Every range and cross-field problem of an already-typed workload."""
    errors: dict[str, list[Message]] = {}

    if workload.model is None and workload.parameters_billions is None:
        _add(errors, "model", Message(MSG_MODEL_OR_PARAMETERS))
    elif workload.model is not None and workload.parameters_billions is not None:
        _add(errors, "model", Message(MSG_NOT_BOTH))
    entry = None
    if workload.model is not None:
        entry = get_model(workload.model)
        if entry is None:
            _add(
                errors,
                "model",
                Message(
                    MSG_UNKNOWN_MODEL, {"model": workload.model, "ids": ", ".join(model_ids())}
                ),
            )
    _check_range(errors, "parameters_billions", workload.parameters_billions)

    arch = workload.architecture
    if arch is not None:
        for name in ARCHITECTURE_FIELDS:
            path = f"architecture.{name}"
            if path in LIMITS:
                _check_range(errors, path, getattr(arch, name))
        if workload.parameters_billions is not None and not arch.is_transformer:
            _add(errors, "architecture", Message(MSG_ARCH_NEEDS))
    merged = entry.architecture.overridden_by(arch) if entry is not None else arch
    if merged is not None:
        heads, kv_heads = merged.attention_heads, merged.kv_heads
        if heads and kv_heads and (kv_heads > heads or heads % kv_heads):
            _add(errors, "architecture.kv_heads", Message(MSG_KV_HEADS, {"heads": heads}))
        experts, per_token = merged.experts, merged.experts_per_token
        if experts is not None and experts > 1 and per_token is None:
            _add(errors, "architecture.experts_per_token", Message(MSG_EXPERTS_NEED_K))
        if experts is not None and per_token is not None and per_token > experts:
            _add(
                errors,
                "architecture.experts_per_token",
                Message(MSG_EXPERTS_PER_TOKEN, {"experts": experts}),
            )

    if workload.is_training or workload.training is not None:
        training = workload.training_or_default
        for name in (
            "lora_rank",
            "batch_size",
            "sequence_length",
            "gpus",
            "training_tokens",
            "epochs",
            "deadline_days",
        ):
            _check_range(errors, f"training.{name}", getattr(training, name))
    if workload.is_training:
        training = workload.training_or_default
        if workload.task is Task.PRETRAINING and training.method is not TrainingMethod.FULL:
            _add(errors, "training.method", Message(MSG_PRETRAIN_FULL))
        if (
            training.method is TrainingMethod.FULL
            and workload.precision not in TRAINABLE_PRECISIONS
        ):
            _add(errors, "precision", Message(MSG_FULL_PRECISION))
    if not workload.is_training or workload.inference is not None:
        inference = workload.inference_or_default
        for name in ("concurrent_requests", "sequence_length", "target_tokens_per_second"):
            _check_range(errors, f"inference.{name}", getattr(inference, name))

    if workload.data is not None:
        _check_range(errors, "data.items", workload.data.items)
        _check_range(errors, "data.total_gb", workload.data.total_gb)
    return errors


def validate_workload(workload: Workload) -> None:
    """Raise ``WorkloadError`` naming every bad field; return ``None`` when the workload is fine."""
    errors = _collect_errors(workload)
    if errors:
        raise WorkloadError(errors)


# --- Parsing the JSON shape. -------------------------------------------------------------------


_E = TypeVar("_E", bound=StrEnum)


class _Parser:
    """Reads one JSON object, recording a message per bad field instead of stopping."""

    def __init__(self) -> None:
        self.errors: dict[str, list[Message]] = {}

    def fail(self, path: str, template: str, params: Mapping[str, Any] | None = None) -> None:
        _add(self.errors, path, Message(template, dict(params or {})))

    def object(self, raw: Any, path: str, allowed: Sequence[str]) -> Mapping[str, Any] | None:
        if not isinstance(raw, Mapping):
            self.fail(path or "non_field_errors", MSG_OBJECT)
            return None
        prefix = f"{path}." if path else ""
        for key in raw:
            if key not in allowed:
                self.fail(f"{prefix}{key}", MSG_UNKNOWN_FIELD)
        return raw

    def integer(self, raw: Any, path: str) -> int | None:
        if raw is None:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            self.fail(path, MSG_INTEGER)
            return None
        if isinstance(raw, float) and not (math.isfinite(raw) and raw.is_integer()):
            self.fail(path, MSG_INTEGER)
            return None
        return int(raw)

    def number(self, raw: Any, path: str) -> float | None:
        if raw is None:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            self.fail(path, MSG_NUMBER)
            return None
        try:
            return float(raw)
        except OverflowError:  # an int beyond any float (the API's parser already refuses it)
            self.fail(path, MSG_NUMBER)
            return None

    def boolean(self, raw: Any, path: str) -> bool | None:
        if raw is None:
            return None
        if not isinstance(raw, bool):
            self.fail(path, MSG_BOOLEAN)
            return None
        return raw

    def string(self, raw: Any, path: str) -> str | None:
        if raw is None:
            return None
        if not isinstance(raw, str):
            self.fail(path, MSG_STRING)
            return None
        return raw

    def choice(self, raw: Any, path: str, enum: type[_E]) -> _E | None:
        if raw is None:
            return None
        try:
            return enum(raw)
        except ValueError:
            self.fail(path, MSG_CHOICE, {"choices": ", ".join(member.value for member in enum)})
            return None


def _keep(values: dict[str, Any]) -> dict[str, Any]:
    """Drop ``None`` so the dataclass defaults apply."""
    return {key: value for key, value in values.items() if value is not None}


_ARCH_INT_FIELDS = tuple(
    name for name in ARCHITECTURE_FIELDS if name not in ("gated_mlp", "tie_word_embeddings")
)


def _parse_architecture(p: _Parser, raw: Any) -> Architecture | None:
    obj = p.object(raw, "architecture", ARCHITECTURE_FIELDS)
    if obj is None:
        return None
    values: dict[str, Any] = {
        name: p.integer(obj.get(name), f"architecture.{name}") for name in _ARCH_INT_FIELDS
    }
    values["gated_mlp"] = p.boolean(obj.get("gated_mlp"), "architecture.gated_mlp")
    values["tie_word_embeddings"] = p.boolean(
        obj.get("tie_word_embeddings"), "architecture.tie_word_embeddings"
    )
    return Architecture(**values)


_TRAINING_FIELDS = tuple(f.name for f in fields(Training))
_INFERENCE_FIELDS = tuple(f.name for f in fields(Inference))
_DATA_FIELDS = tuple(f.name for f in fields(Data))
_WORKLOAD_FIELDS = tuple(f.name for f in fields(Workload))


def _parse_training(p: _Parser, raw: Any) -> Training | None:
    obj = p.object(raw, "training", _TRAINING_FIELDS)
    if obj is None:
        return None
    return Training(
        **_keep(
            {
                "method": p.choice(obj.get("method"), "training.method", TrainingMethod),
                "lora_rank": p.integer(obj.get("lora_rank"), "training.lora_rank"),
                "optimizer": p.choice(obj.get("optimizer"), "training.optimizer", Optimizer),
                "batch_size": p.integer(obj.get("batch_size"), "training.batch_size"),
                "sequence_length": p.integer(
                    obj.get("sequence_length"), "training.sequence_length"
                ),
                "gradient_checkpointing": p.boolean(
                    obj.get("gradient_checkpointing"), "training.gradient_checkpointing"
                ),
                "flash_attention": p.boolean(
                    obj.get("flash_attention"), "training.flash_attention"
                ),
                "sharding": p.choice(obj.get("sharding"), "training.sharding", Sharding),
                "gpus": p.integer(obj.get("gpus"), "training.gpus"),
                "training_tokens": p.integer(
                    obj.get("training_tokens"), "training.training_tokens"
                ),
                "epochs": p.number(obj.get("epochs"), "training.epochs"),
                "deadline_days": p.number(obj.get("deadline_days"), "training.deadline_days"),
            }
        )
    )


def _parse_inference(p: _Parser, raw: Any) -> Inference | None:
    obj = p.object(raw, "inference", _INFERENCE_FIELDS)
    if obj is None:
        return None
    return Inference(
        **_keep(
            {
                "concurrent_requests": p.integer(
                    obj.get("concurrent_requests"), "inference.concurrent_requests"
                ),
                "sequence_length": p.integer(
                    obj.get("sequence_length"), "inference.sequence_length"
                ),
                "kv_cache_precision": p.choice(
                    obj.get("kv_cache_precision"), "inference.kv_cache_precision", Precision
                ),
                "target_tokens_per_second": p.number(
                    obj.get("target_tokens_per_second"), "inference.target_tokens_per_second"
                ),
            }
        )
    )


def _parse_data(p: _Parser, raw: Any) -> Data | None:
    obj = p.object(raw, "data", _DATA_FIELDS)
    if obj is None:
        return None
    return Data(
        **_keep(
            {
                "kind": p.choice(obj.get("kind"), "data.kind", DataKind),
                "items": p.integer(obj.get("items"), "data.items"),
                "total_gb": p.number(obj.get("total_gb"), "data.total_gb"),
            }
        )
    )


def _optional(
    p: _Parser, data: Mapping[str, Any], key: str, parse: Callable[[_Parser, Any], Any]
) -> Any:
    return parse(p, data[key]) if data.get(key) is not None else None


def workload_from_dict(data: Mapping[str, Any]) -> Workload:
    """Parse the API/wizard JSON shape into a validated ``Workload``.

    Enums are given by value (``"fine_tuning"``, ``"bf16"``, ``"zero3"``), nested objects as
    objects; missing fields take the dataclass defaults. Raises ``WorkloadError`` listing every
    bad field at once: type errors, unknown fields, ranges from ``LIMITS`` and cross-field rules.
    """
    p = _Parser()
    top = p.object(data, "", _WORKLOAD_FIELDS)
    if top is None:
        raise WorkloadError(p.errors)
    task = p.choice(top.get("task"), "task", Task)
    if "task" not in top or top.get("task") is None:
        p.fail("task", MSG_REQUIRED)
    precision = p.choice(top.get("precision"), "precision", Precision)
    workload = Workload(
        task=task or Task.INFERENCE,
        precision=precision or Precision.BF16,
        model=p.string(top.get("model"), "model"),
        parameters_billions=p.number(top.get("parameters_billions"), "parameters_billions"),
        architecture=_optional(p, top, "architecture", _parse_architecture),
        training=_optional(p, top, "training", _parse_training),
        inference=_optional(p, top, "inference", _parse_inference),
        data=_optional(p, top, "data", _parse_data),
    )
    errors = dict(p.errors)
    parse_failed = set(errors)
    for path, messages in _collect_errors(workload).items():
        # A field that failed to parse was replaced by its default: do not judge the default.
        if path not in parse_failed:
            errors.setdefault(path, []).extend(messages)
    if errors:
        raise WorkloadError(errors)
    if workload.is_training and workload.training is None:
        workload = replace(workload, training=Training())
    if not workload.is_training and workload.inference is None:
        workload = replace(workload, inference=Inference())
    return workload
