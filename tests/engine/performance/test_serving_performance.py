"""What an option delivers (engine.performance), against figures worked out by hand here.

Decode: a step reads, per GPU of a model copy, its share of the weights and of its users' KV
cache at the full context, at 55% of the memory bandwidth; each user gets one token per step.
Time to first token: 2 x active parameters x prompt tokens (3/4 of the context) plus causal
attention, 2 x layers x prompt tokens^2 x attention heads x head size (FlashAttention-2's count),
over the copy's GPUs at 40% of their peak. Images: FLOPs per image at 25% (diffusion) of the
peak. Parameter counts and shapes are the registry's (model cards); GB = 10^9 bytes.
"""

import dataclasses
import math

import pytest

from engine.assumptions.gpu_models import training_mfu
from engine.build.builder import BuiltOption, PartLine, Tier, Totals
from engine.build.configuration import BuilderInconsistencyError
from engine.performance.degraded import copies_lost
from engine.performance.language import PREFILL_MFU, PROMPT_SHARE
from engine.performance.options import option_performance, performance_for
from engine.performance.results import OneServerDown, Verdict
from engine.sizing.constants import DECODE_BANDWIDTH_EFFICIENCY
from engine.sizing.images import DIFFUSION_MFU
from engine.workload import workload_from_dict
from tests.engine.catalog_factory import eur, gpu
from tests.engine.sizing.sizing_figures import goodput_factor

H100 = gpu()  # 80 GB, 3,350 GB/s, 989 dense BF16 TFLOP/s
L40S = gpu(
    sku="GPU-L40S",
    name="L40S",
    memory_gb=48.0,
    memory_bandwidth_gbs=864.0,
    bf16_tflops=362.1,
    fp8_tflops=733.0,
)
L4 = gpu(sku="GPU-L4", name="L4", memory_gb=24.0, memory_bandwidth_gbs=300.0, bf16_tflops=121.0)
MI300X = gpu(
    sku="GPU-MI300X",
    name="MI300X",
    vendor="AMD",
    memory_gb=192.0,
    memory_bandwidth_gbs=5300.0,
    bf16_tflops=1307.4,
    fp8_tflops=2614.9,
    architecture="CDNA 3",
)

# Llama 3.1 8B: 8,030,261,248 parameters; 32 layers x 8 KV heads x 128 dims: K and V in 16 bits
# = 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token.
LLAMA_8B_PARAMETERS = 8_030_261_248
LLAMA_8B_KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2
# Llama 3.1 70B: 70,553,706,496 parameters; 80 layers x 8 KV heads x 128: 327,680 bytes a token.
LLAMA_70B_PARAMETERS = 70_553_706_496
LLAMA_70B_KV_PER_TOKEN = 2 * 80 * 8 * 128 * 2


def causal_attention_flops(layers, prompt, heads, head_dim):
    """QK^T and scores x V, 2 FLOPs a multiply-add, over half the s x s pairs (causal)."""
    return 2 * layers * prompt**2 * heads * head_dim


def _serve(model, **inference):
    return workload_from_dict({"task": "inference", "model": model, "inference": inference})


# --- Serving a language model --------------------------------------------------------------------


