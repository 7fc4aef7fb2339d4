"""The sizing's memory figures against worked numbers from their sources: model states and
ZeRO, activations, KV cache, quantisation and LoRA.

Every expected number is either quoted from a paper / model card or recomputed by hand here from
the formula's definition (the arithmetic is written out), never copied from the engine's output.
GB = 10^9 bytes.
"""

import math
from dataclasses import replace

import pytest

from engine.sizing import (
    CUDA_CONTEXT_GB,
    INT4_CONSTANT_BITS,
    RUNTIME_OVERHEAD_FRACTION,
    activation_bytes_per_layer,
    kv_cache_bytes_per_token,
    lora_adapter_parameters,
    model_state_bytes_per_parameter,
    size,
    zero_model_state_bytes_per_gpu,
)
from engine.workload import (
    Inference,
    Optimizer,
    Precision,
    Sharding,
    Task,
    Training,
    TrainingMethod,
    Workload,
    workload_from_dict,
)
from engine.workload.registry import Architecture
from tests.engine.sizing.sizing_figures import GB, LLAMA2_7B
from tests.engine.workload.models import registered


def _overhead(base_bytes):
    return CUDA_CONTEXT_GB * GB + RUNTIME_OVERHEAD_FRACTION * base_bytes


# --- Model states and ZeRO -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("precision", "optimizer", "expected"),
    [
        (Precision.BF16, Optimizer.ADAMW, (2, 2, 12)),  # ZeRO paper: 2 + 2 + K, K = 12
        (Precision.FP16, Optimizer.ADAMW, (2, 2, 12)),
        (Precision.BF16, Optimizer.ADAMW_8BIT, (2, 2, 6)),  # 2-byte states + fp32 master
        (Precision.BF16, Optimizer.SGD, (2, 2, 8)),  # momentum 4 + master 4
        (Precision.FP32, Optimizer.ADAMW, (4, 4, 8)),
        (Precision.FP32, Optimizer.SGD, (4, 4, 4)),
    ],
)
def test_model_state_bytes_per_parameter(precision, optimizer, expected):
    assert model_state_bytes_per_parameter(precision, optimizer) == expected


@pytest.mark.parametrize(
    ("sharding", "paper_gb"),
    [
        # Rajbhandari et al. 2020, Figure 1: 7.5B parameters, Nd = 64, K = 12.
        (Sharding.NONE, 120),
        (Sharding.ZERO1, 31.4),
        (Sharding.ZERO2, 16.6),
        (Sharding.ZERO3, 1.88),
    ],
)
def test_zero_paper_worked_example(sharding, paper_gb):
    per_gpu = zero_model_state_bytes_per_gpu(7.5e9, 64, sharding) / GB
    assert per_gpu == pytest.approx(paper_gb, abs=0.05)
    workload = Workload(
        task=Task.PRETRAINING,
        parameters_billions=7.5,
        training=Training(batch_size=64, gpus=64, sharding=sharding),
    )
    m = size(workload).memory_per_gpu_gb
    assert m.weights + m.gradients + m.optimizer_states == pytest.approx(paper_gb, abs=0.05)


def test_zero_exact_values():
    # 2*7.5 + 2*7.5 + 12*7.5/64, 2*7.5 + 14*7.5/64, 16*7.5/64
    assert zero_model_state_bytes_per_gpu(7.5e9, 64, Sharding.ZERO1) / GB == pytest.approx(31.40625)
    assert zero_model_state_bytes_per_gpu(7.5e9, 64, Sharding.ZERO2) / GB == pytest.approx(
        16.640625
    )
    assert zero_model_state_bytes_per_gpu(7.5e9, 64, Sharding.ZERO3) / GB == pytest.approx(1.875)


