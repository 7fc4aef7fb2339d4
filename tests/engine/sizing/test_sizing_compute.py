"""The sizing's compute figures against worked numbers: training FLOPs (6ND and its LoRA and
mixture-of-experts variants), training time, and the bandwidth-bound decode speed.

Every expected number is either quoted from a paper / model card or recomputed by hand here from
the formula's definition (the arithmetic is written out), never copied from the engine's output.
GB = 10^9 bytes.
"""

import math
from dataclasses import replace

import pytest

from engine.sizing import DEFAULT_MFU, NON_TRANSFORMER_MFU, GpuProfile, size
from engine.sizing.core import UNREACHABLE_GPUS
from engine.workload import (
    Data,
    DataKind,
    Inference,
    Precision,
    Task,
    Training,
    TrainingMethod,
    Workload,
)
from tests.engine.sizing.sizing_figures import H100, LLAMA2_7B, goodput_factor
from tests.engine.workload.models import registered

TEST_GPU = GpuProfile("test GPU", 80, 2000, 300)


# --- Compute -------------------------------------------------------------------------------------


def test_six_nd_for_llama2_7b_on_two_trillion_tokens():
    workload = Workload(
        task=Task.PRETRAINING,
        model="llama-2-7b",
        training=Training(training_tokens=2_000_000_000_000),
    )
    sizing = size(workload)
    # 6 x 6,738,415,616 x 2e12 = 8.086e22 (the "8.4e22" often quoted uses a nominal 7B).
    assert sizing.training_flops == pytest.approx(6 * LLAMA2_7B * 2e12)
    assert sizing.training_flops == pytest.approx(8.086e22, rel=1e-3)
    assert sizing.forward_flops == pytest.approx(2 * LLAMA2_7B * 2e12)
    assert sizing.backward_flops == pytest.approx(4 * LLAMA2_7B * 2e12)


def test_mixture_of_experts_compute_uses_active_parameters():
    workload = Workload(
        task=Task.FINE_TUNING, model="mixtral-8x7b", training=Training(training_tokens=10**9)
    )
    assert size(workload).training_flops == pytest.approx(6 * 12_879_925_248 * 1e9)


def test_custom_mixture_of_experts_estimates_its_active_parameters():
    mixtral = registered("mixtral-8x7b")
    workload = Workload(
        task=Task.FINE_TUNING,
        parameters_billions=mixtral.parameters / 1e9,
        architecture=mixtral.architecture,
        training=Training(training_tokens=10**9),
    )
    # Attention and embeddings are shared; 2 of 8 experts of the rest are used per token. The
    # estimate also counts norms and router as expert weights, hence the small tolerance.
    assert size(workload).training_flops == pytest.approx(6 * 12_879_925_248 * 1e9, rel=1e-3)


def test_lora_backward_skips_frozen_weight_gradients():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(method=TrainingMethod.LORA, training_tokens=10**9),
    )
    sizing = size(workload)
    n, a, d = LLAMA2_7B, 39_976_960, 1e9
    assert sizing.forward_flops == pytest.approx(2 * (n + a) * d)
    assert sizing.backward_flops == pytest.approx(2 * (n + a) * d + 2 * a * d)
    assert sizing.training_flops == pytest.approx(4 * n * d + 6 * a * d)


def test_tokens_from_text_data_and_epochs():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(epochs=3),
        data=Data(kind=DataKind.TEXT, total_gb=10),
    )
    tokens = 10e9 / 4 * 3  # 4 bytes of text per token
    assert size(workload).training_flops == pytest.approx(6 * LLAMA2_7B * tokens)


def test_training_time_and_deadline_on_h100():
    workload = Workload(
        task=Task.PRETRAINING,
        model="llama-2-7b",
        training=Training(
            training_tokens=2 * 10**12, gpus=256, deadline_days=30, gradient_checkpointing=False
        ),
    )
    sizing = size(workload, gpu=H100)
    one_gpu_seconds = 6 * LLAMA2_7B * 2e12 / (989e12 * 0.40)
    assert DEFAULT_MFU == 0.40
    assert sizing.training_hours == pytest.approx(
        one_gpu_seconds / 256 / 3600 * goodput_factor(256)
    )
    # N GPUs take H / N x (1 + N x 0.1 / 16,384) hours: within 720 hours from N >= H / (720 - H x
    # 0.1 / 16,384).
    one_gpu_hours = one_gpu_seconds / 3600
    assert sizing.gpus_for_deadline == math.ceil(
        one_gpu_hours / (720 - one_gpu_hours * 0.1 / 16_384)
    )


def test_peak_rate_follows_the_training_precision():
    base = Workload(
        task=Task.PRETRAINING, model="llama-2-7b", training=Training(training_tokens=10**9)
    )
    bf16 = size(base, gpu=H100).training_hours
    assert bf16 is not None
    assert size(replace(base, precision=Precision.FP8), gpu=H100).training_hours == pytest.approx(
        bf16 * 989 / 1979
    )
    assert size(replace(base, precision=Precision.FP32), gpu=H100).training_hours == pytest.approx(
        2 * bf16
    )


