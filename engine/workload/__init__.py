"""What the customer wants to run: the sizing engine's input dataclasses, enums and validation.

The JSON names of ``workload_from_dict`` are an API contract shared with the REST API and the
wizard forms: ``task``, ``model`` / ``parameters_billions`` / ``architecture`` / ``model_kind``,
``precision``, ``training``, ``inference`` and ``data``. Allowed ranges live in one place,
``LIMITS``, keyed by field path, and choices in the enums; the DRF serializers and forms reuse
them. A bad workload raises ``WorkloadError`` with every bad field at once, each with
translatable messages.

Units: ``data.total_gb`` is in GB (10^9 bytes); sequence lengths and ``training_tokens`` are
tokens; ``deadline_days`` are calendar days of wall-clock time.
"""

from .limits import (
    LIMITS,
    MSG_ARCH_NEEDS,
    MSG_BOOLEAN,
    MSG_CHOICE,
    MSG_CONTEXT_TOO_LONG,
    MSG_CONTEXT_TOO_LONG_GIVEN,
    MSG_CONTEXT_UNKNOWN,
    MSG_EXPERTS_NEED_K,
    MSG_EXPERTS_PER_TOKEN,
    MSG_FULL_PRECISION,
    MSG_INTEGER,
    MSG_KIND_CONTRADICTS_MODEL,
    MSG_KIND_NO_ARCHITECTURE,
    MSG_KV_HEADS,
    MSG_MICRO_BATCH,
    MSG_MODEL_OR_PARAMETERS,
    MSG_NOT_BOTH,
    MSG_NUMBER,
    MSG_OBJECT,
    MSG_PRETRAIN_FULL,
    MSG_RANGE,
    MSG_REQUIRED,
    MSG_STRING,
    MSG_UNKNOWN_FIELD,
    MSG_UNKNOWN_MODEL,
    SOURCE_CONTEXT_LIMIT,
)
from .parse import workload_from_dict
from .registry import Architecture, ModelKind
from .shape import (
    TRAINABLE_PRECISIONS,
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
from .validate import WorkloadError, context_limit, validate_workload

__all__ = [
    "LIMITS",
    "MSG_ARCH_NEEDS",
    "MSG_BOOLEAN",
    "MSG_CHOICE",
    "MSG_CONTEXT_TOO_LONG",
    "MSG_CONTEXT_TOO_LONG_GIVEN",
    "MSG_CONTEXT_UNKNOWN",
    "MSG_EXPERTS_NEED_K",
    "MSG_EXPERTS_PER_TOKEN",
    "MSG_FULL_PRECISION",
    "MSG_INTEGER",
    "MSG_KIND_CONTRADICTS_MODEL",
    "MSG_KIND_NO_ARCHITECTURE",
    "MSG_KV_HEADS",
    "MSG_MICRO_BATCH",
    "MSG_MODEL_OR_PARAMETERS",
    "MSG_NOT_BOTH",
    "MSG_NUMBER",
    "MSG_OBJECT",
    "MSG_PRETRAIN_FULL",
    "MSG_RANGE",
    "MSG_REQUIRED",
    "MSG_STRING",
    "MSG_UNKNOWN_FIELD",
    "MSG_UNKNOWN_MODEL",
    "SOURCE_CONTEXT_LIMIT",
    "TRAINABLE_PRECISIONS",
    "Architecture",
    "Data",
    "DataKind",
    "Inference",
    "ModelKind",
    "Optimizer",
    "Precision",
    "Sharding",
    "Task",
    "Training",
    "TrainingMethod",
    "Workload",
    "WorkloadError",
    "context_limit",
    "validate_workload",
    "workload_from_dict",
]
