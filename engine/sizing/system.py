"""The system side: storage, read throughput, CPU cores and system RAM per node."""

from __future__ import annotations

from ..i18n import gettext_noop
from ..workload import DataKind, Task, TrainingMethod, Workload
from .constants import (
    CPU_CORES_PER_GPU,
    DATA_CORES_PER_GPU,
    DATA_RAM_GB_PER_GPU,
    GB,
    KEEP_CHECKPOINTS,
    MB,
    MODEL_LOAD_SECONDS,
    PROCESS_RAM_GB_PER_GPU,
    READ_MBS_PER_GPU,
    SOURCE_QUANT,
    SOURCE_READ,
    SOURCE_ZERO,
    SYSTEM_BASE_RAM_GB,
    TYPICAL_ITEM_BYTES,
)
from .explain import explain_step, r
from .formulas import lora_adapter_parameters
from .model import ModelFigures
from .results import Explanation, MemoryBreakdown


def system_side(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    whole: MemoryBreakdown,
    gpus: int,
    gpus_in_node: int,
    model_sharded: bool,
    hours: float | None,
) -> tuple[float, float, float, int]:
    weights16_gb = model.parameters * 2.0 / GB  # one 16-bit copy of the weights
    data_gb = dataset_gb(workload)
    storage = _storage_gb(ex, workload, model, whole, data_gb, weights16_gb)
    read = _read_mbs(ex, workload, whole, gpus, hours, data_gb)
    kind = workload.data.kind if workload.data is not None else None
    cores = _cpu_cores(ex, kind, gpus_in_node)
    ram = _system_ram_gb(ex, kind, gpus, gpus_in_node, model_sharded, weights16_gb)
    return ram, storage, read, cores


def dataset_gb(workload: Workload) -> float:
    """The data set's size in GB (10^9 bytes): given, or items x a typical item size."""
    data = workload.data
    # Dataset size.
    dataset_gb = 0.0
    if data is not None:
        if data.total_gb is not None:
            dataset_gb = data.total_gb
        elif data.items is not None:
            dataset_gb = data.items * TYPICAL_ITEM_BYTES[data.kind] / GB
    return dataset_gb


def _storage_gb(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    whole: MemoryBreakdown,
    dataset_gb: float,
    weights16_gb: float,
) -> float:
    training = workload.is_training
    t = workload.training_or_default
    # Storage: dataset + model files + checkpoints.
    if training:
        if t.method is TrainingMethod.FULL:
            checkpoint_gb = whole.weights + whole.optimizer_states
        else:
            adapters = lora_adapter_parameters(model.arch, t.lora_rank, model.parameters)
            checkpoint_gb = adapters * 2.0 / GB + whole.optimizer_states
        base_gb = weights16_gb if workload.task is Task.FINE_TUNING else 0.0
        storage = dataset_gb + base_gb + KEEP_CHECKPOINTS * checkpoint_gb
        explain_step(
            ex,
            "storage_gb",
            gettext_noop(
                "%(gb)s GB: data %(data_gb)s GB + base model %(base_gb)s GB + %(keep)s "
                "checkpoints of %(ckpt_gb)s GB (weights + optimizer states)"
            ),
            SOURCE_ZERO,
            gb=r(storage),
            data_gb=r(dataset_gb),
            base_gb=r(base_gb),
            keep=KEEP_CHECKPOINTS,
            ckpt_gb=r(checkpoint_gb),
        )
    else:
        storage = dataset_gb + whole.weights
        explain_step(
            ex,
            "storage_gb",
            gettext_noop("%(gb)s GB: model files %(model_gb)s GB + data %(data_gb)s GB"),
            SOURCE_QUANT,
            gb=r(storage),
            model_gb=r(whole.weights),
            data_gb=r(dataset_gb),
        )

    return storage


def _read_mbs(
    ex: list[Explanation],
    workload: Workload,
    whole: MemoryBreakdown,
    gpus: int,
    hours: float | None,
    dataset_gb: float,
) -> float:
    kind = workload.data.kind if workload.data is not None else None
    training = workload.is_training
    t = workload.training_or_default
    # Read throughput.
    read = READ_MBS_PER_GPU[kind] * gpus if kind is not None else 0.0
    if training and hours and dataset_gb:
        read = max(read, dataset_gb * GB * t.epochs / (hours * 3600) / MB)
    if not training:
        read = max(read, whole.weights * GB / MODEL_LOAD_SECONDS / MB)
    explain_step(
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
        mbs=r(read, 0),
        per_gpu=READ_MBS_PER_GPU[kind] if kind is not None else 0,
        kind=kind.value if kind is not None else "",
        gpus=gpus,
        load_s=int(MODEL_LOAD_SECONDS),
    )

    return read


def _cpu_cores(ex: list[Explanation], kind: DataKind | None, gpus_in_node: int) -> int:
    # CPU cores per node.
    per_gpu_cores = CPU_CORES_PER_GPU + (DATA_CORES_PER_GPU[kind] if kind is not None else 0)
    cores = per_gpu_cores * gpus_in_node
    explain_step(
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

    return cores


def _system_ram_gb(
    ex: list[Explanation],
    kind: DataKind | None,
    gpus: int,
    gpus_in_node: int,
    model_sharded: bool,
    weights16_gb: float,
) -> float:
    # System RAM per node.
    group = gpus if model_sharded else 1
    weights_share_gb = weights16_gb * min(1.0, gpus_in_node / group)
    loader = DATA_RAM_GB_PER_GPU[kind] if kind is not None else 0.0
    ram = SYSTEM_BASE_RAM_GB + gpus_in_node * (PROCESS_RAM_GB_PER_GPU + loader) + weights_share_gb
    explain_step(
        ex,
        "system_ram_gb",
        gettext_noop(
            "%(gb)s GB per node (data side): %(base)s GB system + %(gpus)s GPUs x "
            "(%(process)s GB process + %(loader)s GB data buffers) + %(weights)s GB of 16-bit "
            "weights for loading and checkpoints"
        ),
        "Stated rule (GPUQuote sizing); the builder also applies RAM >= 2 x VRAM",
        gb=r(ram, 1),
        base=SYSTEM_BASE_RAM_GB,
        gpus=gpus_in_node,
        process=PROCESS_RAM_GB_PER_GPU,
        loader=loader,
        weights=r(weights_share_gb, 1),
    )
    return ram
