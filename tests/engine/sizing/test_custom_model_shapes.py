"""Custom-size models: a shape that belongs to the size and the kind, not Llama 2 7B's.

A custom decoder or encoder gets layers and hidden size fitted over the registry's models of its
kind, and the MLP width that makes its parameter count the size asked for; a diffusion or vision
model scales the closest registry model's per-image activations and FLOPs. Expected figures are
the registry's own models (config.json values) or formulas written out here.
"""

import math
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.sizing import (
    GB,
    NON_TRANSFORMER_MFU,
    activation_bytes_per_layer,
    decoder_parameter_count,
    derived_shape,
    encoder_parameter_count,
    kv_cache_bytes_per_token,
    size,
)
from engine.sizing.images import DIFFUSION_MFU
from engine.sizing.model import resolve
from engine.workload import (
    Data,
    DataKind,
    Inference,
    Precision,
    Task,
    Training,
    TrainingMethod,
    Workload,
    WorkloadError,
    workload_from_dict,
)
from engine.workload.registry import Architecture, ModelEntry, ModelKind, all_models, get_model
from tests.engine.sizing.sizing_figures import H100

# Micro-batches of all 8 sequences of the default batch, 2048 tokens each.
NO_RECOMPUTE = Training(gradient_checkpointing=False, micro_batch_size=8)


def _custom(
    task: Task = Task.FINE_TUNING,
    billions: float = 1.0,
    kind: ModelKind | None = None,
    *,
    architecture: Architecture | None = None,
    training: Training | None = None,
    inference: Inference | None = None,
    data: Data | None = None,
) -> Workload:
    return Workload(
        task=task,
        parameters_billions=billions,
        model_kind=kind,
        architecture=architecture,
        training=training,
        inference=inference,
        data=data,
    )


def _entry(model_id: str) -> ModelEntry:
    entry = get_model(model_id)
    assert entry is not None, model_id
    return entry