def test_full_fine_tuning_memory_of_llama2_7b():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(
            batch_size=1,
            sequence_length=4096,
            flash_attention=False,
            gradient_checkpointing=False,  # the paper's no-recomputation formula
        ),
    )
    m = size(workload).memory_gb
    assert m.weights == pytest.approx(2 * LLAMA2_7B / GB)
    assert m.gradients == pytest.approx(2 * LLAMA2_7B / GB)
    assert m.optimizer_states == pytest.approx(12 * LLAMA2_7B / GB)
    assert m.kv_cache == 0
    # Korthikanti: 32 layers x s*h*(34 + 5*a*s/h) with s=4096, h=4096, a=32 -> 34 + 160, plus
    # embedding/output terms 5*s*h + 4*s*v (v = 32000).
    per_layer = 4096 * 4096 * (34 + 160)
    expected = 32 * per_layer + 5 * 4096 * 4096 + 4 * 4096 * 32000
    assert m.activations == pytest.approx(expected / GB)
    base = (16 * LLAMA2_7B + expected) / GB
    assert m.overhead == pytest.approx(CUDA_CONTEXT_GB + RUNTIME_OVERHEAD_FRACTION * base)
    parts = m.weights + m.gradients + m.optimizer_states + m.activations + m.kv_cache
    assert m.total == pytest.approx(parts + m.overhead)


def test_flash_attention_by_default_drops_the_attention_score_term():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(batch_size=1, sequence_length=4096, gradient_checkpointing=False),
    )
    # Korthikanti without the 5as/h scores (FlashAttention keeps none): 34 s*h per layer.
    expected = 32 * 4096 * 4096 * 34 + 5 * 4096 * 4096 + 4 * 4096 * 32000
    assert size(workload).memory_gb.activations == pytest.approx(expected / GB)


def test_fp32_training_doubles_activations_and_uses_16_bytes_of_states():
    bf16 = Workload(task=Task.FINE_TUNING, model="llama-2-7b", training=Training(batch_size=1))
    fp32 = replace(bf16, precision=Precision.FP32)
    a, b = size(bf16).memory_gb, size(fp32).memory_gb
    assert b.activations == pytest.approx(2 * a.activations)
    assert b.weights + b.gradients + b.optimizer_states == pytest.approx(16 * LLAMA2_7B / GB)


# --- Activations (Korthikanti et al. 2022) -------------------------------------------------------


def test_activation_bytes_per_layer_by_hand():
    # s=2048, b=1, h=4096, a=32: 5as/h = 5*32*2048/4096 = 80 -> 2048*4096*(34+80)
    assert activation_bytes_per_layer(2048, 1, 4096, 32) == 956_301_312
    # GPT-3 175B shape, h=12288, a=96, s=2048: 5*96*2048/12288 = 80 -> 2048*12288*114
    assert activation_bytes_per_layer(2048, 1, 12288, 96) == 2_868_903_936
    # Batch is linear: b=4.
    assert activation_bytes_per_layer(2048, 4, 4096, 32) == 4 * 956_301_312
    # Full recomputation keeps only the layer input, 2sbh.
    assert activation_bytes_per_layer(2048, 4, 4096, 32, recompute=True) == 2 * 2048 * 4 * 4096
    # Without stored attention scores (FlashAttention / selective recomputation): 34sbh.
    assert activation_bytes_per_layer(2048, 1, 4096, 32, attention_scores=False) == (
        34 * 2048 * 4096
    )
    # Two experts per token double the MLP's 19sbh: 15 + 38 + 80.
    assert activation_bytes_per_layer(2048, 1, 4096, 32, experts_per_token=2) == (2048 * 4096 * 133)


def test_gradient_checkpointing_keeps_layer_inputs_plus_one_layer():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(batch_size=1, sequence_length=4096, gradient_checkpointing=True),
    )
    expected = (
        32 * 2 * 4096 * 4096  # layer inputs
        + 4096 * 4096 * 34  # the layer being recomputed (FlashAttention: no score matrix)
        + 5 * 4096 * 4096
        + 4 * 4096 * 32000  # embedding and output terms
    )
    assert size(workload).memory_gb.activations == pytest.approx(expected / GB)