def test_llama_8b_for_one_user_on_one_h100():
    workload = _serve("llama-3.1-8b")  # 1 user, 4,096-token context

    result = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1)

    serving = result.serving
    assert serving is not None
    # Step: 16.06 GB of weights + 0.537 GB of KV = 16.597 GB at 0.55 x 3,350 GB/s = 9.01 ms.
    step_bytes = LLAMA_8B_PARAMETERS * 2 + LLAMA_8B_KV_PER_TOKEN * 4096
    assert step_bytes == 16_597_393_408
    step_s = step_bytes / (3350e9 * 0.55)
    assert serving.tokens_per_second_per_user == pytest.approx(1 / step_s, rel=1e-9)
    assert serving.tokens_per_second_per_user == pytest.approx(111.01, abs=0.01)
    assert serving.tokens_per_second == serving.tokens_per_second_per_user
    # Prefill: 3,072 prompt tokens x 2 x 8.03e9 = 4.934e13 FLOPs, plus attention 2 x 32 layers x
    # 3,072^2 x 32 heads x 128 = 2.474e12 (5% more), at 0.4 x 989 TFLOP/s = 0.131 s.
    assert (serving.prompt_tokens, serving.answer_tokens) == (3072, 1024)
    attention = causal_attention_flops(32, 3072, 32, 128)
    assert attention == 2_473_901_162_496
    ttft = (2 * LLAMA_8B_PARAMETERS * 3072 + attention) / (989e12 * 0.4)
    assert serving.time_to_first_token_s == pytest.approx(ttft, rel=1e-9)
    assert serving.time_to_first_token_s == pytest.approx(0.1310, abs=1e-4)
    assert serving.memory_bound is True
    assert (serving.speed, serving.first_token) == (Verdict.GOOD, Verdict.GOOD)
    assert result.lines[0].render() == "~111 tokens/s for one user, first token in 0.13 s"


def test_fifty_chat_users_shared_by_two_copies_of_llama_8b():
    workload = _serve("llama-3.1-8b", concurrent_requests=50)

    serving = performance_for(workload, H100, gpus_per_replica=1, replicas=2, total_gpus=2).serving

    assert serving is not None
    assert serving.users_per_replica == 25
    # Each copy: 16.06 GB of weights + 25 x 0.537 GB of KV = 29.48 GB a step: 16.0 ms.
    step_bytes = LLAMA_8B_PARAMETERS * 2 + 25 * LLAMA_8B_KV_PER_TOKEN * 4096
    per_user = 3350e9 * 0.55 / step_bytes
    assert serving.tokens_per_second_per_user == pytest.approx(per_user, rel=1e-9)
    assert serving.tokens_per_second_per_user == pytest.approx(62.49, abs=0.01)
    assert serving.tokens_per_second == pytest.approx(50 * per_user, rel=1e-9)
    # The step's compute, 2 x 8.03e9 x 25 = 4.0e11 FLOPs at 395.6 TFLOP/s, is 1 ms: memory-bound.
    assert serving.memory_bound is True


def test_llama_70b_tensor_parallel_four_on_h100_for_sixteen_users_at_8k():
    workload = _serve("llama-3.1-70b", concurrent_requests=16, sequence_length=8192)

    result = performance_for(workload, H100, gpus_per_replica=4, replicas=1, total_gpus=4)

    serving = result.serving
    assert serving is not None
    # Per GPU: (141.1 GB of weights + 16 x 2.68 GB of KV) / 4 = 46.01 GB a step: 24.97 ms.
    per_gpu = (LLAMA_70B_PARAMETERS * 2 + 16 * LLAMA_70B_KV_PER_TOKEN * 8192) / 4
    assert per_gpu / 1e9 == pytest.approx(46.014, abs=1e-3)
    per_user = 3350e9 * 0.55 / per_gpu
    assert serving.tokens_per_second_per_user == pytest.approx(per_user, rel=1e-9)
    assert serving.tokens_per_second_per_user == pytest.approx(40.04, abs=0.01)
    assert serving.tokens_per_second == pytest.approx(16 * per_user, rel=1e-9)
    # Prefill of 6,144 tokens over 4 GPUs: 8.670e14 FLOPs of weights + 4.95e13 of attention (80
    # layers, 64 heads x 128) at 4 x 395.6 TFLOP/s = 0.579 s.
    ttft = (2 * LLAMA_70B_PARAMETERS * 6144 + causal_attention_flops(80, 6144, 64, 128)) / (
        4 * 989e12 * 0.4
    )
    assert serving.time_to_first_token_s == pytest.approx(ttft, rel=1e-9)
    assert serving.time_to_first_token_s == pytest.approx(0.579, abs=1e-3)
    assert result.lines[0].render() == (
        "~40 tokens/s for each of 16 users at once (641 tokens/s in all), first token in 0.58 s"
    )
    assert [e.key for e in result.explanations] == [
        "performance.decode",
        "performance.first_token",
        "performance.software",
    ]
    assert all(e.source for e in result.explanations)


