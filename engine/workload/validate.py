"""Validation: every bad field of a workload at once, each with a translatable message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..i18n import Message
from .limits import (
    LIMITS,
    MSG_ARCH_NEEDS,
    MSG_CONTEXT_TOO_LONG,
    MSG_CONTEXT_TOO_LONG_GIVEN,
    MSG_EXPERTS_NEED_K,
    MSG_EXPERTS_PER_TOKEN,
    MSG_FULL_PRECISION,
    MSG_KIND_CONTRADICTS_MODEL,
    MSG_KIND_NO_ARCHITECTURE,
    MSG_KV_HEADS,
    MSG_LATENT_NEEDS_BOTH,
    MSG_MICRO_BATCH,
    MSG_MODEL_OR_PARAMETERS,
    MSG_NOT_BOTH,
    MSG_PRETRAIN_FULL,
    MSG_RANGE,
    MSG_UNKNOWN_MODEL,
)
from .registry import (
    ARCHITECTURE_FIELDS,
    Architecture,
    ModelEntry,
    ModelKind,
    get_model,
    model_ids,
)
from .shape import TRAINABLE_PRECISIONS, Task, TrainingMethod, Workload


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


def add(errors: dict[str, list[Message]], path: str, message: Message) -> None:
    errors.setdefault(path, []).append(message)


def _check_range(errors: dict[str, list[Message]], path: str, value: float | None) -> None:
    if value is None:
        return
    low, high = LIMITS[path]
    if not low <= value <= high:
        add(errors, path, _range_message(path))


def collect_errors(workload: Workload) -> dict[str, list[Message]]:
    """Every range and cross-field problem of an already-typed workload."""
    errors: dict[str, list[Message]] = {}

    if workload.model is None and workload.parameters_billions is None:
        add(errors, "model", Message(MSG_MODEL_OR_PARAMETERS))
    elif workload.model is not None and workload.parameters_billions is not None:
        add(errors, "model", Message(MSG_NOT_BOTH))
    entry = None
    if workload.model is not None:
        entry = get_model(workload.model)
        if entry is None:
            add(
                errors,
                "model",
                Message(
                    MSG_UNKNOWN_MODEL, {"model": workload.model, "ids": ", ".join(model_ids())}
                ),
            )
    _check_range(errors, "parameters_billions", workload.parameters_billions)
    _check_kind(errors, workload, entry)

    arch = workload.architecture
    if arch is not None:
        for name in ARCHITECTURE_FIELDS:
            path = f"architecture.{name}"
            if path in LIMITS:
                _check_range(errors, path, getattr(arch, name))
        if workload.parameters_billions is not None and not arch.is_transformer:
            add(errors, "architecture", Message(MSG_ARCH_NEEDS))
    merged = entry.architecture.overridden_by(arch) if entry is not None else arch
    if merged is not None:
        heads, kv_heads = merged.attention_heads, merged.kv_heads
        if heads and kv_heads and (kv_heads > heads or heads % kv_heads):
            add(errors, "architecture.kv_heads", Message(MSG_KV_HEADS, {"heads": heads}))
        experts, per_token = merged.experts, merged.experts_per_token
        if experts is not None and experts > 1 and per_token is None:
            add(errors, "architecture.experts_per_token", Message(MSG_EXPERTS_NEED_K))
        if experts is not None and per_token is not None and per_token > experts:
            add(
                errors,
                "architecture.experts_per_token",
                Message(MSG_EXPERTS_PER_TOKEN, {"experts": experts}),
            )
        _check_latent_attention(errors, merged)

    if workload.is_training or workload.training is not None:
        training = workload.training_or_default
        for name in (
            "lora_rank",
            "batch_size",
            "micro_batch_size",
            "sequence_length",
            "gpus",
            "training_tokens",
            "epochs",
            "deadline_days",
        ):
            _check_range(errors, f"training.{name}", getattr(training, name))
        micro = training.micro_batch_size
        if (
            micro is not None
            and micro > training.batch_size
            and not errors.get("training.micro_batch_size")
        ):
            add(
                errors,
                "training.micro_batch_size",
                Message(MSG_MICRO_BATCH, {"batch": training.batch_size}),
            )
    if workload.is_training:
        training = workload.training_or_default
        if workload.task is Task.PRETRAINING and training.method is not TrainingMethod.FULL:
            add(errors, "training.method", Message(MSG_PRETRAIN_FULL))
        if (
            training.method is TrainingMethod.FULL
            and workload.precision not in TRAINABLE_PRECISIONS
        ):
            add(errors, "precision", Message(MSG_FULL_PRECISION))
    if not workload.is_training or workload.inference is not None:
        inference = workload.inference_or_default
        for name in ("concurrent_requests", "sequence_length", "target_tokens_per_second"):
            _check_range(errors, f"inference.{name}", getattr(inference, name))
    _check_context(errors, workload, entry)

    if workload.data is not None:
        _check_range(errors, "data.items", workload.data.items)
        _check_range(errors, "data.total_gb", workload.data.total_gb)
    return errors


_LATENT_FIELDS = ("kv_lora_rank", "qk_rope_head_dim")


def _check_latent_attention(errors: dict[str, list[Message]], arch: Architecture) -> None:
    """Latent attention is sized from both of its fields; one without the other is an attention
    the engine cannot model, refused on the field given (never sized as something else)."""
    given = [name for name in _LATENT_FIELDS if getattr(arch, name) is not None]
    if len(given) != 1:
        return
    (name,) = given
    (missing,) = (other for other in _LATENT_FIELDS if other != name)
    add(
        errors,
        f"architecture.{name}",
        Message(MSG_LATENT_NEEDS_BOTH, {"given": name, "missing": missing}),
    )


# Kinds whose memory model is per image, scaled from a registry model, not layer by layer.
_PER_IMAGE_KINDS = frozenset({ModelKind.DIFFUSION, ModelKind.VISION})


def _check_kind(
    errors: dict[str, list[Message]], workload: Workload, entry: ModelEntry | None
) -> None:
    """A registry model has its own kind: ``model_kind`` may repeat it, never contradict it.
    A custom diffusion or vision model takes no transformer ``architecture``."""
    kind = workload.model_kind
    if kind is None:
        return
    if entry is not None and kind is not entry.kind:
        add(
            errors,
            "model_kind",
            Message(MSG_KIND_CONTRADICTS_MODEL, {"model": entry.id, "kind": entry.kind.value}),
        )
    if workload.model is None and kind in _PER_IMAGE_KINDS and workload.architecture is not None:
        add(errors, "architecture", Message(MSG_KIND_NO_ARCHITECTURE, {"kind": kind.value}))


def context_limit(workload: Workload) -> int | None:
    """The longest context (prompt + answer tokens) the workload's model takes: the registry's
    ``context_length`` (its config.json ``max_position_embeddings``), or the one given in
    ``architecture``; ``None`` when no maximum is known (a custom model that gives none)."""
    entry = get_model(workload.model) if workload.model is not None else None
    arch = entry.architecture if entry is not None else Architecture()
    return arch.overridden_by(workload.architecture).context_length


def _check_context(
    errors: dict[str, list[Message]],
    workload: Workload,
    entry: ModelEntry | None,
) -> None:
    """A serving context beyond the model's maximum is refused: the model was not trained for
    it (positions past it are undefined or degrade). An absent ``inference`` is not judged
    (``workload_from_dict`` gives it the model's maximum when that is below the default).
    Training may ask for longer sequences than the model's maximum (context extension)."""
    inference = workload.inference
    if workload.is_training or inference is None or "inference.sequence_length" in errors:
        return
    limit = context_limit(workload)
    if limit is None or inference.sequence_length <= limit:
        return
    given = workload.architecture is not None and workload.architecture.context_length is not None
    if entry is not None and not given:
        message = Message(MSG_CONTEXT_TOO_LONG, {"max": limit, "model": entry.id})
    else:
        message = Message(MSG_CONTEXT_TOO_LONG_GIVEN, {"max": limit})
    add(errors, "inference.sequence_length", message)


def validate_workload(workload: Workload) -> None:
    """Raise ``WorkloadError`` naming every bad field; return ``None`` when the workload is fine."""
    errors = collect_errors(workload)
    if errors:
        raise WorkloadError(errors)