def test_resnet50_activations_use_the_registry_per_image_estimate():
    training = Training(batch_size=256, micro_batch_size=256, gpus=8, gradient_checkpointing=False)
    workload = Workload(task=Task.FINE_TUNING, model="resnet-50", training=training)
    sizing = size(workload)
    per_image = 21_073_920 * 2  # elements x 2 bytes (16-bit)
    assert sizing.memory_gb.activations == pytest.approx(256 * per_image / GB)
    # A micro-batch never exceeds the GPU's share of the global batch: 256 / 8.
    assert sizing.memory_per_gpu_gb.activations == pytest.approx(32 * per_image / GB)
    assert (sizing.micro_batch, sizing.accumulation_steps) == (32, 1)
    assert sizing.memory_gb.kv_cache == 0
    checkpointed = size(replace(workload, training=replace(training, gradient_checkpointing=True)))
    assert checkpointed.memory_gb.activations == pytest.approx(
        256 * per_image * 2 / math.sqrt(50) / GB
    )


# --- KV cache ------------------------------------------------------------------------------------


def test_kv_cache_per_token_mha_llama2_7b():
    arch = registered("llama-2-7b").architecture
    assert kv_cache_bytes_per_token(arch, Precision.BF16) == 2 * 32 * 32 * 128 * 2 == 524_288


def test_kv_cache_per_token_gqa_llama31_70b_is_eight_times_smaller_than_mha():
    arch = registered("llama-3.1-70b").architecture
    gqa = kv_cache_bytes_per_token(arch, Precision.BF16)
    assert gqa == 2 * 80 * 8 * 128 * 2 == 327_680
    mha = kv_cache_bytes_per_token(arch.overridden_by(Architecture(kv_heads=64)), Precision.BF16)
    assert mha == 8 * gqa


def test_kv_cache_precision_defaults_to_weights_and_can_be_fp8():
    arch = registered("llama-3.1-70b").architecture
    assert kv_cache_bytes_per_token(arch, Precision.FP8) == 163_840


def test_inference_memory_of_llama31_70b_on_four_gpus():
    workload = Workload(
        task=Task.INFERENCE,
        model="llama-3.1-70b",
        inference=Inference(concurrent_requests=32, sequence_length=8192),
    )
    sizing = size(workload, gpus=4)
    weights = 70_553_706_496 * 2
    kv = 327_680 * 8192 * 32
    assert sizing.memory_gb.weights == pytest.approx(weights / GB)
    assert sizing.memory_gb.kv_cache == pytest.approx(kv / GB)
    per_gpu = sizing.memory_per_gpu_gb
    assert per_gpu.weights == pytest.approx(weights / 4 / GB)
    assert per_gpu.kv_cache == pytest.approx(kv / 4 / GB)
    assert per_gpu.overhead == pytest.approx(_overhead((weights + kv) / 4) / GB)
    assert per_gpu.total == pytest.approx(
        (weights / 4 + kv / 4 + _overhead((weights + kv) / 4)) / GB
    )
    assert sizing.model_sharded is True


def test_sliding_window_caps_the_kv_cache_of_mistral_7b():
    def kv_gb(sequence_length):
        workload = Workload(
            task=Task.INFERENCE,
            model="mistral-7b",
            inference=Inference(sequence_length=sequence_length),
        )
        return size(workload).memory_gb.kv_cache

    per_token = 2 * 32 * 8 * 128 * 2
    assert kv_gb(2048) == pytest.approx(per_token * 2048 / GB)
    assert kv_gb(32768) == pytest.approx(per_token * 4096 / GB)


def test_encoder_and_image_models_have_no_kv_cache():
    for model in ("bert-large", "resnet-50", "stable-diffusion-xl"):
        workload = Workload(task=Task.INFERENCE, model=model)
        assert size(workload).memory_gb.kv_cache == 0


