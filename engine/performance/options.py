"""What a configuration delivers, for each job kind: per-user decode speed and time to first
token when it serves a language model (``language``), images per second for image models
(``images``), training time against the deadline (``training``), and the software stack and
monitoring plan of its GPUs.

``performance_for`` answers for one GPU model, a tensor-parallel degree (GPUs per model copy),
a number of copies and a GPU count; ``option_performance`` reads these from a built option and
``options_performance`` does so for every tier.
Pure: figures in, figures and untranslated messages (with their sources) out.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from types import MappingProxyType

from ..advice.on_gpu import gpu_profile, sized_on
from ..build.builder import BuiltOption, Tier
from ..build.parts import GpuSpec
from ..i18n import Message, gettext_noop
from ..sizing import Explanation, max_concurrent_requests, size
from ..sizing.fit import tensor_parallel_degrees
from ..sizing.model import resolve_workload
from ..workload import Workload, WorkloadError, validate_workload
from ..workload.registry import ModelKind
from .degraded import one_server_down
from .encoder import encoder_speed
from .images import image_speed
from .language import language_speed
from .monitoring import MonitoringPlan, monitoring_plan
from .results import OneServerDown, Performance, shown
from .software import StackPurpose, software_stack
from .training import training_time


def performance_for(
    workload: Workload,
    gpu: GpuSpec,
    *,
    gpus_per_replica: int,
    replicas: int,
    total_gpus: int,
    pipeline_stages: int = 1,
) -> Performance:
    """The workload on ``total_gpus`` x ``gpu``: served by ``replicas`` model copies of
    ``gpus_per_replica`` GPUs each (tensor parallel; ``pipeline_stages``: the servers a copy
    spans, a pipeline), or trained on all ``total_gpus``."""
    for name, value in (
        ("gpus_per_replica", gpus_per_replica),
        ("pipeline_stages", pipeline_stages),
        ("replicas", replicas),
        ("total_gpus", total_gpus),
    ):
        if value < 1:
            raise ValueError(f"{name} must be at least 1")
    validate_workload(workload)
    model = resolve_workload(workload)
    lines: list[Message] = []
    ex: list[Explanation] = []
    serving = images = training = encoder = None
    purpose = StackPurpose.SERVING
    if workload.is_training:
        sized = sized_on(workload, gpu, total_gpus)
        training = training_time(workload, gpu, sized, lines, ex)
        # A model the sizing splits over the GPUs needs a sharding framework.
        sharded = total_gpus > 1 and sized.model_sharded
        purpose = StackPurpose.TRAINING_SHARDED if sharded else StackPurpose.TRAINING
    elif model.kind in (ModelKind.DIFFUSION, ModelKind.VISION):
        images = image_speed(workload, model, gpu, total_gpus, lines, ex)
    elif model.kind is ModelKind.ENCODER:
        encoder = encoder_speed(workload, model, gpu, total_gpus, lines, ex)
    elif model.autoregressive and model.arch.is_transformer:
        serving = language_speed(
            workload, model, gpu, gpus_per_replica, replicas, lines, ex, stages=pipeline_stages
        )
        purpose = StackPurpose.SERVING_LLM
    software = software_stack(
        gpu.vendor,
        architecture=gpu.architecture,
        purpose=purpose,
        precision=str(workload.precision),
    )
    if software is not None:
        lines.append(software.statement)
        ex.append(
            Explanation("performance.software", software.statement, "; ".join(software.sources))
        )
    return Performance(
        gpu_name=gpu.name,
        gpus=total_gpus,
        serving=serving,
        images=images,
        training=training,
        software=software,
        lines=tuple(lines),
        explanations=tuple(ex),
        encoder=encoder,
    )


def replica_gpus(workload: Workload, gpu: GpuSpec, total_gpus: int) -> int:
    """GPUs per model copy for serving on ``gpu``: the sizing's copy size (a valid
    tensor-parallel degree, or a pipeline over servers), at most ``total_gpus``."""
    if workload.is_training:
        return total_gpus
    replica = size(workload, gpu=gpu_profile(gpu), explain=False).replica_gpus
    return max(1, min(replica, total_gpus))


def copy_layout(
    workload: Workload, gpu: GpuSpec, total_gpus: int, per_server: int
) -> tuple[int, int]:
    """(GPUs per model copy, servers one copy spans) on ``total_gpus`` in servers of
    ``per_server``: the sizing's copy when a server holds it; else the largest tensor-parallel
    copy inside a server whose copies hold the users (the builder's smaller copies,
    ``engine.advice.pipeline.smaller_copies``); else the sizing's copy as a pipeline over
    servers, one stage per server."""
    replica = replica_gpus(workload, gpu, total_gpus)
    if workload.is_training or replica <= per_server:
        return replica, 1
    profile = gpu_profile(gpu)
    users = workload.inference_or_default.concurrent_requests
    for degree in sorted(tensor_parallel_degrees(resolve_workload(workload).arch), reverse=True):
        if degree > per_server or per_server % degree:
            continue
        copies = max(1, total_gpus // degree)
        try:
            held = max_concurrent_requests(workload, gpu=profile, gpus=degree)
        except WorkloadError:
            break
        if held >= -(-users // copies):
            return degree, 1
    return replica, -(-replica // per_server)


def served_by(workload: Workload, gpu: GpuSpec, gpus: int, per_server: int) -> Performance:
    """The workload on ``gpus`` working GPUs of ``gpu`` in servers of ``per_server``: the copies
    as ``copy_layout`` lays them out (a copy spanning servers runs as a pipeline)."""
    per_replica, stages = copy_layout(workload, gpu, gpus, per_server)
    return performance_for(
        workload,
        gpu,
        gpus_per_replica=per_replica,
        replicas=max(1, gpus // per_replica),
        total_gpus=gpus,
        pipeline_stages=stages,
    )


def delivered(performance: Performance) -> float | None:
    """The one figure options are ranked by, higher is better: tokens/s each user sees at the
    asked concurrency, images/s, embeddings/s, or trainings per hour (1 / hours); None: no
    figure."""
    if performance.serving is not None:
        return performance.serving.tokens_per_second_per_user
    if performance.images is not None:
        return performance.images.images_per_second
    if performance.encoder is not None:
        return performance.encoder.embeddings_per_second
    if performance.training is not None and performance.training.hours > 0:
        return 1.0 / performance.training.hours
    return None


def delivered_score(workload: Workload) -> Callable[[GpuSpec, int, int], float | None]:
    """``delivered`` of the workload on ``n`` working GPUs of a model in servers of
    ``per_server``: what the builder ranks its upper tiers by (``BuildNeeds.delivered``), the
    same figure the options then show."""

    def score(gpu: GpuSpec, gpus: int, per_server: int) -> float | None:
        return delivered(served_by(workload, gpu, gpus, per_server))

    return score


def option_performance(
    workload: Workload, option: BuiltOption, gpus: Sequence[GpuSpec]
) -> Performance | None:
    """The performance of a built option, its GPU found by SKU in ``gpus`` (the catalog's);
    None when the catalog no longer lists it. Its working GPUs do the job: a spare server kept
    to take over from a failing one is not capacity."""
    line = option.gpu_line
    gpu = next((spec for spec in gpus if spec.sku == line.sku), None)
    if gpu is None:
        return None
    found = served_by(workload, gpu, option.working_gpus, line.quantity)
    monitoring = _monitoring(gpu, line.quantity, option.servers)
    if found.serving is None:
        return dataclasses.replace(found, monitoring=monitoring)
    down = one_server_down(
        workload,
        resolve_workload(workload),
        gpu,
        gpus_per_replica=found.serving.gpus_per_replica,
        # every copy, the spare server's too: with a spare, one server down loses no speed
        replicas=max(1, line.quantity * option.servers // found.serving.gpus_per_replica),
        gpus_per_server=line.quantity,
        servers=option.servers,
    )
    lines = found.lines
    if down is not None:
        # Beside the normal speed, which is the first line of a served language model.
        lines = (lines[0], _one_server_down_line(down, found.serving.tokens_per_second_per_user))
        lines += found.lines[1:]
    return dataclasses.replace(found, monitoring=monitoring, one_server_down=down, lines=lines)


def _one_server_down_line(down: OneServerDown, normal: float) -> Message:
    if down.replicas == 0:
        return Message(
            gettext_noop(
                "With one server down, no whole model copy is left: the service stops until "
                "the server is repaired"
            )
        )
    return Message(
        gettext_noop(
            "With one server down: ~%(per_user)s tokens/s for each user (%(normal)s normally), "
            "on the %(servers)s servers still up"
        ),
        {
            "per_user": shown(down.tokens_per_second_per_user),
            "normal": shown(normal),
            "servers": down.servers,
        },
    )


def _monitoring(gpu: GpuSpec, per_server: int, servers: int) -> MonitoringPlan | None:
    """The customer's own monitoring plan, with what the host would watch for them."""
    return _monitoring_of(
        gpu.vendor,
        gpu.name,
        Decimal(str(gpu.memory_gb)),
        gpu.tdp_w,
        per_server,
        servers,
        gpu.nvlink_gbs is not None,
        gpu.architecture,
    )


# A plan is immutable and follows from these few figures; options on the same GPUs and server
# count (most of the catalog's answers) share it instead of writing it again (~80 µs).
@functools.lru_cache(maxsize=512)
def _monitoring_of(
    vendor: str,
    gpu_name: str,
    memory_gb: Decimal,
    tdp_w: int,
    per_server: int,
    servers: int,
    linked: bool,
    architecture: str,
) -> MonitoringPlan | None:
    own, hosted = (
        monitoring_plan(
            vendor=vendor,
            gpu_name=gpu_name,
            memory_gb=memory_gb,
            tdp_w=tdp_w,
            gpus_per_server=per_server,
            servers=servers,
            linked=linked,
            managed=managed,
            architecture=architecture,
        )
        for managed in (False, True)
    )
    if own is None or hosted is None:
        return None
    return dataclasses.replace(own, host_watches=hosted.host_watches)


def options_performance(
    workload: Workload, options: Sequence[BuiltOption], gpus: Sequence[GpuSpec]
) -> Mapping[Tier, Performance]:
    """``option_performance`` of each option, by tier (options whose GPU is unknown left out)."""
    found = {option.tier: option_performance(workload, option, gpus) for option in options}
    return MappingProxyType({tier: perf for tier, perf in found.items() if perf is not None})


# --- Serving a language model. -------------------------------------------------------------------
