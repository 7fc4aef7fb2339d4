"""``size()``: the whole answer for one workload, explained step by step."""

from __future__ import annotations

import math

from ..i18n import gettext_noop, ngettext_noop
from ..workload import Precision, Workload, validate_workload
from .compute import TrainingCompute, decode_tokens_per_second, peak_flops, training_compute
from .constants import (
    DEFAULT_MFU,
    FABRIC,
    GB,
    HOURS_LOST_PER_INTERRUPTION,
    INTERRUPTIONS_PER_GPU_HOUR,
    LARGE_PROJECT_MEMORY_GB,
    LARGE_PROJECT_PARAMETERS,
    NON_TRANSFORMER_MFU,
    SOURCE_DECODE,
    SOURCE_FABRIC,
    SOURCE_GOODPUT,
    SOURCE_LARGE,
    SOURCE_MFU,
    SOURCE_MFU_CNN,
    SOURCE_PARALLELISM,
    SOURCE_ZERO,
    USABLE_MEMORY_FRACTION,
)
from .explain import (
    Unexplained,
    explain_compute,
    explain_fit,
    explain_model,
    explain_step,
    r,
    sig,
)
from .explain_memory import explain_memory
from .fit import (
    check_gpus,
    interconnect_gbps_per_gpu,
    micro_batch_plan,
    min_gpus_detail,
    tensor_parallel_degrees,
)
from .formulas import sharding_of
from .images import diffusion_throughput
from .model import ModelFigures, resolve_workload
from .plan import MemoryPlan, breakdown, memory_plan
from .results import Explanation, GpuProfile, Interconnect, MemoryBreakdown, Sizing
from .system import system_side

# A GPU count no answer holds: what ``gpus_within`` gives for a deadline no cluster meets.
UNREACHABLE_GPUS = 2**31


def size(
    workload: Workload,
    *,
    gpus: int | None = None,
    gpu: GpuProfile | None = None,
    gpus_per_node: int = 8,
    mfu: float | None = None,
    explain: bool = True,
) -> Sizing:
    """Size ``workload``. ``gpus`` None: training uses ``workload.training.gpus``, inference the
    minimum that fits on ``gpu`` (or 1). ``mfu`` overrides the model-FLOPs utilisation used for
    training time (default ``DEFAULT_MFU`` for transformers, ``NON_TRANSFORMER_MFU`` otherwise).
    Memory in GB = 10^9 bytes. ``explain`` False: the same figures without the explanations
    (none is built), for callers that read only the figures."""
    check_gpus(gpus)
    if gpus_per_node < 1:
        raise ValueError("gpus_per_node must be at least 1")
    validate_workload(workload)
    model = resolve_workload(workload)
    plan = memory_plan(workload, model)
    training = workload.is_training
    t = workload.training_or_default
    ex: list[Explanation] = [] if explain else Unexplained()
    usable = USABLE_MEMORY_FRACTION * gpu.memory_gb * GB if gpu else None

    min_n: int | None = None
    min_stage = plan.stage
    min_replica = 0  # no GPU given: one copy over all the GPUs
    if usable is not None:
        min_n, min_stage, min_replica = min_gpus_detail(plan, usable, model.arch)
    if gpus is None:
        gpus = t.gpus if training else (min_n or 1)
    replica = _replica_gpus(plan, gpus, min_replica)
    if training:
        plan = micro_batch_plan(plan, gpus, usable)

    whole = breakdown(plan.per_gpu(1))
    per_gpu = breakdown(plan.per_gpu(gpus, replica=replica))
    fits = None if usable is None else per_gpu.total * GB <= usable

    explain_model(ex, workload, model)
    explain_memory(ex, workload, model, plan, whole, per_gpu, gpus, usable is not None)
    # Inference: the GPUs of one copy share the model; training: all of them (ZeRO-3).
    model_sharded = _model_sharded(workload, plan, gpus if training else replica, min_n, min_stage)
    if gpu is not None:
        explain_fit(ex, workload, plan, per_gpu, gpu, gpus, min_n, min_stage, fits)

    # Compute and time.
    compute = training_compute(workload, model) if training else None
    if training:
        explain_compute(ex, workload, model, compute)
    if mfu is None:
        transformer_mfu = _transformer_mfu(gpu, workload.precision)[0]
        mfu = transformer_mfu if model.arch.is_transformer else NON_TRANSFORMER_MFU
    hours, gpus_for_deadline = _training_time(ex, workload, model, compute, gpu, gpus, mfu)
    tokens_per_second, gpus_for_target = _decode_speed(
        ex, workload, model, plan, gpu, gpus, replica
    )
    if replica > 1 and not training:
        _explain_replicas(ex, model, gpus, replica)
    images_per_second = diffusion_throughput(ex, workload, model, gpu, gpus)
    nodes, interconnect = _nodes(ex, workload, gpus, gpus_per_node, model_sharded)
    large = _large_project(ex, model, whole)
    gpus_in_node = min(gpus, gpus_per_node)
    ram, storage, read, cores = system_side(
        ex, workload, model, whole, gpus, gpus_in_node, model_sharded, hours
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
        replica_gpus=replica,
        images_per_second=images_per_second,
        micro_batch=plan.micro_batch_on(gpus) if training else None,
        accumulation_steps=plan.accumulation_steps(gpus) if training else None,
        data_parallel=gpus if training else None,
        sharding=sharding_of(plan.stage).value if training else None,
    )


