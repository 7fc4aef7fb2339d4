"""The model registry: exact counts from model cards, shapes from config.json, loaded once.

Expected values below are copied from the public sources named next to them (Hugging Face model
API ``safetensors.total``, config.json files, torchvision, papers), never from the engine.
"""

import pytest

from engine.workload import LIMITS
from engine.workload.registry import (
    Architecture,
    Modality,
    RegistryError,
    all_models,
    entry_from_json,
    get_model,
    load_registry,
    model_ids,
)
from tests.engine.workload.models import registered

# Exact parameter counts from the model cards / HF API (safetensors.total) / torchvision.
PUBLISHED_PARAMETERS = {
    "llama-3.1-8b": 8_030_261_248,  # HF API meta-llama/Llama-3.1-8B safetensors.total
    "llama-3.1-70b": 70_553_706_496,  # HF API meta-llama/Llama-3.1-70B
    "llama-3.1-405b": 405_853_388_800,  # HF API meta-llama/Llama-3.1-405B
    "mistral-7b": 7_241_732_096,  # GGUF general.parameter_count of Mistral-7B-v0.1
    "mixtral-8x7b": 46_702_792_704,  # HF API mistralai/Mixtral-8x7B safetensors.total
    "qwen2.5-7b": 7_615_616_512,  # HF API Qwen/Qwen2.5-7B
    "qwen2.5-72b": 72_706_203_648,  # HF API Qwen/Qwen2.5-72B
    "bert-large": 335_141_888,  # BertModel.from_pretrained("bert-large-uncased") numel
    "resnet-50": 25_557_032,  # torchvision ResNet50_Weights meta num_params
}

# HF API safetensors.total for Llama 2 also counts one rotary inv_freq buffer of head_dim/2 = 64
# values per layer, which is not a parameter.
LLAMA2_SAFETENSORS_TOTAL = {
    "llama-2-7b": (6_738_417_664, 32),
    "llama-2-13b": (13_015_866_880, 40),
    "llama-2-70b": (68_976_653_312, 80),
}

# config.json values: (layers, hidden, heads, kv heads, intermediate, vocab).
CONFIG_JSON = {
    "llama-2-7b": (32, 4096, 32, 32, 11008, 32000),
    "llama-2-13b": (40, 5120, 40, 40, 13824, 32000),
    "llama-2-70b": (80, 8192, 64, 8, 28672, 32000),
    "llama-3.1-8b": (32, 4096, 32, 8, 14336, 128256),
    "llama-3.1-70b": (80, 8192, 64, 8, 28672, 128256),
    "llama-3.1-405b": (126, 16384, 128, 8, 53248, 128256),
    "mistral-7b": (32, 4096, 32, 8, 14336, 32000),
    "mixtral-8x7b": (32, 4096, 32, 8, 14336, 32000),
    "qwen2.5-7b": (28, 3584, 28, 4, 18944, 152064),
    "qwen2.5-72b": (80, 8192, 64, 8, 29568, 152064),
    "falcon-40b": (60, 8192, 128, 8, 32768, 65024),
    "bert-large": (24, 1024, 16, 16, 4096, 30522),
}

REQUIRED_IDS = {
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mistral-7b",
    "mixtral-8x7b",
    "deepseek-v3",
    "deepseek-r1",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "falcon-40b",
    "stable-diffusion-xl",
    "bert-large",
    "resnet-50",
}


def _known(value: int | None) -> int:
    """A field the registry must give for a decoder (``None`` means unknown)."""
    assert value is not None
    return value


def _decoder_parameters(
    arch: Architecture, *, qkv_bias: bool = False, norm_params_per_layer: int = 2
) -> int:
    """Parameters of a Llama-style decoder, written out from its config.json fields:
    q/k/v/o projections, gated MLP (3 matrices), RMSNorms, embedding and output head."""
    h, layers, heads, kv_heads = (
        _known(arch.hidden_size),
        _known(arch.layers),
        _known(arch.attention_heads),
        _known(arch.kv_heads),
    )
    head_dim, intermediate, vocab = (
        _known(arch.head_dim),
        _known(arch.intermediate_size),
        _known(arch.vocab_size),
    )
    q = h * heads * head_dim
    kv = h * kv_heads * head_dim
    o = heads * head_dim * h
    experts = arch.experts or 1
    mlp = 3 * h * intermediate * experts
    router = h * experts if experts > 1 else 0
    bias = (heads + 2 * kv_heads) * head_dim if qkv_bias else 0
    per_layer = q + 2 * kv + o + mlp + router + bias + norm_params_per_layer * h
    return layers * per_layer + vocab * h * 2 + h


