"""Multi-head latent attention (DeepSeek-V2/V3/R1): the KV cache is one latent and one RoPE key
per layer and token, not keys and values per head.

Expected figures are worked out here from the DeepSeek-V2 paper (arXiv:2405.04434, section 2.1
and Table 1: ``(d_c + d_h^R) x l`` elements per token) and DeepSeek-V3's config.json
(num_hidden_layers 61, kv_lora_rank 512, qk_rope_head_dim 64), never copied from the engine.
GB = 10^9 bytes.
"""

import pytest

from engine.sizing import kv_cache_bytes_per_token, size
from engine.workload import Precision, workload_from_dict
from engine.workload.registry import Architecture
from tests.engine.workload.models import registered

GB = 1e9
# DeepSeek-V3 config.json: 61 layers, a 512-element latent and a 64-element RoPE key per layer.
DEEPSEEK_V3_LATENT_BF16 = (512 + 64) * 61 * 2  # 70,272 bytes per token
DEEPSEEK_V3_CONFIG = {
    "layers": 61,
    "hidden_size": 7168,
    "attention_heads": 128,
    "kv_heads": 128,
    "head_dim": 128,
    "vocab_size": 129280,
    "experts": 256,
    "experts_per_token": 8,
    "context_length": 163840,
}


def _serving(users: int, **inference: object) -> dict:
    return {
        "task": "inference",
        "model": "deepseek-v3",
        "precision": "fp8",
        "inference": {"concurrent_requests": users, "sequence_length": 8192, **inference},
    }


@pytest.mark.parametrize("model_id", ["deepseek-v3", "deepseek-r1"])
def test_the_latent_cache_is_about_70_kb_per_token_in_bf16_and_35_in_fp8(model_id):
    arch = registered(model_id).architecture
    assert DEEPSEEK_V3_LATENT_BF16 == 70_272
    assert kv_cache_bytes_per_token(arch, Precision.BF16) == 70_272
    assert kv_cache_bytes_per_token(arch, Precision.FP8) == 35_136
    # Per-head keys and values of the same 128 heads would be 2 x 61 x 128 x 128 x 2 bytes:
    # the latent is about 57 times smaller.
    per_head = 2 * 61 * 128 * 128 * 2
    assert round(per_head / 70_272) == 57


def test_deepseek_v3_serving_32_users_at_8k_holds_18_gb_of_latent_cache_not_a_terabyte():
    sizing = size(workload_from_dict(_serving(32)))

    # 70,272 bytes x 8,192 tokens x 32 requests, in the default 16-bit KV format.
    assert sizing.memory_gb.kv_cache == pytest.approx(70_272 * 8192 * 32 / GB)
    assert sizing.memory_gb.kv_cache == pytest.approx(18.42, abs=0.01)
    # FP8 weights as shipped: 671,026,419,200 at 1 byte, the 2 x 129,280 x 7,168 embedding
    # and output head kept at 2 bytes.
    embeddings = 2 * 129_280 * 7_168
    assert sizing.memory_gb.weights == pytest.approx((671_026_419_200 + embeddings) / GB)
    explained = next(e for e in sizing.explanations if e.key == "memory.kv_cache")
    assert "(512 latent + 64 RoPE key) x 61 layers" in explained.message.render()
    assert "arXiv:2405.04434" in explained.source


def test_an_fp8_latent_cache_halves_it():
    sizing = size(workload_from_dict(_serving(32, kv_cache_precision="fp8")))
    assert sizing.memory_gb.kv_cache == pytest.approx(35_136 * 8192 * 32 / GB)


def test_a_custom_architecture_with_kv_lora_rank_is_sized_as_latent_attention():
    latent = {**DEEPSEEK_V3_CONFIG, "kv_lora_rank": 512, "qk_rope_head_dim": 64}
    workload = {
        "task": "inference",
        "parameters_billions": 671,
        "precision": "fp8",
        "architecture": latent,
        "inference": {"concurrent_requests": 32, "sequence_length": 8192},
    }
    sizing = size(workload_from_dict(workload))
    assert sizing.memory_gb.kv_cache == pytest.approx(70_272 * 8192 * 32 / GB)
    # Without the latent fields the same heads are sized as keys and values per head.
    workload["architecture"] = DEEPSEEK_V3_CONFIG
    per_head = size(workload_from_dict(workload))
    assert per_head.memory_gb.kv_cache == pytest.approx(2 * 61 * 128 * 128 * 2 * 8192 * 32 / GB)


def test_latent_attention_ignores_kv_heads_and_head_dim():
    arch = Architecture(
        layers=2, hidden_size=64, attention_heads=4, kv_lora_rank=16, qk_rope_head_dim=8
    )
    wider = arch.overridden_by(Architecture(kv_heads=4, head_dim=512))
    assert kv_cache_bytes_per_token(arch, Precision.BF16) == (16 + 8) * 2 * 2
    assert kv_cache_bytes_per_token(wider, Precision.BF16) == (16 + 8) * 2 * 2