def hours_on(sizing: Sizing, gpus: int) -> float | None:
    """The sized training run's wall-clock hours on ``gpus`` of the same GPU (None: no time)."""
    if sizing.training_hours is None:
        return None
    loss = INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION
    gpu_hours = sizing.training_hours * sizing.gpus / (1 + sizing.gpus * loss)
    return wall_hours(gpu_hours, gpus)


def wall_hours(gpu_hours: float, gpus: int) -> float:
    """Wall-clock hours of ``gpu_hours`` of compute on ``gpus`` GPUs, interruptions included:
    each GPU-hour of the cluster risks ``INTERRUPTIONS_PER_GPU_HOUR``, each costing
    ``HOURS_LOST_PER_INTERRUPTION`` of the whole cluster."""
    return gpu_hours / gpus * (1 + gpus * INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION)


def gpus_within(gpu_hours: float, hours: float) -> int:
    """The fewest GPUs whose ``wall_hours`` stay within ``hours``. The loss to interruptions does
    not shrink with more GPUs (``gpu_hours x rate x cost``), so a deadline below it cannot be met
    by any count: ``UNREACHABLE_GPUS`` then."""
    left = hours - gpu_hours * INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION
    if left <= 0:
        return UNREACHABLE_GPUS
    return max(1, math.ceil(gpu_hours / left * (1 - 1e-12)))


def _replica_gpus(plan: MemoryPlan, gpus: int, smallest: int) -> int:
    """GPUs per model copy at ``gpus`` GPUs: the smallest copy that fits when ``gpus`` holds
    whole copies of it, else one copy over all of them (training and non-transformers: 1)."""
    if plan.training or not plan.tensor_parallel:
        return 1
    return smallest if smallest and gpus % smallest == 0 else gpus


def _explain_replicas(ex: list[Explanation], model: ModelFigures, gpus: int, replica: int) -> None:
    degree = max(d for d in tensor_parallel_degrees(model.arch) if replica % d == 0)
    stages = replica // degree
    explain_step(
        ex,
        "replicas",
        gettext_noop(
            "%(copies)s copies of the model, each on %(replica)s GPUs (tensor parallel "
            "%(degree)s, a divisor of the %(heads)s attention heads)"
        )
        if stages == 1
        else gettext_noop(
            "%(copies)s copies of the model, each on %(replica)s GPUs: tensor parallel "
            "%(degree)s inside a server and %(stages)s pipeline stages, one per server, because "
            "one copy does not fit %(degree)s GPUs"
        ),
        SOURCE_PARALLELISM,
        copies=gpus // replica,
        replica=replica,
        degree=degree,
        stages=stages,
        heads=model.arch.attention_heads or 0,
    )


def _model_sharded(
    workload: Workload, plan: MemoryPlan, gpus: int, min_n: int | None, min_stage: int
) -> bool:
    """Whether several GPUs hold parts of one model copy (and so need NVLink)."""
    if workload.is_training:
        model_sharded = plan.stage == 3 and gpus > 1
        if min_n is not None and min_n > 1 and min_stage == 3 and plan.stage < 3:
            model_sharded = True
        return model_sharded
    return plan.tensor_parallel and gpus > 1


def _transformer_mfu(gpu: GpuProfile | None, precision: Precision) -> tuple[float, str]:
    """A transformer's training efficiency on ``gpu`` and its source: FP8 runs on a GPU with an
    FP8 peak reach their own share of it (``engine.assumptions.gpu_models``)."""
    if gpu is None:
        return DEFAULT_MFU, SOURCE_MFU
    fp8 = precision is Precision.FP8 and gpu.fp8_tflops
    if fp8 and gpu.training_mfu_fp8 is not None:
        return gpu.training_mfu_fp8, gpu.training_mfu_fp8_source
    return gpu.training_mfu, gpu.training_mfu_source