def test_a_mixture_of_experts_with_one_user_reads_only_its_active_experts():
    # Mixtral 8x7B: 46.7B parameters, 12,879,925,248 active (2 of 8 experts per token).
    workload = _serve("mixtral-8x7b")

    serving = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1).serving

    assert serving is not None
    step_bytes = 12_879_925_248 * 2 + 2 * 32 * 8 * 128 * 2 * 4096
    assert serving.tokens_per_second_per_user == pytest.approx(3350e9 * 0.55 / step_bytes, rel=1e-9)


def test_slow_gpus_get_honest_verdicts():
    # 70B over 4 L4 (300 GB/s, 121 TFLOP/s): 46.01 GB per GPU a step at 165 GB/s = 0.279 s.
    short = _serve("llama-3.1-70b", concurrent_requests=16, sequence_length=8192)
    serving = performance_for(short, L4, gpus_per_replica=4, replicas=1, total_gpus=4).serving
    assert serving is not None
    assert serving.tokens_per_second_per_user == pytest.approx(3.59, abs=0.01)
    assert serving.speed is Verdict.POOR  # under 5.3 tokens/s: slower than people read
    # 6,144 prompt tokens: 8.670e14 + 4.95e13 FLOPs at 4 x 48.4 TFLOP/s = 4.73 s.
    assert serving.time_to_first_token_s == pytest.approx(4.734, abs=1e-3)
    assert serving.first_token is Verdict.FAIR

    # On 8 L4 the step halves: 7.2 tokens/s, about reading speed; a 98,304-token prompt of a
    # 131,072-token context takes (2 x 70.55e9 x 98,304 = 1.387e16 FLOPs of weights + 2 x 80 x
    # 98,304^2 x 8,192 = 1.267e16 of attention) / (8 x 48.4e12) = 68.5 s.
    long = _serve("llama-3.1-70b", concurrent_requests=1, sequence_length=131072)
    serving = performance_for(long, L4, gpus_per_replica=8, replicas=1, total_gpus=8).serving
    assert serving is not None
    assert serving.time_to_first_token_s == pytest.approx(68.54, abs=0.01)
    assert serving.first_token is Verdict.POOR
    eight = performance_for(short, L4, gpus_per_replica=8, replicas=1, total_gpus=8).serving
    assert eight is not None
    assert eight.tokens_per_second_per_user == pytest.approx(7.17, abs=0.01)
    assert eight.speed is Verdict.FAIR


# Qwen2.5 7B (config.json): 7,615,616,512 parameters, 28 layers, 28 query heads of 128 (4 KV).
QWEN_7B_PARAMETERS = 7_615_616_512
H100_NVL = gpu(
    sku="NVIDIA-H100-NVL-94GB",
    name="H100 NVL",
    memory_gb=94.0,
    memory_bandwidth_gbs=3900.0,
    bf16_tflops=835.5,
    fp8_tflops=1670.5,
)


