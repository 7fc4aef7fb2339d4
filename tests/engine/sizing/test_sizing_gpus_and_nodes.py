"""The sizing's answers about hardware: the fewest GPUs that hold a job, the reverse questions
(longest context, most requests), and the nodes, network and system around the GPUs.

Every expected number is either quoted from a paper / model card or recomputed by hand here from
the formula's definition (the arithmetic is written out), never copied from the engine's output.
GB = 10^9 bytes.
"""

import math
from dataclasses import replace

import pytest

from engine.sizing import (
    USABLE_MEMORY_FRACTION,
    GpuProfile,
    max_concurrent_requests,
    max_context_length,
    min_gpus,
    size,
)
from engine.workload import (
    Architecture,
    Data,
    DataKind,
    Inference,
    Precision,
    Sharding,
    Task,
    Training,
    Workload,
    WorkloadError,
)
from tests.engine.sizing.sizing_figures import GB, H100, LLAMA2_7B, LLAMA31_8B_WEIGHTS_BF16

# --- Minimum GPUs and the reverse questions ------------------------------------------------------


def test_llama31_70b_bf16_needs_four_80gb_gpus_at_a_valid_tensor_parallel_degree():
    # Weights 141.1 GB + KV 1.34 GB (4,096 tokens): 3 GPUs would hold 47.5 GB each, but a
    # tensor-parallel degree must divide the 64 attention heads and 8 KV heads (1, 2, 4, 8);
    # 2 GPUs would need 79.4 GB. So one copy on 4 GPUs.
    workload = Workload(task=Task.INFERENCE, model="llama-3.1-70b")
    assert min_gpus(workload, gpu_memory_gb=80) == 4
    sizing = size(workload, gpu=H100)
    assert (sizing.gpus, sizing.replica_gpus) == (4, 4)
    assert sizing.fits is True
    assert sizing.model_sharded is True


def test_tensor_parallel_degrees_divide_heads_and_kv_heads():
    from engine.sizing.fit import tensor_parallel_degrees
    from engine.workload.registry import get_model

    llama70 = get_model("llama-3.1-70b")
    assert llama70 is not None
    assert tensor_parallel_degrees(llama70.architecture) == (1, 2, 4, 8)
    llama2_13 = get_model("llama-2-13b")  # 40 heads, 40 KV heads: 8 divides both
    assert llama2_13 is not None
    assert tensor_parallel_degrees(llama2_13.architecture) == (1, 2, 4, 8)
    # 28 heads and 4 KV heads (Qwen2 7B's shape): 8 divides neither.
    qwen_like = Architecture(layers=28, hidden_size=3584, attention_heads=28, kv_heads=4)
    assert tensor_parallel_degrees(qwen_like) == (1, 2, 4)


def test_many_users_are_served_by_copies_not_by_a_wider_split():
    # Llama 3.1 8B, 64 users at 8k tokens on 24 GB cards: the 16 GB of weights leave little
    # room on one card, so copies split in two share the KV cache; every count is whole copies.
    workload = Workload(
        task=Task.INFERENCE,
        model="llama-3.1-8b",
        inference=Inference(concurrent_requests=64, sequence_length=8192),
    )
    l4 = GpuProfile(name="L4", memory_gb=24, memory_bandwidth_gbs=300, bf16_tflops=121)
    sizing = size(workload, gpu=l4)
    assert sizing.replica_gpus in (1, 2, 4, 8)
    assert sizing.gpus % sizing.replica_gpus == 0
    assert sizing.fits is True
    one_less = size(workload, gpu=l4, gpus=sizing.gpus - sizing.replica_gpus)
    assert one_less.fits is False


def test_impossible_returns_none():
    workload = Workload(task=Task.INFERENCE, model="llama-2-7b")
    assert min_gpus(workload, gpu_memory_gb=1) is None  # the CUDA context alone exceeds 0.9 GB


def test_plain_data_parallel_that_does_not_fit_is_sized_as_zero3():
    training = Training(batch_size=8, sequence_length=2048, gradient_checkpointing=True)
    workload = Workload(task=Task.FINE_TUNING, model="llama-2-7b", training=training)
    n = min_gpus(workload, gpu_memory_gb=80)
    sharded = replace(workload, training=replace(training, sharding=Sharding.ZERO3))
    usable = USABLE_MEMORY_FRACTION * 80
    assert n is not None
    assert n > 1
    assert size(sharded, gpus=n).memory_per_gpu_gb.total <= usable
    assert size(sharded, gpus=n - 1).memory_per_gpu_gb.total > usable
    sizing = size(workload, gpu=H100)
    assert sizing.model_sharded is True
    (explanation,) = [e for e in sizing.explanations if e.key == "min_gpus"]
    assert "ZeRO-3" in explanation.message.render()


def test_max_context_length_solves_the_memory_budget():
    workload = Workload(
        task=Task.INFERENCE, model="llama-3.1-8b", inference=Inference(concurrent_requests=16)
    )
    # 1 GB + 1.1 x (weights + 16 x 131,072 x L) <= 72 GB
    budget = (USABLE_MEMORY_FRACTION * 80 * GB - GB) / 1.1 - LLAMA31_8B_WEIGHTS_BF16
    assert max_context_length(workload, gpu=H100) == math.floor(budget / (16 * 131_072))


