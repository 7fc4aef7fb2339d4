"""Micro-batches, gradient accumulation and sharding: memory holds one micro-batch per GPU.

The global batch is an optimisation setting reached by gradient accumulation (DeepSpeed:
train_batch_size = micro batch x accumulation steps x GPUs); activations are sized per
micro-batch (Korthikanti et al. 2022, arXiv:2205.05198, section 4). Model states follow ZeRO
(Rajbhandari et al. 2020, arXiv:1910.02054, Figure 1): 16 bytes per parameter in mixed-precision
Adam, divided by the data-parallel GPUs under ZeRO-3.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.sizing import GpuProfile, size
from engine.sizing.fit import min_gpus_detail
from engine.sizing.model import resolve_workload
from engine.sizing.plan import memory_plan
from engine.workload import (
    Sharding,
    Task,
    Training,
    TrainingMethod,
    Workload,
    WorkloadError,
    validate_workload,
)

from .sizing_figures import GB, H100

# NVIDIA RTX 6000 Ada datasheet: 48 GB, 960 GB/s, 364.2 dense BF16 TFLOPS (728.5 with sparsity).
RTX_6000_ADA = GpuProfile("RTX 6000 Ada", 48, 960, 364.2, 728.5)
# AMD Instinct MI300X datasheet: 192 GB HBM3, 5.3 TB/s, 1,307.4 dense BF16 TFLOPS.
MI300X = GpuProfile("MI300X", 192, 5300, 1307.4, 2614.9)
QWEN25_72B = 72_706_203_648  # model card


def _one_b(batch: int, **training: object) -> Workload:
    return Workload(
        task=Task.PRETRAINING,
        model="llama-3.2-1b",
        training=Training(
            batch_size=batch,
            sequence_length=2048,
            training_tokens=100 * 10**9,
            deadline_days=30,
            **training,  # type: ignore[arg-type]
        ),
    )


def _seventy_two_b(sharding: Sharding = Sharding.ZERO3, gpus: int = 1) -> Workload:
    return Workload(
        task=Task.FINE_TUNING,
        model="qwen2.5-72b",
        training=Training(
            method=TrainingMethod.FULL,
            batch_size=256,
            sequence_length=4096,
            sharding=sharding,
            gpus=gpus,
            training_tokens=5 * 10**9,
        ),
    )


@pytest.mark.parametrize("batch", [16, 48, 64, 512, 2048])
def test_the_global_batch_sets_the_accumulation_steps_not_the_memory(batch):
    # Before: each GPU held ceil(batch / gpus) sequences, 782 GB for the job at batch 512.
    # From 48 on (16 per GPU), each GPU's share is more than the 8 sequences that fit it.
    reference = size(_one_b(2048), gpu=RTX_6000_ADA, gpus=3)
    assert reference.micro_batch == 8
    if batch == 16:  # 6 sequences per GPU: micro-batches of 4, accumulated twice
        small = size(_one_b(batch), gpu=RTX_6000_ADA, gpus=3)
        assert (small.micro_batch, small.accumulation_steps) == (4, 2)
        assert small.training_hours == pytest.approx(reference.training_hours)
        return
    sizing = size(_one_b(batch), gpu=RTX_6000_ADA, gpus=3)
    assert sizing.micro_batch == reference.micro_batch
    assert sizing.memory_per_gpu_gb == reference.memory_per_gpu_gb
    assert sizing.min_gpus == reference.min_gpus == 1
    assert sizing.fits is True
    assert sizing.data_parallel == 3
    assert sizing.accumulation_steps == math.ceil(batch / (sizing.micro_batch * 3))
    # The same tokens take the same time whatever the batch.
    assert sizing.training_hours == pytest.approx(reference.training_hours)
    assert sizing.gpus_for_deadline == reference.gpus_for_deadline


def test_the_micro_batch_is_the_largest_power_of_two_that_fits():
    sizing = size(_one_b(512), gpu=RTX_6000_ADA, gpus=3)
    micro = sizing.micro_batch
    assert micro is not None
    assert micro > 1
    assert micro & (micro - 1) == 0
    # The next power of two would not fit the card's usable memory.
    bigger = size(_one_b(512, micro_batch_size=2 * micro), gpu=RTX_6000_ADA, gpus=3)
    assert bigger.fits is False
    asked = size(_one_b(512, micro_batch_size=micro), gpu=RTX_6000_ADA, gpus=3)
    assert asked.memory_per_gpu_gb == sizing.memory_per_gpu_gb
    one = size(_one_b(512, micro_batch_size=1), gpu=RTX_6000_ADA, gpus=3)
    per_sequence = sizing.memory_per_gpu_gb.activations / micro
    assert one.memory_per_gpu_gb.activations == pytest.approx(per_sequence)


def test_a_micro_batch_never_exceeds_the_gpus_share_of_the_batch():
    # 24 sequences over 8 GPUs: 3 each, so micro-batches of 2 and 2 accumulation steps.
    sizing = size(_one_b(24), gpu=H100, gpus=8)
    assert (sizing.micro_batch, sizing.accumulation_steps, sizing.data_parallel) == (2, 2, 8)
    asked = size(_one_b(24, micro_batch_size=16), gpu=H100, gpus=8)
    assert (asked.micro_batch, asked.accumulation_steps) == (3, 1)


def test_an_asked_micro_batch_is_kept_even_when_it_does_not_fit():
    sizing = size(_one_b(512, micro_batch_size=64), gpu=RTX_6000_ADA, gpus=4)
    assert (sizing.micro_batch, sizing.accumulation_steps) == (64, 2)
    assert sizing.fits is False


def test_without_a_gpu_the_job_holds_one_sequence_per_gpu():
    sizing = size(_one_b(512))
    assert (sizing.micro_batch, sizing.accumulation_steps, sizing.data_parallel) == (1, 512, 1)
    assert sizing.sharding == "none"
    # About 20 GB of states (16 bytes x 1.24B) and one sequence's activations, not 782 GB.
    assert sizing.memory_gb.total < 30
    keys = [e.key for e in sizing.explanations]
    assert "micro_batch" in keys
    text = next(e for e in sizing.explanations if e.key == "micro_batch").message.render()
    assert "512" in text
    assert "accumulation" in text


def test_inference_has_no_micro_batch():
    sizing = size(Workload(task=Task.INFERENCE, model="llama-3.1-8b"))
    assert (sizing.micro_batch, sizing.accumulation_steps, sizing.data_parallel) == (
        None,
        None,
        None,
    )
    assert sizing.sharding is None


def test_a_72b_full_fine_tune_fits_one_node_of_mi300x_with_zero3():
    # Before: 256 x 4096 sequences held at once, 2,347 GB of activations and 24 MI300X.
    workload = _seventy_two_b()
    model = resolve_workload(workload)
    assert model.frozen_parameters == 0
    plan = memory_plan(workload, model)
    usable = 0.9 * MI300X.memory_gb * GB
    assert min_gpus_detail(plan, usable, model.arch) == (8, 3, 1)
    sizing = size(workload, gpu=MI300X, gpus=8)
    per_gpu = sizing.memory_per_gpu_gb
    states = per_gpu.weights + per_gpu.gradients + per_gpu.optimizer_states
    # ZeRO-3: 16 bytes per parameter over 8 GPUs, about 145 GB each.
    assert states == pytest.approx(QWEN25_72B * 16 / 8 / GB)
    assert 145 < states < 146
    assert sizing.fits is True
    assert sizing.sharding == "zero3"
    assert (sizing.micro_batch, sizing.accumulation_steps, sizing.data_parallel) == (1, 32, 8)
    assert sizing.nodes == 1


def test_states_too_large_for_a_gpu_are_sharded_zero3_before_adding_gpus():
    # Plain data parallelism would hold 1.16 TB of states on every GPU: no count fits, so the
    # minimum assumes ZeRO-3 within one 8-GPU node and says so.
    workload = _seventy_two_b(Sharding.NONE)
    sizing = size(workload, gpu=MI300X)
    assert sizing.min_gpus == 8
    explained = next(e for e in sizing.explanations if e.key == "min_gpus")
    assert "ZeRO-3" in explained.message.render()
    assert "FSDP" in explained.source
    zero1 = size(_seventy_two_b(Sharding.ZERO1), gpu=MI300X)
    assert zero1.min_gpus == 8  # ZeRO-1 alone would need more GPUs than ZeRO-3


def test_an_asked_micro_batch_is_validated_against_the_batch():
    with pytest.raises(WorkloadError) as error:
        validate_workload(
            replace(_one_b(16), training=Training(batch_size=16, micro_batch_size=32))
        )
    assert list(error.value.errors) == ["training.micro_batch_size"]
