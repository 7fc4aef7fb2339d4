"""Minimum GPUs, and the reverse questions (longest context, most concurrent requests)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator

from ..i18n import Message, gettext_noop
from ..workload import LIMITS, Task, Workload, WorkloadError, validate_workload
from ..workload.registry import Architecture
from .constants import (
    GB,
    GBPS_DATA_PARALLEL,
    GBPS_INFERENCE,
    GBPS_SHARDED_OR_PRETRAINING,
    MAX_GPUS,
    TENSOR_PARALLEL_MAX,
    USABLE_MEMORY_FRACTION,
)
from .formulas import kv_cache_bytes_per_token
from .model import ModelFigures, resolve_workload
from .plan import MemoryPlan, kv_precision, kv_tokens, memory_plan
from .results import GpuProfile

# --- Minimum GPUs. ----------------------------------------------------------------------------


def _smallest_fitting(
    total: Callable[[int], float], usable_bytes: float, most: int = MAX_GPUS
) -> int | None:
    """Smallest n in [1, most] with total(n) <= usable; total is non-increasing in n."""
    if most < 1 or total(most) > usable_bytes:
        return None
    low, high = 1, most
    while low < high:
        mid = (low + high) // 2
        if total(mid) <= usable_bytes:
            high = mid
        else:
            low = mid + 1
    return low


def tensor_parallel_degrees(arch: Architecture) -> tuple[int, ...]:
    """The tensor-parallel degrees a model can be split at inside one server: powers of two up
    to ``TENSOR_PARALLEL_MAX`` dividing the attention heads, and dividing the KV heads or a
    multiple of them (1, 2, 4, 8 for Llama 70B's 64 heads and 8 KV heads; never 3 or 6)."""
    heads, kv = arch.attention_heads or 1, arch.resolved_kv_heads or 1
    return tuple(
        d
        for d in (1, 2, 4, 8, 16, 32, 64)
        if d <= TENSOR_PARALLEL_MAX and heads % d == 0 and (kv % d == 0 or d % kv == 0)
    )


def replica_sizes(arch: Architecture) -> Iterator[int]:
    """GPUs per model copy, smallest first: the tensor-parallel degrees, then the largest one
    times 2, 3, ... pipeline stages (one per server)."""
    degrees = tensor_parallel_degrees(arch)
    yield from degrees
    stages = 2
    while degrees[-1] * stages <= MAX_GPUS:
        yield degrees[-1] * stages
        stages += 1


def _copies_total(plan: MemoryPlan, replica: int) -> Callable[[int], float]:
    """Bytes per GPU with ``n`` copies of ``replica`` GPUs each."""
    return lambda copies: plan.total_per_gpu(replica * copies, replica=replica)


def _inference_layout(
    plan: MemoryPlan, arch: Architecture, usable_bytes: float
) -> tuple[int | None, int]:
    """(GPU count, GPUs per model copy) of the fewest GPUs that serve the requests: copies of
    the weights split at a valid tensor-parallel degree, the requests' KV cache shared by all
    GPUs. At equal counts the smaller copy wins (more copies, each a failover for the others).
    Copies spread over servers (pipeline stages) only when no tensor-parallel copy fits."""
    if not plan.tensor_parallel:
        return _smallest_fitting(plan.total_per_gpu, usable_bytes), 1
    best: tuple[int, int] | None = None
    in_server = tensor_parallel_degrees(arch)
    for replica in replica_sizes(arch):
        if best is not None and (
            replica >= best[0] or (replica not in in_server and best[1] in in_server)
        ):
            break  # pipeline stages across servers only when no copy fits one server
        copies = _smallest_fitting(_copies_total(plan, replica), usable_bytes, MAX_GPUS // replica)
        if copies is not None and (best is None or copies * replica < best[0]):
            best = (copies * replica, replica)
    return best if best is not None else (None, 1)


def min_gpus_detail(
    plan: MemoryPlan, usable_bytes: float, arch: Architecture
) -> tuple[int | None, int, int]:
    """(GPU count, ZeRO stage it assumes, GPUs per model copy: 1 in training). Training is
    sized with one micro-batch per GPU (the plan's: the one asked for, else 1; the global batch
    is reached by accumulation) and its own sharding unless ZeRO-3 (fully sharded) needs fewer
    GPUs, e.g. when plain data parallelism cannot hold the model states on one GPU at all; then
    ZeRO-3 is assumed (``SOURCE_SHARDING``). Inference: ``_inference_layout``."""
    if not plan.training:
        n, replica = _inference_layout(plan, arch, usable_bytes)
        return n, 0, replica
    own = _smallest_fitting(lambda g: plan.total_per_gpu(g, plan.stage), usable_bytes)
    if plan.stage == 3 or own == 1:
        return own, plan.stage, 1
    sharded = _smallest_fitting(lambda g: plan.total_per_gpu(g, 3), usable_bytes)
    if own is not None and (sharded is None or own <= sharded):
        return own, plan.stage, 1
    return sharded, 3, 1


def micro_batch_plan(
    plan: MemoryPlan, gpus: int, usable_bytes: float | None, stage: int | None = None
) -> MemoryPlan:
    """The plan at the micro-batch each of ``gpus`` training GPUs runs (``SOURCE_MICRO_BATCH``):
    the one the workload asked for, else the largest power of two up to the GPU's share of the
    global batch whose total fits ``usable_bytes``, at least 1 (1 when no GPU is given). The
    global batch then only sets the accumulation steps."""
    if not plan.training or plan.micro_batch_asked or usable_bytes is None:
        return plan
    share = math.ceil(plan.batch / gpus)
    micro = 1 << (share.bit_length() - 1)  # the largest power of two <= share
    while micro > 1:
        candidate = dataclasses.replace(plan, micro_batch=micro)
        if candidate.total_per_gpu(gpus, stage) <= usable_bytes:
            return candidate
        micro //= 2
    return dataclasses.replace(plan, micro_batch=1)


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
    model = resolve_workload(workload)
    plan = memory_plan(workload, model)
    return min_gpus_detail(plan, usable_fraction * gpu_memory_gb * GB, model.arch)[0]


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


def check_gpus(gpus: int | None) -> None:
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


def _inference_model(workload: Workload, gpus: int) -> ModelFigures:
    check_gpus(gpus)
    validate_workload(workload)
    if workload.is_training:
        raise WorkloadError(
            {"task": [Message(gettext_noop("this question is about inference workloads"))]}
        )
    return resolve_workload(workload)


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
    base = memory_plan(workload, model)
    per_token = kv_cache_bytes_per_token(model.arch, kv_precision(workload))

    def fits(tokens: int) -> bool:
        kv = per_token * kv_tokens(model.arch, tokens) * inf.concurrent_requests
        plan = MemoryPlan(False, base.weights, 0.0, 0.0, 0.0, inf.concurrent_requests, kv, 0, True)
        return plan.total_per_gpu(gpus) <= usable

    return _largest_fitting(fits, cap)


def max_concurrent_requests(workload: Workload, *, gpu: GpuProfile, gpus: int = 1) -> int:
    """Most concurrent requests of the workload's ``sequence_length`` that fit on ``gpus`` x
    ``gpu``; 0 when not even one fits."""
    model = _inference_model(workload, gpus)
    usable = USABLE_MEMORY_FRACTION * gpu.memory_gb * GB
    base = memory_plan(workload, model)
    inf = workload.inference_or_default
    kv_per_request = base.kv_cache / inf.concurrent_requests

    def fits(requests: int) -> bool:
        plan = MemoryPlan(
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