def test_every_required_model_is_registered():
    assert set(model_ids()) >= REQUIRED_IDS


@pytest.mark.parametrize(("model_id", "expected"), PUBLISHED_PARAMETERS.items())
def test_parameter_counts_match_the_model_cards(model_id, expected):
    assert registered(model_id).parameters == expected


@pytest.mark.parametrize(("model_id", "published"), LLAMA2_SAFETENSORS_TOTAL.items())
def test_llama2_counts_are_the_safetensors_totals_without_rotary_buffers(model_id, published):
    total, layers = published
    assert registered(model_id).parameters == total - layers * 64


@pytest.mark.parametrize(("model_id", "config"), CONFIG_JSON.items())
def test_architecture_matches_config_json(model_id, config):
    arch = registered(model_id).architecture
    layers, hidden, heads, kv_heads, intermediate, vocab = config
    assert (
        arch.layers,
        arch.hidden_size,
        arch.attention_heads,
        arch.kv_heads,
        arch.intermediate_size,
        arch.vocab_size,
    ) == (layers, hidden, heads, kv_heads, intermediate, vocab)


@pytest.mark.parametrize(
    "model_id",
    [
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "mistral-7b",
        "mixtral-8x7b",
    ],
)
def test_llama_style_counts_follow_from_their_architecture(model_id):
    entry = registered(model_id)
    assert entry.parameters == _decoder_parameters(entry.architecture)


@pytest.mark.parametrize("model_id", ["qwen2.5-7b", "qwen2.5-72b"])
def test_qwen_counts_follow_from_architecture_with_qkv_biases(model_id):
    entry = registered(model_id)
    assert entry.parameters == _decoder_parameters(entry.architecture, qkv_bias=True)


def test_falcon_40b_count_follows_from_its_config():
    # Fused QKV for 128 query + 2 x 8 KV heads of 64, dense out, GELU MLP 8192 -> 32768 -> 8192,
    # no linear biases, two LayerNorms (weight + bias) per layer, tied output head, final LN.
    h = 8192
    per_layer = h * (128 + 2 * 8) * 64 + h * h + 2 * h * 32768 + 2 * 2 * h
    expected = 60 * per_layer + 65024 * h + 2 * h
    assert expected == 41_303_293_952
    assert registered("falcon-40b").parameters == expected


def test_bert_large_count_follows_from_its_config():
    h, inter = 1024, 4096
    embeddings = 30522 * h + 512 * h + 2 * h + 2 * h
    per_layer = (
        3 * (h * h + h) + (h * h + h) + 2 * h + (h * inter + inter) + (inter * h + h) + 2 * h
    )
    pooler = h * h + h
    assert registered("bert-large").parameters == embeddings + 24 * per_layer + pooler


def test_mixtral_active_parameters_use_two_of_eight_experts():
    entry = registered("mixtral-8x7b")
    one_expert_all_layers = 32 * 3 * 4096 * 14336
    assert entry.active_parameters == entry.parameters - 6 * one_expert_all_layers
    assert entry.architecture.experts == 8
    assert entry.architecture.experts_per_token == 2


# DeepSeek-V3 and R1 config.json (deepseek-ai/DeepSeek-V3, deepseek-ai/DeepSeek-R1 on Hugging Face).
DEEPSEEK_CONFIG = {
    "layers": 61,  # num_hidden_layers
    "hidden_size": 7168,
    "attention_heads": 128,
    "kv_heads": 128,  # num_key_value_heads
    "vocab_size": 129280,
    "experts": 256,  # n_routed_experts
    "experts_per_token": 8,  # num_experts_per_tok
    "intermediate_size": 2048,  # moe_intermediate_size
    "context_length": 163840,  # max_position_embeddings
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
}


def _deepseek_v3_parameters(*, routed_experts: int) -> int:
    """DeepSeek-V3's main model (no multi-token-prediction layer) from config.json, with the
    shapes of its modeling_deepseek.py: latent attention, 3 dense layers then 58 MoE layers of
    ``routed_experts`` routed experts (of 256 stored) plus one shared expert."""
    h, heads, q_rank, kv_rank, rope, nope, v = 7168, 128, 1536, 512, 64, 128, 128
    attention = (
        h * q_rank  # q_a_proj
        + q_rank  # q_a_layernorm
        + q_rank * heads * (nope + rope)  # q_b_proj
        + h * (kv_rank + rope)  # kv_a_proj_with_mqa
        + kv_rank  # kv_a_layernorm
        + kv_rank * heads * (nope + v)  # kv_b_proj
        + heads * v * h  # o_proj
        + 2 * h  # input and post-attention norms
    )
    expert = 3 * h * 2048  # gate, up, down at moe_intermediate_size
    moe = (routed_experts + 1) * expert + 256 * h + 256  # router weight and bias (all 256)
    dense = 3 * h * 18432  # intermediate_size of the first_k_dense_replace = 3 layers
    return 61 * attention + 3 * dense + 58 * moe + 2 * 129280 * h + h