def test_a_long_prompt_pays_for_its_causal_attention():
    # 131,072-token context: a 98,304-token prompt.
    workload = _serve("qwen2.5-7b", sequence_length=131072)

    result = performance_for(workload, H100_NVL, gpus_per_replica=1, replicas=1, total_gpus=1)

    serving = result.serving
    assert serving is not None
    assert serving.prompt_tokens == 98_304
    # Weights: 2 x 7.616e9 x 98,304 = 1.497e15 FLOPs; attention: 2 x 28 x 98,304^2 x 3,584 =
    # 1.940e15, more than the weights' past 7.616e9 / (28 x 3,584) = 75,891 prompt tokens.
    linear = 2 * QWEN_7B_PARAMETERS * 98_304
    attention = causal_attention_flops(28, 98_304, 28, 128)
    assert (linear, attention) == (1_497_291_131_191_296, 1_939_538_511_396_864)
    peak = 835.5e12 * training_mfu("H100 NVL").value  # the GPU model's MFU, 40% today
    assert serving.time_to_first_token_s == pytest.approx((linear + attention) / peak, rel=1e-9)
    # ~10 s (10.28 at 40% MFU), not the 4.48 s of the weights alone.
    assert serving.time_to_first_token_s == pytest.approx(10.0, rel=0.2)
    assert linear / peak == pytest.approx(4.48, abs=0.01)
    assert serving.first_token is Verdict.POOR
    first = next(e for e in result.explanations if e.key == "performance.first_token")
    assert first.message.render() == (
        "first token in 10 s: a 98304-token prompt (75% of the 131072-token context, an "
        "assumption) takes 2 FLOPs per active parameter per token (1500 TFLOP) plus causal "
        "attention over 28 layers 3584 wide (1940 TFLOP, growing with the square of the prompt) "
        "on the 1 GPU of one copy at 40% of 835.5 TFLOP/s; waiting behind other prompts is not "
        "counted"
    )
    assert "arXiv:2307.08691" in first.source


def test_a_short_prompt_costs_what_its_weights_cost_within_one_percent():
    # A 384-token prompt (512-token context): attention adds 32 x 384 x 4,096 / 8.03e9 = 0.6%.
    workload = _serve("llama-3.1-8b", sequence_length=512)

    serving = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1).serving

    assert serving is not None
    weights_only = 2 * LLAMA_8B_PARAMETERS * 384 / (989e12 * 0.4)
    assert serving.time_to_first_token_s == pytest.approx(weights_only, rel=0.01)
    assert serving.time_to_first_token_s > weights_only


def test_a_sliding_window_caps_the_keys_each_prompt_token_attends_to():
    # Mistral 7B attends over 4,096 tokens: a 24,576-token prompt (32,768 context) has
    # 24,576 x 4,096 - 4,096^2 / 2 query-key pairs, 4 x d_attn FLOPs each per layer.
    workload = _serve("mistral-7b", sequence_length=32768)

    serving = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1).serving

    assert serving is not None
    pairs = 24_576 * 4_096 - 4_096**2 // 2
    flops = 2 * 7_241_732_096 * 24_576 + 4 * 32 * 32 * 128 * pairs
    assert serving.time_to_first_token_s == pytest.approx(flops / (989e12 * 0.4), rel=1e-9)


def test_the_stated_assumptions():
    assert DECODE_BANDWIDTH_EFFICIENCY == 0.55
    assert PREFILL_MFU == 0.40
    assert PROMPT_SHARE == 0.75
    assert DIFFUSION_MFU == 0.25


# --- Images --------------------------------------------------------------------------------------


def test_sdxl_images_per_second_on_four_l40s():
    workload = workload_from_dict({"task": "inference", "model": "stable-diffusion-xl"})

    result = performance_for(workload, L40S, gpus_per_replica=1, replicas=4, total_gpus=4)

    images = result.images
    assert images is not None
    assert result.serving is None
    # 6.76 TFLOPs per UNet pass x 2 passes (guidance) x 50 steps = 6.76e14 FLOPs per image.
    assert images.flops_per_image == pytest.approx(6.76e14)
    assert images.steps == 50
    # At 0.25 x 362.1 TFLOP/s: 7.47 s per image on one GPU; four GPUs make 0.536 images/s.
    seconds = 6.76e14 / (362.1e12 * 0.25)
    assert images.seconds_per_image == pytest.approx(seconds, rel=1e-9)
    assert images.seconds_per_image == pytest.approx(7.468, abs=1e-3)
    assert images.images_per_second == pytest.approx(4 / seconds, rel=1e-9)
    assert result.lines[0].render() == (
        "~0.54 images/s on 4 x L40S, 7.5 s per image on one GPU (50 steps)"
    )


