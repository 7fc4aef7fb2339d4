"""Parsing the JSON shape of ``workload_from_dict`` (an API contract) into a ``Workload``."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from enum import StrEnum
from typing import Any, TypeVar

from ..i18n import Message
from .limits import (
    MSG_BOOLEAN,
    MSG_CHOICE,
    MSG_INTEGER,
    MSG_NUMBER,
    MSG_OBJECT,
    MSG_REQUIRED,
    MSG_STRING,
    MSG_UNKNOWN_FIELD,
)
from .registry import ARCHITECTURE_FIELDS, Architecture, ModelKind
from .shape import (
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
)
from .validate import WorkloadError, add, collect_errors, context_limit

# --- Parsing the JSON shape. -------------------------------------------------------------------


_E = TypeVar("_E", bound=StrEnum)


class _Parser:
    """Reads one JSON object, recording a message per bad field instead of stopping."""

    def __init__(self) -> None:
        self.errors: dict[str, list[Message]] = {}

    def fail(self, path: str, template: str, params: Mapping[str, Any] | None = None) -> None:
        add(self.errors, path, Message(template, dict(params or {})))

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
                "micro_batch_size": p.integer(
                    obj.get("micro_batch_size"), "training.micro_batch_size"
                ),
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
        model_kind=p.choice(top.get("model_kind"), "model_kind", ModelKind),
    )
    if not _sequence_length_given(top):
        workload = _default_context(workload)
    errors = dict(p.errors)
    parse_failed = set(errors)
    for path, messages in collect_errors(workload).items():
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


def _sequence_length_given(top: Mapping[str, Any]) -> bool:
    inference = top.get("inference")
    return isinstance(inference, Mapping) and inference.get("sequence_length") is not None


def _default_context(workload: Workload) -> Workload:
    """Serving without a stated ``sequence_length``: the default context, or the model's
    maximum when that is shorter (a 512-token BERT, a 2,048-token Falcon); a stated one beyond
    the maximum is refused by ``collect_errors``."""
    if workload.is_training:
        return workload
    inference = workload.inference if workload.inference is not None else Inference()
    limit = context_limit(workload)
    if limit is None or not 1 <= limit < inference.sequence_length:
        return workload
    return replace(workload, inference=replace(inference, sequence_length=limit))