@dataclass(frozen=True)
class Shape:
    """A derived architecture with every field known (they always are)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool
    gated: bool

    @classmethod
    def of(cls, arch: Architecture) -> "Shape":
        values = (
            arch.layers,
            arch.hidden_size,
            arch.attention_heads,
            arch.kv_heads,
            arch.head_dim,
            arch.intermediate_size,
            arch.vocab_size,
        )
        assert all(v is not None for v in values), arch
        layers, hidden, heads, kv, head_dim, intermediate, vocab = (int(v or 0) for v in values)
        return cls(
            layers,
            hidden,
            heads,
            kv,
            head_dim,
            intermediate,
            vocab,
            bool(arch.tie_word_embeddings),
            arch.gated_mlp is not False,
        )


def _shape(billions: float, kind: ModelKind = ModelKind.DECODER) -> Shape:
    return Shape.of(derived_shape(billions * 1e9, kind).architecture)


def _model_explanation(sizing):
    (explanation,) = [e for e in sizing.explanations if e.key == "model"]
    return explanation


# --- Decoders --------------------------------------------------------------------------------


def test_custom_1b_decoder_has_the_activations_of_a_1b_shape_not_llama2_7b():
    # Before: a 1B custom model borrowed Llama 2 7B's 32 x 4096 layers (75 GB of activations
    # at batch 8 x 2048 tokens without recomputation). Same job with that shape, for the record:
    seven_b_shape = size(
        _custom(training=NO_RECOMPUTE, architecture=_entry("llama-2-7b").architecture)
    )
    assert seven_b_shape.memory_gb.activations == pytest.approx(75.45, abs=0.01)

    sizing = size(_custom(training=NO_RECOMPUTE))
    shape = _shape(1.0)
    # A 1B-class shape (registry: Llama 3.2 1B 16 x 2048, Qwen2.5 1.5B 28 x 1536).
    assert 12 <= shape.layers <= 28
    assert 1024 <= shape.hidden <= 2048
    # Activations: Korthikanti's per-layer term for that shape, plus the embedding and output
    # terms (5sh + 4sv), for 8 sequences of 2048 tokens.
    s, h = 2048, shape.hidden
    per_sequence = shape.layers * activation_bytes_per_layer(
        s, 1, h, shape.heads, attention_scores=False
    ) + (5 * s * h + 4 * s * shape.vocab)
    assert sizing.memory_gb.activations == pytest.approx(8 * per_sequence / GB)
    assert sizing.memory_gb.activations < 0.4 * seven_b_shape.memory_gb.activations


@pytest.mark.parametrize("reference", ["llama-3.1-8b", "qwen2.5-7b"])
@pytest.mark.parametrize(
    "training",
    [Training(), NO_RECOMPUTE, Training(method=TrainingMethod.LORA)],
    ids=["recompute", "no-recompute", "lora"],
)
def test_custom_7b_decoder_is_within_10_percent_of_the_registry_7b_figures(reference, training):
    entry = _entry(reference)
    registry = size(Workload(task=Task.FINE_TUNING, model=reference, training=training))
    custom = size(_custom(billions=entry.parameters / 1e9, training=training))
    assert custom.memory_gb.total == pytest.approx(registry.memory_gb.total, rel=0.10)
    assert custom.memory_gb.weights == pytest.approx(registry.memory_gb.weights, rel=0.01)


def _seven_b_class():
    return [m for m in all_models() if m.kind is ModelKind.DECODER and 6e9 < m.parameters < 9e9]


def test_custom_7b_decoder_activations_lie_within_the_registry_7b_class():
    # Llama 2 7B, Mistral 7B, Qwen2.5 7B, Llama 3.1 8B: 66 to 82 GB without recomputation at
    # batch 8 x 2048 tokens (shallow-wide Qwen to Llama 3.1's 128k vocabulary).
    registry = [
        size(Workload(task=Task.FINE_TUNING, model=m.id, training=NO_RECOMPUTE)).memory_gb
        for m in _seven_b_class()
    ]
    activations = [m.activations for m in registry]
    custom = size(_custom(billions=7.5, training=NO_RECOMPUTE)).memory_gb.activations
    assert 0.9 * min(activations) <= custom <= 1.1 * max(activations)


def test_custom_7b_decoder_kv_cache_lies_within_the_registry_7b_class():
    per_token = [kv_cache_bytes_per_token(m.architecture, Precision.BF16) for m in _seven_b_class()]
    custom = resolve(None, 7.0, None, None).arch
    assert min(per_token) <= kv_cache_bytes_per_token(custom, Precision.BF16) <= max(per_token)


def test_custom_70b_decoder_uses_grouped_query_attention_like_the_registry_70b():
    arch = derived_shape(70e9).architecture
    shape = Shape.of(arch)
    assert shape.kv_heads == 8
    assert shape.heads > shape.kv_heads
    assert shape.heads % 8 == 0  # splits evenly over 2, 4 or 8 GPUs
    # KV cache per token within 15% of Llama 3.1 70B's (80 layers x 8 KV heads x 128).
    llama = kv_cache_bytes_per_token(_entry("llama-3.1-70b").architecture, Precision.BF16)
    assert kv_cache_bytes_per_token(arch, Precision.BF16) == pytest.approx(llama, rel=0.15)


def test_small_custom_decoders_tie_their_output_head_and_hold_their_vocabulary_down():
    small, large = _shape(0.1), _shape(70)
    assert small.tied is True
    assert large.tied is False
    # The registry's median vocabulary (Llama 3's 128,256) for real sizes; a 0.1B model spends
    # at most the largest embedding share of the registry (Qwen2.5 0.5B, 27.6%) on it.
    assert large.vocab == 128256
    assert small.vocab * small.hidden <= 0.2756 * 0.1e9 * 1.1


SIZES = [0.1 * 1.25**k for k in range(42)]  # 0.1B to about 1,000B


@pytest.mark.parametrize("kind", [ModelKind.DECODER, ModelKind.ENCODER])
@pytest.mark.parametrize("billions", SIZES, ids=lambda b: f"{b:.3g}B")
def test_derived_parameter_count_is_within_10_percent_of_the_size(kind, billions):
    shape = derived_shape(billions * 1e9, kind)
    count = (
        decoder_parameter_count(shape.architecture)
        if kind is ModelKind.DECODER
        else encoder_parameter_count(shape.architecture)
    )
    assert shape.parameters == count
    assert count == pytest.approx(billions * 1e9, rel=0.10)
    full = Shape.of(shape.architecture)
    assert full.heads * full.head_dim == full.hidden
    assert full.heads % full.kv_heads == 0


@settings(max_examples=60, deadline=None)
@given(st.floats(0.1, 1000), st.floats(0.1, 1000), st.sampled_from(["training", "inference"]))
def test_memory_grows_with_the_size(a, b, task):
    small, big = sorted((a, b))

    def job(billions: float) -> Workload:
        if task == "training":
            return _custom(Task.FINE_TUNING, billions, training=NO_RECOMPUTE)
        # A heavy KV cache: 64 requests of 8k tokens.
        heavy = Inference(concurrent_requests=64, sequence_length=8192)
        return _custom(Task.INFERENCE, billions, inference=heavy)

    smaller = size(job(small)).memory_gb
    bigger = size(job(big)).memory_gb
    assert bigger.total >= smaller.total
    assert bigger.activations >= smaller.activations
    assert bigger.kv_cache >= smaller.kv_cache


def test_the_counting_formulas_reproduce_the_registry():
    for model_id in (
        "llama-2-7b",
        "llama-3.1-8b",
        "llama-3.1-405b",
        "llama-3.2-1b",
        "llama-3.2-3b",
    ):
        entry = _entry(model_id)
        assert decoder_parameter_count(entry.architecture) == entry.parameters, model_id
    for model_id in ("bert-base", "bert-large", "bge-small-en-v1.5", "bge-large-en-v1.5"):
        entry = _entry(model_id)
        assert encoder_parameter_count(entry.architecture) == entry.parameters, model_id


def test_the_shape_is_fitted_over_the_registry_decoders_and_explained():
    shape = derived_shape(13e9)
    decoders = {
        m.id for m in all_models() if m.kind is ModelKind.DECODER and not m.architecture.is_moe
    }
    assert set(shape.references) == decoders
    assert "mixtral-8x7b" not in shape.references  # a mixture's size is not its shape
    explanation = _model_explanation(size(_custom(task=Task.INFERENCE, billions=13)))
    params = explanation.message.params
    assert (params["layers"], params["hidden"], params["kv_heads"]) == (
        shape.architecture.layers,
        shape.architecture.hidden_size,
        shape.architecture.kv_heads,
    )
    assert params["derived"] == shape.parameters
    assert "Llama 2 13B" in params["reference"]
    assert "config.json" in explanation.source
    assert "a decoder of 13000000000 parameters" in explanation.message.render()


def test_an_architecture_given_in_part_overrides_the_derived_shape():
    derived = derived_shape(7e9).architecture
    model = resolve(None, 7.0, Architecture(kv_heads=28), None)
    assert model.arch.kv_heads == 28
    assert model.arch.layers == derived.layers


def test_resolution_is_cached_and_pure():
    first = resolve(None, 3.0, None, ModelKind.ENCODER)
    assert resolve(None, 3.0, None, ModelKind.ENCODER) is first
    assert derived_shape(3e9, ModelKind.ENCODER) == derived_shape(3e9, ModelKind.ENCODER)
    assert resolve(None, 3.0, None, None).arch != first.arch


# --- Encoders ----------------------------------------------------------------------------------


def test_custom_335m_embedder_keeps_no_kv_cache_and_little_memory():
    # Before: 17 GB of KV cache (a decoder's, at 4,096 tokens). An encoder runs one forward
    # pass per request: its weights and one layer's activations.
    sizing = size(_custom(task=Task.INFERENCE, billions=0.335, kind=ModelKind.ENCODER))
    memory = sizing.memory_gb
    assert memory.kv_cache == 0
    assert memory.weights == pytest.approx(0.67)
    assert memory.total < 5
    shape = _shape(0.335, ModelKind.ENCODER)
    # BERT-large / BGE large shape: 24 x 1024, 16 heads of 64, multi-head attention.
    assert 20 <= shape.layers <= 26
    assert shape.hidden == 1024
    assert shape.heads == shape.kv_heads == 16
    assert shape.gated is False
    assert "an encoder (no KV cache)" in _model_explanation(sizing).message.render()
    assert sizing.tokens_per_second is None


def test_custom_encoder_trains_without_a_kv_cache_or_decode_speed():
    sizing = size(
        _custom(billions=0.335, kind=ModelKind.ENCODER, training=Training(sequence_length=512)),
        gpu=H100,
    )
    assert sizing.memory_gb.kv_cache == 0
    assert sizing.tokens_per_second is None


# --- Diffusion and vision --------------------------------------------------------------------

SDXL = _entry("stable-diffusion-xl")
RESNET = _entry("resnet-50")
SDXL_FLOPS = SDXL.forward_flops_per_sample or 0.0
RESNET_FLOPS = RESNET.forward_flops_per_sample or 0.0
SDXL_INFERENCE_ELEMENTS = SDXL.inference_activation_elements_per_sample or 0
SDXL_TRAINING_ELEMENTS = SDXL.activation_elements_per_sample or 0
RESNET_TRAINING_ELEMENTS = RESNET.activation_elements_per_sample or 0


def test_custom_diffusion_model_scales_sdxl_per_image_memory_and_gives_images_per_second():
    scale = 2e9 / SDXL.parameters
    serving = size(
        _custom(
            task=Task.INFERENCE,
            billions=2,
            kind=ModelKind.DIFFUSION,
            inference=Inference(concurrent_requests=4),
        ),
        gpu=H100,
    )
    # Four images in flight, each the VAE-decode peak of SDXL scaled to 2B, 2 bytes each.
    per_image = SDXL_INFERENCE_ELEMENTS * scale * 2
    assert serving.memory_gb.activations == pytest.approx(4 * per_image / GB)
    assert serving.memory_gb.kv_cache == 0
    # 50 denoising steps x 2 (classifier-free guidance) UNet evaluations per image, at the 25%
    # of peak SDXL reaches out of the box.
    assert DIFFUSION_MFU == 0.25
    flops_per_image = 100 * SDXL_FLOPS * scale
    expected = 989e12 * DIFFUSION_MFU * serving.gpus / flops_per_image
    assert serving.images_per_second == pytest.approx(expected)
    assert "Stable Diffusion XL" in _model_explanation(serving).message.render()

    training = size(
        _custom(
            billions=2,
            kind=ModelKind.DIFFUSION,
            training=Training(batch_size=4, micro_batch_size=4),
        ),
    )
    per_training_image = SDXL_TRAINING_ELEMENTS * scale * 2
    # Gradient checkpointing keeps 2/sqrt(layers) of them (SDXL's 70 transformer blocks).
    kept = per_training_image * 2 / math.sqrt(70)
    assert training.memory_gb.activations == pytest.approx(4 * kept / GB)
    # Frozen share as in SDXL (text encoders and VAE): no optimizer states for them.
    trained = 2e9 * (1 - SDXL.frozen_parameters / SDXL.parameters)
    assert training.memory_gb.optimizer_states == pytest.approx(trained * 12 / GB)


def test_per_image_memory_grows_with_the_batch_of_images():
    def activations(images):
        workload = _custom(
            task=Task.INFERENCE,
            billions=2,
            kind=ModelKind.DIFFUSION,
            inference=Inference(concurrent_requests=images),
        )
        return size(workload).memory_gb.activations

    assert activations(8) == pytest.approx(8 * activations(1))


def test_custom_vision_model_scales_resnet50_and_trains_per_image():
    scale = 0.1e9 / RESNET.parameters
    training = size(
        _custom(
            billions=0.1,
            kind=ModelKind.VISION,
            training=Training(batch_size=256, epochs=1, gradient_checkpointing=False),
            data=Data(kind=DataKind.IMAGES, items=1_281_167),
        ),
        gpu=H100,
    )
    flops = RESNET_FLOPS * scale
    assert training.training_flops == pytest.approx(3 * flops * 1_281_167)
    per_image = RESNET_TRAINING_ELEMENTS * scale * 2
    assert training.memory_gb.activations == pytest.approx(256 * per_image / GB)
    serving = size(_custom(task=Task.INFERENCE, billions=0.1, kind=ModelKind.VISION), gpu=H100)
    assert serving.images_per_second == pytest.approx(989e12 * NON_TRANSFORMER_MFU / flops)


def test_registry_sdxl_now_gives_images_per_second_and_text_models_do_not():
    sdxl = size(Workload(task=Task.INFERENCE, model="stable-diffusion-xl"), gpu=H100)
    assert sdxl.images_per_second == pytest.approx(989e12 * DIFFUSION_MFU / (100 * 6.76e12))
    assert (
        size(Workload(task=Task.INFERENCE, model="llama-3.1-8b"), gpu=H100).images_per_second
        is None
    )
    assert (
        size(Workload(task=Task.INFERENCE, model="stable-diffusion-xl")).images_per_second is None
    )


# --- The model_kind field ----------------------------------------------------------------------


def test_model_kind_parses_and_defaults_to_a_decoder():
    assert workload_from_dict({"task": "inference", "parameters_billions": 1}).model_kind is None
    parsed = workload_from_dict(
        {"task": "inference", "parameters_billions": 0.3, "model_kind": "encoder"}
    )
    assert parsed.model_kind is ModelKind.ENCODER
    assert resolve(None, 1.0, None, None).kind is ModelKind.DECODER
    assert resolve(None, 1.0, None, None).autoregressive


def test_model_kind_must_be_a_known_kind():
    with pytest.raises(WorkloadError) as caught:
        workload_from_dict({"task": "inference", "parameters_billions": 1, "model_kind": "gan"})
    (message,) = caught.value.errors["model_kind"]
    assert message.render() == "must be one of: decoder, encoder, diffusion, vision"


def test_a_registry_model_keeps_its_kind_and_a_contradiction_is_rejected():
    same = workload_from_dict({"task": "inference", "model": "bert-large", "model_kind": "encoder"})
    assert size(same).memory_gb.kv_cache == 0
    with pytest.raises(WorkloadError) as caught:
        workload_from_dict({"task": "inference", "model": "bert-large", "model_kind": "decoder"})
    (message,) = caught.value.errors["model_kind"]
    assert message.render() == (
        "bert-large is a registry model of kind encoder; leave model_kind out or give encoder"
    )


def test_a_diffusion_or_vision_model_takes_no_transformer_architecture():
    with pytest.raises(WorkloadError) as caught:
        workload_from_dict(
            {
                "task": "inference",
                "parameters_billions": 2,
                "model_kind": "diffusion",
                "architecture": {"layers": 30, "hidden_size": 2048, "attention_heads": 16},
            }
        )
    assert list(caught.value.errors) == ["architecture"]


def test_registry_kinds():
    kinds = {m.id: m.kind for m in all_models()}
    assert kinds["llama-3.2-1b"] is ModelKind.DECODER
    assert kinds["bge-reranker-large"] is ModelKind.ENCODER
    assert kinds["bge-small-en-v1.5"] is ModelKind.ENCODER
    assert kinds["stable-diffusion-xl"] is ModelKind.DIFFUSION
    assert kinds["resnet-50"] is ModelKind.VISION


@pytest.mark.parametrize(
    ("model_id", "config"),
    [
        # config.json: (layers, hidden, heads, kv heads, head_dim, intermediate, vocab, tied)
        ("llama-3.2-1b", (16, 2048, 32, 8, 64, 8192, 128256, True)),
        ("llama-3.2-3b", (28, 3072, 24, 8, 128, 8192, 128256, True)),
        ("qwen2.5-0.5b", (24, 896, 14, 2, 64, 4864, 151936, True)),
        ("qwen2.5-1.5b", (28, 1536, 12, 2, 128, 8960, 151936, True)),
        ("qwen2.5-3b", (36, 2048, 16, 2, 128, 11008, 151936, True)),
    ],
)
def test_new_small_decoders_count_their_config_json(model_id, config):
    entry = _entry(model_id)
    arch = entry.architecture
    assert (
        arch.layers,
        arch.hidden_size,
        arch.attention_heads,
        arch.kv_heads,
        arch.head_dim,
        arch.intermediate_size,
        arch.vocab_size,
        arch.tie_word_embeddings,
    ) == config
    # Qwen2.5 adds biases to the q, k and v projections.
    shape = Shape.of(arch)
    bias = shape.layers * (shape.heads + 2 * shape.kv_heads) * shape.head_dim
    expected = decoder_parameter_count(arch) + (bias if entry.family == "qwen2.5" else 0)
    assert entry.parameters == expected


def test_bge_reranker_large_counts_xlm_roberta_large_with_its_score_head():
    h = 1024
    embeddings = (250_002 + 514 + 1) * h + 2 * h
    per_layer = 4 * (h * h + h) + 2 * h + (h * 4096 + 4096) + (4096 * h + h) + 2 * h
    head = h * h + h + h + 1
    assert _entry("bge-reranker-large").parameters == embeddings + 24 * per_layer + head


# --- A custom model's context ---------------------------------------------------------------------


def test_a_custom_model_without_a_maximum_context_is_served_with_a_note():
    workload = workload_from_dict(
        {"task": "inference", "parameters_billions": 7, "inference": {"sequence_length": 500000}}
    )

    notes = [e for e in size(workload).explanations if e.key == "model.context"]

    assert [e.message.render() for e in notes] == [
        "no maximum context is known for this model (architecture.context_length not given): "
        "the 500000-token context is taken as asked, not checked against what the model takes"
    ]
    assert "max_position_embeddings" in notes[0].source


def test_no_context_note_when_the_maximum_is_known_or_nothing_is_served():
    given = {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "context_length": 8192}
    for data in (
        {"task": "inference", "model": "llama-3.1-8b"},
        {"task": "inference", "parameters_billions": 7, "architecture": given},
        {"task": "inference", "parameters_billions": 2, "model_kind": "diffusion"},
        {"task": "fine_tuning", "parameters_billions": 7},
    ):
        keys = [e.key for e in size(workload_from_dict(data)).explanations]
        assert "model.context" not in keys, data