def test_sdxl_wait_of_the_last_user_flagged_beyond_thirty_seconds():
    seconds = 6.76e14 / (362.1e12 * 0.25)  # 7.47 s per image on one L40S
    ten = workload_from_dict(
        {
            "task": "inference",
            "model": "stable-diffusion-xl",
            "inference": {"concurrent_requests": 10},
        }
    )
    three = workload_from_dict(
        {
            "task": "inference",
            "model": "stable-diffusion-xl",
            "inference": {"concurrent_requests": 3},
        }
    )

    slow = performance_for(ten, L40S, gpus_per_replica=1, replicas=4, total_gpus=4).images
    fine = performance_for(three, L40S, gpus_per_replica=1, replicas=4, total_gpus=4)

    # 10 users on 4 GPUs: ceil(10 / 4) = 3 rounds of 7.47 s, 22.4 s: under 30 s.
    assert slow is not None
    assert fine.images is not None
    assert slow.wait_s == pytest.approx(3 * seconds)
    assert slow.long_wait is False
    # 3 users on 4 GPUs: one round.
    assert fine.images.wait_s == pytest.approx(seconds)
    assert fine.lines[1].render() == (
        "With 3 users each asking one image at once, the last waits ~7.5 s"
    )
    many = workload_from_dict(
        {
            "task": "inference",
            "model": "stable-diffusion-xl",
            "inference": {"concurrent_requests": 20},
        }
    )
    flagged = performance_for(many, L40S, gpus_per_replica=1, replicas=4, total_gpus=4)
    # 20 users: 5 rounds, 37.3 s, flagged.
    assert flagged.images is not None
    assert flagged.images.wait_s == pytest.approx(5 * seconds)
    assert flagged.images.long_wait is True
    assert flagged.lines[1].render() == (
        "With 20 users each asking one image at once, the last waits ~37 s (more than 30 s: "
        "too long for people waiting at the screen)"
    )


def test_resnet_images_per_second_from_its_forward_flops():
    workload = workload_from_dict({"task": "inference", "model": "resnet-50"})

    images = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1).images

    assert images is not None
    # 8.18 GFLOPs per 224 x 224 image at the CNN MFU (20%) of 989 TFLOP/s: 24,181 images/s.
    assert images.steps == 1
    assert images.images_per_second == pytest.approx(989e12 * 0.20 / 8.18e9, rel=1e-9)


def test_an_encoder_has_no_decode_speed_but_embeddings_and_its_software_stack():
    workload = workload_from_dict({"task": "inference", "model": "bert-large"})

    result = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1)

    assert (result.serving, result.images, result.training) == (None, None, None)
    assert result.encoder is not None  # test_encoder_performance.py checks its figures
    assert result.software is not None
    assert result.lines[-1].render() == result.software.statement.render()


# --- Training against the deadline ---------------------------------------------------------------


def _pretrain(deadline_days):
    return workload_from_dict(
        {
            "task": "pretraining",
            "model": "llama-3.1-8b",
            "training": {
                "training_tokens": 10_000_000_000,
                "deadline_days": deadline_days,
                "sharding": "zero3",
            },
        }
    )


# 6 N D + one more forward pass for recomputation (2 N D) = 8 x 8.03e9 x 1e10 = 6.424e20 FLOPs;
# 8 H100 at 0.4 x 989 TFLOP/s = 3.165e15 FLOP/s: 202,990 s = 56.39 hours (2.35 days), and the
# interruptions of 8 GPUs (sizing_figures.goodput_factor) add 0.005%.
TRAINING_HOURS = 8 * LLAMA_8B_PARAMETERS * 1e10 / (8 * 989e12 * 0.4) / 3600 * goodput_factor(8)