def test_checkpointing_adds_a_forward_pass_to_the_time_not_to_model_flops():
    base = Workload(
        task=Task.PRETRAINING,
        model="llama-2-7b",
        training=Training(training_tokens=10**9, gradient_checkpointing=True),
    )
    sizing = size(base, gpu=H100)
    assert sizing.training_flops == pytest.approx(6 * LLAMA2_7B * 1e9)
    assert sizing.training_hours == pytest.approx(
        8 * LLAMA2_7B * 1e9 / (989e12 * 0.4) / 3600 * goodput_factor(1)
    )


def test_resnet50_time_uses_per_image_flops_and_cnn_mfu():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="resnet-50",
        training=Training(batch_size=256, gpus=8, epochs=2, gradient_checkpointing=False),
        data=Data(kind=DataKind.IMAGES, items=1_281_167),
    )
    sizing = size(workload, gpu=H100)
    flops = 3 * 8.18e9 * 1_281_167 * 2
    assert sizing.training_flops == pytest.approx(flops)
    assert NON_TRANSFORMER_MFU == 0.20
    assert sizing.training_hours == pytest.approx(
        flops / (8 * 989e12 * 0.20) / 3600 * goodput_factor(8)
    )


def test_no_compute_without_tokens():
    workload = Workload(task=Task.FINE_TUNING, model="llama-2-7b")
    sizing = size(workload, gpu=H100)
    assert sizing.training_flops is None
    assert sizing.training_hours is None
    assert "training_flops" in {e.key for e in sizing.explanations}


# --- Decode speed --------------------------------------------------------------------------------


def test_decode_is_bandwidth_bound_for_llama2_7b():
    workload = Workload(
        task=Task.INFERENCE,
        model="llama-2-7b",
        inference=Inference(concurrent_requests=1, sequence_length=4096),
    )
    step_bytes = LLAMA2_7B * 2 + 524_288 * 4096
    assert size(workload, gpu=TEST_GPU).tokens_per_second == pytest.approx(2000e9 / step_bytes)


def test_decode_of_mixtral_reads_only_the_active_experts_for_one_request():
    workload = Workload(
        task=Task.INFERENCE,
        model="mixtral-8x7b",
        inference=Inference(concurrent_requests=1, sequence_length=1),
    )
    step_bytes = 12_879_925_248 * 2 + 131_072
    assert size(workload, gpu=TEST_GPU, gpus=2).tokens_per_second == pytest.approx(
        2 * 2000e9 / step_bytes
    )


def test_target_rate_gives_whole_replicas():
    workload = Workload(
        task=Task.INFERENCE,
        model="llama-2-7b",
        inference=Inference(sequence_length=4096, target_tokens_per_second=1000),
    )
    sizing = size(workload, gpu=TEST_GPU)
    assert sizing.gpus == 1
    assert sizing.tokens_per_second is not None
    assert sizing.gpus_for_target == math.ceil(1000 / sizing.tokens_per_second)


def test_goodput_follows_the_llama_3_failure_rate_and_grows_with_the_cluster():
    # Llama 3 (arXiv:2407.21783, section 3.3.4): 419 interruptions in 54 days on 16,384 H100s,
    # over 90% effective training time. At that scale the run takes 1.1 x its compute time.
    workload = Workload(
        task=Task.PRETRAINING,
        model="llama-2-7b",
        training=Training(training_tokens=2 * 10**12, gradient_checkpointing=False),
    )
    one_gpu_hours = 6 * LLAMA2_7B * 2e12 / (989e12 * 0.40) / 3600

    frontier = size(workload, gpu=H100, gpus=16_384)
    small = size(workload, gpu=H100, gpus=8)

    assert frontier.training_hours == pytest.approx(one_gpu_hours / 16_384 * 1.1)
    assert 1 / 1.1 > 0.90  # "more than 90% effective training time"
    assert small.training_hours == pytest.approx(one_gpu_hours / 8 * (1 + 8 * 0.1 / 16_384))
    goodput = next(e for e in frontier.explanations if e.key == "goodput")
    assert goodput.message.params["goodput"] == pytest.approx(90.91, abs=0.01)
    assert "arXiv:2407.21783" in goodput.source


def test_a_deadline_shorter_than_the_loss_to_interruptions_is_unreachable():
    # 405B on 15T tokens: 8 x 405e9 x 15e12 FLOPs (with recomputation) at 0.4 x 989 TFLOP/s is
    # 3.4e7 GPU-hours; interruptions alone cost 3.4e7 x 0.1 / 16,384 = 208 hours whatever the
    # count, so no cluster finishes in 5 days (120 hours).
    workload = Workload(
        task=Task.PRETRAINING,
        model="llama-3.1-405b",
        training=Training(training_tokens=15 * 10**12, deadline_days=5),
    )

    sizing = size(workload, gpu=H100, gpus=8)

    assert sizing.gpus_for_deadline == UNREACHABLE_GPUS