# --- Quantisation, LoRA and QLoRA ----------------------------------------------------------------


def test_lora_adapter_count_matches_peft_for_llama2_7b_and_llama31_8b():
    # PEFT print_trainable_parameters, r=16 on q,k,v,o,gate,up,down:
    # Llama-2-7b "trainable params: 39,976,960"; Llama-3.1-8B "trainable params: 41,943,040".
    assert lora_adapter_parameters(registered("llama-2-7b").architecture, 16, LLAMA2_7B) == (
        39_976_960
    )
    arch = registered("llama-3.1-8b").architecture
    assert lora_adapter_parameters(arch, 16, 8_030_261_248) == 41_943_040
    assert lora_adapter_parameters(arch, 64, 8_030_261_248) == 4 * 41_943_040


def test_qlora_memory_of_llama2_7b():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(method=TrainingMethod.QLORA, batch_size=1),
    )
    m = size(workload).memory_gb
    adapters = 39_976_960
    embeddings = 2 * 32000 * 4096  # input embedding + output head stay 16-bit
    nf4 = (LLAMA2_7B - embeddings) * (4 + INT4_CONSTANT_BITS) / 8
    assert INT4_CONSTANT_BITS == 0.127  # QLoRA section 3, double quantization
    assert m.weights == pytest.approx((embeddings * 2 + nf4 + adapters * 2) / GB)
    assert m.gradients == pytest.approx(adapters * 2 / GB)
    assert m.optimizer_states == pytest.approx(adapters * 12 / GB)


def test_lora_keeps_the_base_at_the_chosen_precision_without_gradients():
    workload = Workload(
        task=Task.FINE_TUNING,
        model="llama-2-7b",
        training=Training(method=TrainingMethod.LORA, batch_size=1),
    )
    m = size(workload).memory_gb
    assert m.weights == pytest.approx((LLAMA2_7B * 2 + 39_976_960 * 2) / GB)
    assert m.gradients == pytest.approx(39_976_960 * 2 / GB)


def test_int4_inference_weights_keep_embeddings_16_bit():
    workload = Workload(task=Task.INFERENCE, model="llama-3.1-8b", precision=Precision.INT4)
    embeddings = 2 * 128256 * 4096
    expected = embeddings * 2 + (8_030_261_248 - embeddings) * 4.127 / 8
    assert size(workload).memory_gb.weights == pytest.approx(expected / GB)


def test_sdxl_fine_tuning_trains_only_the_unet():
    workload = Workload(
        task=Task.FINE_TUNING, model="stable-diffusion-xl", training=Training(batch_size=1)
    )
    m = size(workload).memory_gb
    unet, frozen = 2_567_463_684, 901_374_183
    assert m.weights == pytest.approx((unet * 2 + frozen * 2) / GB)
    assert m.optimizer_states == pytest.approx(unet * 12 / GB)


def test_int4_weights_keep_a_16_bit_kv_cache_unless_fp8_is_asked():
    # Llama 3.1 70B: 80 layers x 8 KV heads x 128 = 2 x 80 x 8 x 128 x 2 bytes = 327,680 bytes
    # per token in 16 bits; 8 users x 8,192 tokens = 21.47 GB (vLLM keeps the model's 16-bit
    # type for AWQ/GPTQ weights; INT4 KV would claim 5.4 GB, a build that does not fit).
    def kv_gb(**inference: object) -> float:
        workload = workload_from_dict(
            {
                "task": "inference",
                "model": "llama-3.1-70b",
                "precision": "int4",
                "inference": {"concurrent_requests": 8, "sequence_length": 8192, **inference},
            }
        )
        return size(workload, explain=False).memory_gb.kv_cache

    per_token = 2 * 80 * 8 * 128
    assert kv_gb() == pytest.approx(per_token * 2 * 8192 * 8 / 1e9)
    assert kv_gb(kv_cache_precision="fp8") == pytest.approx(per_token * 1 * 8192 * 8 / 1e9)