def test_training_within_the_deadline():
    result = performance_for(_pretrain(3), H100, gpus_per_replica=8, replicas=1, total_gpus=8)

    training = result.training
    assert training is not None
    assert training.hours == pytest.approx(TRAINING_HOURS, rel=1e-9)
    assert training.hours == pytest.approx(56.39, abs=0.01)
    assert (training.deadline_days, training.meets_deadline) == (3, True)
    assert result.lines[0].render() == (
        "Training takes ~2.3 days on 8 x H100 SXM, within your 3-day deadline"
    )
    how = {e.key: e for e in result.explanations}["performance.training"]
    assert how.message.render().startswith("56.4 hours on 8 x H100 SXM: 6.42e+20 FLOPs")
    assert "arXiv:2407.21783" in how.source


def test_training_past_the_deadline_says_by_how_much():
    result = performance_for(_pretrain(2), H100, gpus_per_replica=8, replicas=1, total_gpus=8)

    training = result.training
    assert training is not None
    assert training.meets_deadline is False
    # 56.39 hours against 48: 8.39 hours late.
    late_hours = TRAINING_HOURS - 48
    assert late_hours == pytest.approx(8.39, abs=0.01)
    assert result.lines[0].render() == (
        "Training takes ~2.3 days on 8 x H100 SXM: it misses your 2-day deadline by 8.4 hours"
    )


def test_training_without_tokens_or_data_has_no_time():
    workload = workload_from_dict({"task": "fine_tuning", "model": "llama-3.1-8b"})

    result = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1)

    assert result.training is None


# --- Software stack ------------------------------------------------------------------------------


def test_amd_gpus_state_rocm_and_nvidia_gpus_cuda():
    workload = _serve("llama-3.1-8b")

    amd = performance_for(workload, MI300X, gpus_per_replica=1, replicas=1, total_gpus=1)
    nvidia = performance_for(workload, H100, gpus_per_replica=1, replicas=1, total_gpus=1)
    other = performance_for(
        workload, gpu(vendor="Other"), gpus_per_replica=1, replicas=1, total_gpus=1
    )

    assert amd.software is not None
    assert amd.software.platform == "ROCm"
    assert "ROCm" in amd.lines[-1].render()
    assert any("rocm.docs.amd.com" in source for source in amd.software.sources)
    assert nvidia.software is not None
    assert nvidia.software.platform == "CUDA"
    assert "CUDA" in nvidia.lines[-1].render()
    assert other.software is None


# --- A built option ------------------------------------------------------------------------------


def _option(parts, servers=2, gpus=8):
    return BuiltOption(
        tier=Tier.BALANCED,
        servers=servers,
        parts=parts,
        totals=Totals(
            gpus=gpus,
            vram_gb=640.0,
            ram_gb=2048,
            storage_gb=7680.0,
            power_w=5000,
            power_sized_w=6000,
            price=eur(200000),
            currency="EUR",
            rack_units=8,
            managed_monthly_price=None,
        ),
        checks=(),
    )


def test_an_option_serves_one_copy_per_gpu_group_on_all_its_gpus():
    workload = _serve("llama-3.1-8b", concurrent_requests=50)
    parts = (
        PartLine("chassis", "CHS", "4-GPU server", 1, eur(0)),
        PartLine("gpu", H100.sku, H100.name, 4, eur(25000)),
    )

    result = option_performance(workload, _option(parts), (L40S, H100))

    assert result is not None
    serving = result.serving
    assert serving is not None
    # 2 servers x 4 GPUs; 8B with 50 users' KV (26.8 GB) fits one H100: 8 copies of 1 GPU.
    assert (result.gpus, serving.gpus_per_replica, serving.replicas) == (8, 1, 8)
    assert serving.users_per_replica == math.ceil(50 / 8)
    same = performance_for(workload, H100, gpus_per_replica=1, replicas=8, total_gpus=8)
    # (with the speed one server down beside the normal one: the tests below)
    assert (
        dataclasses.replace(
            result,
            monitoring=None,
            one_server_down=None,
            lines=result.lines[:1] + result.lines[2:],
        )
        == same
    )
    # The option adds its monitoring plan: 2 servers of 4 linked H100, watched by the host too.
    plan = result.monitoring
    assert plan is not None
    assert plan.vendor == "NVIDIA"
    assert {"power", "nvlink_errors", "network_links"} <= {watch.key for watch in plan.watches}
    assert plan.host_watches
    assert "665" in next(w for w in plan.watches if w.key == "power").alert.render()