def test_max_context_of_mistral_is_its_context_length_thanks_to_the_window():
    workload = Workload(task=Task.INFERENCE, model="mistral-7b")
    assert max_context_length(workload, gpu=H100) == 32768


def test_max_concurrent_requests_solves_the_memory_budget():
    workload = Workload(
        task=Task.INFERENCE, model="llama-3.1-8b", inference=Inference(sequence_length=4096)
    )
    budget = (USABLE_MEMORY_FRACTION * 80 * GB - GB) / 1.1 - LLAMA31_8B_WEIGHTS_BF16
    expected = math.floor(budget / (131_072 * 4096))
    assert max_concurrent_requests(workload, gpu=H100) == expected
    assert max_concurrent_requests(workload, gpu=H100, gpus=2) > 2 * expected


def test_reverse_questions_reject_what_they_cannot_answer():
    with pytest.raises(WorkloadError) as caught:
        max_context_length(Workload(task=Task.INFERENCE, model="resnet-50"), gpu=H100)
    assert list(caught.value.errors) == ["model"]
    with pytest.raises(WorkloadError) as caught:
        max_concurrent_requests(Workload(task=Task.FINE_TUNING, model="llama-2-7b"), gpu=H100)
    assert list(caught.value.errors) == ["task"]
    too_big = Workload(task=Task.INFERENCE, model="llama-3.1-405b")
    assert max_context_length(too_big, gpu=H100) == 0
    assert max_concurrent_requests(too_big, gpu=H100) == 0


def test_gpu_count_argument_is_range_checked():
    workload = Workload(task=Task.INFERENCE, model="llama-2-7b")
    with pytest.raises(WorkloadError) as caught:
        size(workload, gpus=0)
    assert [m.render() for m in caught.value.errors["gpus"]] == ["must be between 1 and 65536"]
    with pytest.raises(WorkloadError):
        max_context_length(workload, gpu=H100, gpus=0)


# --- Nodes, network, system side -----------------------------------------------------------------


def test_interconnect_rules():
    pretrain = Workload(
        task=Task.PRETRAINING,
        model="llama-2-7b",
        training=Training(gpus=16, sharding=Sharding.ZERO3),
    )
    sizing = size(pretrain)
    assert sizing.interconnect is not None
    assert (sizing.nodes, sizing.interconnect.gbps_per_gpu) == (2, 400)
    assert sizing.interconnect.fabric == "infiniband_or_roce"
    zero1 = Training(gpus=16, sharding=Sharding.ZERO1)
    fine_tune = Workload(task=Task.FINE_TUNING, model="llama-2-7b", training=zero1)
    sizing = size(fine_tune)
    assert sizing.interconnect is not None
    assert sizing.interconnect.gbps_per_gpu == 200
    assert sizing.model_sharded is False
    serve_405b = Workload(task=Task.INFERENCE, model="llama-3.1-405b")
    sizing = size(serve_405b, gpu=H100)
    assert sizing.interconnect is not None
    assert sizing.nodes == 2
    assert sizing.interconnect.gbps_per_gpu == 200
    single = size(replace(fine_tune, training=replace(zero1, gpus=8)))
    assert (single.nodes, single.interconnect) == (1, None)


def test_large_project_rule():
    assert size(Workload(task=Task.INFERENCE, model="resnet-50")).large_project is False
    int4_7b = Workload(task=Task.INFERENCE, model="mistral-7b", precision=Precision.INT4)
    assert size(int4_7b).memory_gb.total < 16
    assert size(int4_7b).large_project is True  # 7.24B parameters


def test_storage_keeps_three_full_checkpoints_plus_data_and_base():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(batch_size=1),
        data=Data(kind=DataKind.TEXT, total_gb=10),
    )
    checkpoint = (2 + 12) * LLAMA2_7B / GB  # weights + optimizer states (fp32 master inside)
    assert size(workload).storage_gb == pytest.approx(10 + 2 * LLAMA2_7B / GB + 3 * checkpoint)


def test_image_training_system_side():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="resnet-50",
        training=Training(batch_size=256, gpus=16),
        data=Data(kind=DataKind.IMAGES, items=1_000_000),
    )
    sizing = size(workload)
    assert sizing.nodes == 2
    assert sizing.cpu_cores == 8 * (4 + 6)  # per node: 4 per GPU + 6 for image decoding
    assert sizing.system_ram_gb == pytest.approx(16 + 8 * (4 + 8) + 25_557_032 * 2 / GB)
    assert sizing.storage_read_mbs == pytest.approx(16 * 270)  # no GPU: per-kind rate only


def test_inference_read_rate_loads_weights_in_a_minute():
    workload = Workload(task=Task.INFERENCE, model="llama-3.1-8b")
    assert size(workload).storage_read_mbs == pytest.approx(LLAMA31_8B_WEIGHTS_BF16 / 60 / 1e6)