@pytest.mark.parametrize("model_id", ["deepseek-v3", "deepseek-r1"])
def test_deepseek_v3_and_r1_are_671b_with_37b_active_and_latent_attention(model_id):
    entry = registered(model_id)
    arch = entry.architecture
    assert {name: getattr(arch, name) for name in DEEPSEEK_CONFIG} == DEEPSEEK_CONFIG
    assert arch.is_latent_attention
    assert arch.is_moe
    # The technical report (arXiv:2412.19437): 671B total, 37B activated per token.
    assert entry.parameters == _deepseek_v3_parameters(routed_experts=256) == 671_026_419_200
    assert entry.active_parameters == _deepseek_v3_parameters(routed_experts=8)
    assert round(entry.active_parameters / 1e9) == 38  # 37.55B: the report rounds down
    assert entry.autoregressive
    assert any(s.endswith(f"{entry.name}/blob/main/config.json") for s in entry.sources)
    assert "https://arxiv.org/abs/2412.19437" in entry.sources


def test_sdxl_is_unet_plus_text_encoders_plus_vae():
    entry = registered("stable-diffusion-xl")
    unet, clip_l, clip_bigg, vae = 2_567_463_684, 123_060_480, 694_659_840, 83_653_863
    assert entry.parameters == unet + clip_l + clip_bigg + vae
    assert entry.frozen_parameters == clip_l + clip_bigg + vae
    assert entry.modality is Modality.IMAGE
    assert not entry.architecture.is_transformer
    assert not entry.autoregressive


def test_resnet50_activation_estimate_follows_he_et_al_table_1():
    # Every convolution output (batch-norm input) + every ReLU output + input + max-pool output.
    conv_outputs = [64 * 112 * 112]
    downsample = []
    for blocks, width, out, size_in, size_out in [
        (3, 64, 256, 56, 56),
        (4, 128, 512, 56, 28),
        (6, 256, 1024, 28, 14),
        (3, 512, 2048, 14, 7),
    ]:
        for block in range(blocks):
            first_size = size_in if block == 0 else size_out
            conv_outputs += [
                width * first_size**2,
                width * size_out**2,
                out * size_out**2,
            ]
            if block == 0:
                downsample.append(out * size_out**2)
    conv_outputs += downsample
    relu_outputs = sum(conv_outputs) - sum(downsample)
    expected = sum(conv_outputs) + relu_outputs + 3 * 224 * 224 + 64 * 56 * 56
    assert registered("resnet-50").activation_elements_per_sample == expected


def test_mistral_has_its_4096_token_sliding_window():
    assert registered("mistral-7b").architecture.sliding_window == 4096
    assert registered("mixtral-8x7b").architecture.sliding_window is None


def test_every_entry_is_sourced_licensed_and_within_limits():
    for entry in all_models():
        assert entry.license
        assert all(source.startswith("https://") for source in entry.sources), entry.id
        for name in (
            "layers",
            "hidden_size",
            "attention_heads",
            "kv_heads",
            "head_dim",
            "vocab_size",
            "intermediate_size",
            "context_length",
        ):
            value = getattr(entry.architecture, name)
            if value is not None:
                low, high = LIMITS[f"architecture.{name}"]
                assert low <= value <= high, (entry.id, name)


def test_registry_is_loaded_once():
    assert load_registry() is load_registry()


def test_unknown_id_gives_none():
    assert get_model("gpt-5") is None


def test_malformed_entry_is_rejected_with_its_id():
    with pytest.raises(RegistryError, match="broken: missing"):
        entry_from_json({"id": "broken", "name": "x"})
    with pytest.raises(RegistryError, match="unknown architecture fields"):
        entry_from_json(
            {
                "id": "odd",
                "name": "Odd",
                "family": "x",
                "parameters": 1,
                "modality": "text",
                "license": "mit",
                "sources": ["https://example.org"],
                "architecture": {"depth": 3},
            }
        )


def test_override_replaces_only_the_fields_it_sets():
    base = registered("llama-3.1-70b").architecture
    merged = base.overridden_by(Architecture(kv_heads=64))
    assert merged.kv_heads == 64
    assert merged.layers == 80
    assert merged.vocab_size == 128256
    assert base.overridden_by(None) is base