def test_a_copy_over_two_servers_decodes_as_a_pipeline_of_two_stages():
    workload = _serve("llama-3.1-70b", concurrent_requests=16, sequence_length=8192)
    together = performance_for(workload, H100, gpus_per_replica=4, replicas=1, total_gpus=4)

    result = performance_for(
        workload, H100, gpus_per_replica=4, replicas=1, total_gpus=4, pipeline_stages=2
    )

    serving, alone = result.serving, together.serving
    assert serving is not None
    assert alone is not None
    # Each stage reads its half of the 46.01 GB per GPU on its 2 GPUs: 24.97 ms a stage; a
    # token crosses both stages in turn, 49.94 ms; the prompt too.
    assert serving.pipeline_stages == 2
    assert alone.pipeline_stages == 1
    assert serving.tokens_per_second_per_user == pytest.approx(40.04 / 2, abs=0.01)
    assert serving.tokens_per_second_per_user == pytest.approx(
        alone.tokens_per_second_per_user / 2, rel=1e-12
    )
    assert serving.time_to_first_token_s == pytest.approx(0.579 * 2, abs=2e-3)
    pipeline = next(e for e in result.explanations if e.key == "performance.pipeline")
    assert pipeline.message.render() == (
        "each copy spans 2 servers, one pipeline stage of 2 GPUs each: a token, and a prompt, "
        "pass through the stages one after the other, so each step takes 2 times as long as one "
        "stage's work; included in the figures above"
    )
    assert "arXiv:2104.04473" in pipeline.source
    assert "performance.pipeline" not in {e.key for e in together.explanations}


def test_an_option_of_one_gpu_per_server_chains_its_copy_over_eight_stages():
    # Llama 3.1 70B with 64 users' KV cache needs one copy of 8 x 48 GB.
    workload = _serve("llama-3.1-70b", concurrent_requests=64)
    one_each = (
        PartLine("chassis", "CHS", "1-GPU server", 1, eur(0)),
        PartLine("gpu", L40S.sku, L40S.name, 1, eur(8000)),
    )

    result = option_performance(workload, _option(one_each, servers=8, gpus=8), (L40S,))

    assert result is not None
    serving = result.serving
    assert serving is not None
    assert (serving.gpus_per_replica, serving.replicas, serving.pipeline_stages) == (8, 1, 8)
    tp8 = performance_for(workload, L40S, gpus_per_replica=8, replicas=1, total_gpus=8).serving
    assert tp8 is not None
    assert serving.tokens_per_second_per_user == pytest.approx(
        tp8.tokens_per_second_per_user / 8, rel=1e-12
    )


def test_an_option_whose_servers_hold_smaller_copies_keeps_each_copy_in_its_server():
    # The same job on 8 servers of 4 L40S: a copy of 4 holds 8 users' KV cache beside the
    # 141 GB of weights (4 x 48 GB x 90 %), so 8 copies of 4 serve the 64 users, no pipeline.
    workload = _serve("llama-3.1-70b", concurrent_requests=64)
    four_each = (
        PartLine("chassis", "CHS", "4-GPU server", 1, eur(0)),
        PartLine("gpu", L40S.sku, L40S.name, 4, eur(8000)),
    )

    result = option_performance(workload, _option(four_each, servers=8, gpus=32), (L40S,))

    assert result is not None
    serving = result.serving
    assert serving is not None
    assert (serving.gpus_per_replica, serving.replicas, serving.pipeline_stages) == (4, 8, 1)
    assert serving.users_per_replica == 8