def _training_time(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    compute: TrainingCompute | None,
    gpu: GpuProfile | None,
    gpus: int,
    mfu: float,
) -> tuple[float | None, int | None]:
    """Training hours on ``gpus`` x ``gpu`` at ``mfu``, and the GPUs for the deadline."""
    t = workload.training_or_default
    hours = gpus_for_deadline = None
    transformer_source = _transformer_mfu(gpu, workload.precision)[1]
    mfu_source = transformer_source if model.arch.is_transformer else SOURCE_MFU_CNN
    if compute is not None and gpu is not None:
        peak = peak_flops(gpu, workload.precision)
        recompute = compute.forward if t.gradient_checkpointing else 0.0
        seconds_one_gpu = (compute.total + recompute) / (peak * mfu)
        hours = wall_hours(seconds_one_gpu / 3600, gpus)
        explain_step(
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
            hours=sig(hours),
            gpus=gpus,
            gpu=gpu.name,
            flops=sig(compute.total + recompute),
            mfu=r(mfu * 100, 1),
            tflops=r(peak / 1e12, 1),
        )
        lost = gpus * INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION
        explain_step(
            ex,
            "goodput",
            gettext_noop(
                "%(goodput)s%% of the wall time trains on %(gpus)s GPUs: about %(interruptions)s "
                "interruptions over the run, each costing %(minutes)s minutes to restart from "
                "the last checkpoint and redo the work since; included in the hours"
            ),
            SOURCE_GOODPUT,
            goodput=r(100 / (1 + lost), 2),
            gpus=gpus,
            interruptions=sig(hours * gpus * INTERRUPTIONS_PER_GPU_HOUR),
            minutes=r(HOURS_LOST_PER_INTERRUPTION * 60, 0),
        )
        if t.deadline_days is not None:
            gpus_for_deadline = gpus_within(seconds_one_gpu / 3600, t.deadline_days * 24)
            explain_step(
                ex,
                "gpus_for_deadline",
                gettext_noop(
                    "%(n)s x %(gpu)s finish within %(days)s days (%(gpu_hours)s GPU-hours, "
                    "assuming linear scaling, interruptions included)"
                ),
                mfu_source,
                n=gpus_for_deadline,
                gpu=gpu.name,
                days=t.deadline_days,
                gpu_hours=sig(seconds_one_gpu / 3600),
            )

    return hours, gpus_for_deadline


def _decode_speed(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    plan: MemoryPlan,
    gpu: GpuProfile | None,
    gpus: int,
    replica: int = 0,
) -> tuple[float | None, int | None]:
    """Decode tokens/s (bandwidth-bound) and the GPUs for the target rate, at inference."""
    training = workload.is_training
    inf = workload.inference_or_default
    tokens_per_second = gpus_for_target = None
    if not training and model.autoregressive and model.arch.is_transformer and gpu is not None:
        copies = gpus // replica if replica else 1
        tokens_per_second, step_gb, _ = decode_tokens_per_second(
            workload, model, plan, gpu, gpus, copies
        )
        explain_step(
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
            tps=r(tokens_per_second, 1),
            step_gb=r(step_gb, 2),
            bandwidth=gpu.memory_bandwidth_gbs,
            gpus=gpus,
            requests=inf.concurrent_requests,
        )
        if inf.target_tokens_per_second is not None and tokens_per_second > 0:
            replicas = math.ceil(inf.target_tokens_per_second / tokens_per_second)
            gpus_for_target = replicas * gpus
            explain_step(
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

    return tokens_per_second, gpus_for_target


def _nodes(
    ex: list[Explanation],
    workload: Workload,
    gpus: int,
    gpus_per_node: int,
    model_sharded: bool,
) -> tuple[int, Interconnect | None]:
    training = workload.is_training
    # Nodes and network.
    nodes = math.ceil(gpus / gpus_per_node)
    interconnect = None
    if nodes > 1:
        gbps = interconnect_gbps_per_gpu(workload, model_sharded=model_sharded)
        interconnect = Interconnect(FABRIC, gbps)
        explain_step(
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
        explain_step(
            ex,
            "nodes",
            ngettext_noop(
                "%(gpus)s GPU fits in one server of up to %(per_node)s GPUs",
                "%(gpus)s GPUs fit in one server of up to %(per_node)s GPUs",
            ),
            SOURCE_FABRIC,
            counted_by="gpus",
            gpus=gpus,
            per_node=gpus_per_node,
        )
    if model_sharded:
        explain_step(
            ex,
            "model_sharded",
            gettext_noop(
                "several GPUs hold parts of one model copy: they exchange activations or "
                "weights every step and need NVLink between them"
            ),
            SOURCE_ZERO if training else SOURCE_DECODE,
        )

    return nodes, interconnect


def _large_project(ex: list[Explanation], model: ModelFigures, whole: MemoryBreakdown) -> bool:
    large = whole.total > LARGE_PROJECT_MEMORY_GB or model.parameters >= LARGE_PROJECT_PARAMETERS
    explain_step(
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
        gb=r(whole.total),
        params=int(model.parameters),
        limit_gb=LARGE_PROJECT_MEMORY_GB,
        limit_b=LARGE_PROJECT_PARAMETERS / 1e9,
    )

    return large
