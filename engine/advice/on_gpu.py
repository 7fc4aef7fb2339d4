"""A job on one GPU model: the GPU's figures as the sizing reads them, and the job sized at a
given GPU count. A leaf of ``engine.advice``: the pipeline and the performance figures both read
it, so neither imports the other for it."""

from __future__ import annotations

import dataclasses

from ..assumptions.gpu_models import training_mfu, training_mfu_fp8
from ..build.parts import GpuSpec
from ..sizing import GpuProfile, Sizing, size
from ..workload import Sharding, Workload


def gpu_profile(gpu: GpuSpec) -> GpuProfile:
    training, fp8 = training_mfu(gpu.name), training_mfu_fp8(gpu.name)
    return GpuProfile(
        name=gpu.name,
        memory_gb=gpu.memory_gb,
        memory_bandwidth_gbs=gpu.memory_bandwidth_gbs,
        bf16_tflops=gpu.bf16_tflops,
        fp8_tflops=gpu.fp8_tflops,
        training_mfu=training.value,
        training_mfu_source=training.source,
        training_mfu_fp8=fp8.value,
        training_mfu_fp8_source=fp8.source,
    )


def _fully_sharded(workload: Workload) -> Workload:
    training = workload.training_or_default
    return dataclasses.replace(
        workload, training=dataclasses.replace(training, sharding=Sharding.ZERO3)
    )


def sized_on(workload: Workload, gpu: GpuSpec, gpus: int, *, explain: bool = True) -> Sizing:
    """The job on ``gpus`` x ``gpu``; training that does not fit unsharded is sharded (ZeRO-3),
    as the builder assumes when it counts the GPUs (one GPU has nothing to shard with)."""
    profile = gpu_profile(gpu)
    sized = size(workload, gpu=profile, gpus=gpus, explain=explain)
    if sized.fits is False and workload.is_training and gpus > 1:
        sized = size(_fully_sharded(workload), gpu=profile, gpus=gpus, explain=explain)
    return sized