def test_an_option_without_a_known_gpu_has_no_performance():
    workload = _serve("llama-3.1-8b")
    no_gpu = (PartLine("chassis", "CHS", "server", 1, eur(0)),)
    unknown = (PartLine("gpu", "GPU-GONE", "retired GPU", 1, eur(1)),)

    assert option_performance(workload, _option(unknown), (H100,)) is None
    # The builder never makes an option without a GPU: one is a bug, not a missing figure.
    with pytest.raises(BuilderInconsistencyError):
        option_performance(workload, _option(no_gpu), (H100,))


def test_counts_must_be_positive():
    with pytest.raises(ValueError, match="replicas"):
        performance_for(_serve("llama-3.1-8b"), H100, gpus_per_replica=1, replicas=0, total_gpus=1)


# --- With one server down -----------------------------------------------------------------------


def test_one_server_down_shares_every_user_between_the_copies_left():
    workload = _serve("llama-3.1-8b", concurrent_requests=50)
    parts = (
        PartLine("chassis", "CHS", "4-GPU server", 1, eur(0)),
        PartLine("gpu", H100.sku, H100.name, 4, eur(25000)),
    )

    result = option_performance(workload, _option(parts), (H100,))

    assert result is not None
    assert result.serving is not None
    down = result.one_server_down
    assert down is not None
    # 8 copies of 1 GPU on 2 servers; one down takes its 4: the 4 copies left serve the 50
    # users, 13 a copy instead of 7, at the normal formula's speed for 4 copies
    assert (down.servers, down.replicas) == (1, 4)
    four = performance_for(workload, H100, gpus_per_replica=1, replicas=4, total_gpus=4).serving
    assert four is not None
    assert four.users_per_replica == 13
    assert down.tokens_per_second_per_user == four.tokens_per_second_per_user
    assert down.tokens_per_second == four.tokens_per_second
    assert down.tokens_per_second_per_user < result.serving.tokens_per_second_per_user
    # The line stands beside the normal speed
    assert [line.render() for line in result.lines[:2]] == [
        "~93 tokens/s for each of 50 users at once (4648 tokens/s in all), first token in 0.13 s",
        "With one server down: ~80 tokens/s for each user (93 normally), on the 1 servers still up",
    ]


def test_one_copy_over_two_servers_stops_with_either_and_one_server_has_no_degraded_speed():
    # 70B in BF16 (141 GB) takes 4 L40S a copy: on 2-GPU servers each copy spans two
    workload = _serve("llama-3.1-70b", concurrent_requests=8)
    parts = (
        PartLine("chassis", "CHS", "2-GPU server", 1, eur(0)),
        PartLine("gpu", L40S.sku, L40S.name, 2, eur(8000)),
    )

    split = option_performance(workload, _option(parts, servers=2, gpus=4), (L40S,))
    single = option_performance(workload, _option(parts, servers=1, gpus=2), (L40S,))

    assert split is not None
    assert split.serving is not None
    assert split.serving.replicas == 1
    assert split.one_server_down == OneServerDown(1, 0, 0.0, 0.0)
    assert split.lines[1].render() == (
        "With one server down, no whole model copy is left: the service stops until the server "
        "is repaired"
    )
    assert single is not None
    assert single.one_server_down is None


def test_copies_lost_with_a_server():
    assert copies_lost(gpus_per_replica=1, gpus_per_server=8) == 8
    assert copies_lost(gpus_per_replica=2, gpus_per_server=8) == 4
    assert copies_lost(gpus_per_replica=16, gpus_per_server=8) == 1
