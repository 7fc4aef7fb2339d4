"""One record per GPU model and per architecture (engine.assumptions.gpu_models): every table the
engine keeps per architecture or per model reads these records, and each has every entry."""

import dataclasses
import json
from pathlib import Path

import pytest

from engine.assumptions.gpu_models import (
    ARCHITECTURES,
    GPU_MODELS,
    MARKET_CLASS_NAMES,
    architecture_family,
    decode_bandwidth,
    gpu_model,
    gpu_model_key,
    gpu_model_name,
    training_mfu,
    training_mfu_fp8,
)
from engine.build import rules
from engine.performance.software import GENERATIONS, RECOMMENDED
from engine.tco.market import market_class

CATALOG = Path(__file__).resolve().parents[3] / "catalog" / "data" / "catalog.json"


def _catalog_gpus() -> list[dict]:
    data = json.loads(CATALOG.read_text(encoding="utf-8"))
    return [part for part in data["parts"] if part.get("kind") == "gpu"]


@pytest.mark.parametrize("architecture", sorted(ARCHITECTURES))
def test_every_architecture_has_every_entry(architecture):
    record = ARCHITECTURES[architecture]
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        assert value not in (None, "", (), frozenset()), (architecture, field.name)
    assert record.name == architecture
    assert record.vendor in RECOMMENDED  # the software stack knows its vendor
    assert record.thermal.gpu_c > 0
    assert record.thermal.source.startswith("https://")
    assert record.platform_source.startswith("https://")
    # The platform release GPUQuote recommends builds for every architecture of its vendor.
    assert RECOMMENDED[record.vendor].platform >= record.first_release


def test_the_architecture_tables_are_the_records():
    assert set(GENERATIONS) == set(ARCHITECTURES)
    for precision, archs in rules.PRECISION_ARCHITECTURES.items():
        assert archs == tuple(a for a, r in ARCHITECTURES.items() if precision in r.precisions)
    # The rule's text lists the architectures from the records, in their order.
    assert rules.PRECISION_ARCHITECTURES["fp8"] == (
        "Ada Lovelace",
        "Hopper",
        "Blackwell",
        "CDNA 3",
        "CDNA 4",
    )


@pytest.mark.parametrize("model", GPU_MODELS, ids=lambda m: m.key)
def test_every_model_record_is_complete(model):
    assert model.architecture in ARCHITECTURES
    assert model.market_class is None or model.market_class in MARKET_CLASS_NAMES
    assert model.match
    assert all(n == n.lower() and n.isalnum() for n in model.match)
    for efficiency in (model.training_mfu, model.training_mfu_fp8, model.decode_bandwidth):
        assert 0 < efficiency.value <= 1
        assert efficiency.source
        assert efficiency.seen_on.year >= 2024
    assert gpu_model_name(model.key) == model.name


def test_model_keys_are_unique():
    keys = [m.key for m in GPU_MODELS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("part", _catalog_gpus(), ids=lambda p: p["sku"])
def test_every_catalog_gpu_has_a_record_and_a_known_architecture(part):
    name = f"{part['vendor']} {part['model']}"  # as the catalog's snapshot names it
    found = gpu_model(name)
    assert found is not None, name
    assert architecture_family(part["spec"]["architecture"]) == found.architecture


@pytest.mark.parametrize(
    ("name", "key", "klass"),
    [
        ("NVIDIA H100 SXM5 80GB", "H100_SXM", "H100"),
        ("NVIDIA H100 NVL 94GB", "H100_NVL", "H100"),
        ("NVIDIA H100 PCIe 80GB", "H100_PCIE", "H100"),
        ("A100 PCIe 40GB", "A100_PCIE", "A100"),
        ("AMD Instinct MI300X", "MI300X", "H100"),
        ("AMD Instinct MI325X 256GB OAM", None, "H200"),  # recognised, no price key
        ("NVIDIA L40S", "L40S", "L40S"),
        ("NVIDIA L40", None, "L40S"),  # recognised, no price key, not an L4
        ("NVIDIA L4", "L4", "L4"),
        ("GB200 NVL72", None, None),  # a rack, not a hosted board
        ("NVIDIA GH200", "H200", "H200"),
        ("RTX A6000", None, "L40S"),
        ("RTX PRO 4000 Blackwell", None, "L4"),
        ("Tesla T4", None, None),
        ("", None, None),
    ],
)
def test_names_resolve_to_their_record(name, key, klass):
    assert gpu_model_key(name) == key
    assert market_class(name) == klass


def test_efficiencies_default_for_unknown_gpus():
    assert training_mfu("Tesla T4") == training_mfu("NVIDIA H100 SXM5 80GB")
    assert decode_bandwidth("Tesla T4").value == 0.55
    assert training_mfu("Tesla T4").value == 0.40


# MLPerf Training Llama-2-70B LoRA on 8 GPUs, minutes to train: v4.1 NVIDIA eos (H100 SXM);
# v5.0 Dell XE9680 (H200 SXM, the median of seven), AMD (MI300X, MI325X), NVIDIA nyx (B200).
# and the samples (8,192 tokens each) each took to reach the target.
MLPERF_MINUTES = {"H100 SXM": 27.93, "H200": 22.94, "MI300X": 28.27, "MI325X": 20.96, "B200": 11.24}
MLPERF_SAMPLES = {"H100 SXM": 3226, "H200": 3149, "MI300X": 3110, "MI325X": 2995, "B200": 3187}
# Dense FP8 peaks of the catalog's datasheets, TFLOP/s.
FP8_PEAK = {"H100 SXM": 1979, "H200": 1979, "MI300X": 2615, "MI325X": 2615, "B200": 4500}


def _measured(name: str) -> float:
    """Samples per minute in the MLPerf run."""
    return MLPERF_SAMPLES[name] / MLPERF_MINUTES[name]


def _speed(name: str) -> float:
    """Training speed per GPU in the FP8 run, as the engine sees it: share x peak."""
    return training_mfu_fp8(name).value * FP8_PEAK[name]


def test_each_measured_gpu_trains_at_its_own_mlperf_share():
    measured = [m for m in GPU_MODELS if "MLPerf Training" in m.training_mfu_fp8.source]
    assert {m.key for m in measured} >= {"H100_SXM", "H200", "MI300X", "MI325X", "B200"}
    for model in measured:
        assert "github.com/mlcommons/training_results_v" in model.training_mfu_fp8.source
    # No longer one figure for every GPU: five distinct FP8 shares.
    assert len({training_mfu_fp8(name).value for name in MLPERF_MINUTES}) == 5


def test_h200_trains_faster_than_h100():
    # Same peak, faster memory: the H200 trained 19 % more samples per minute.
    assert training_mfu("H200").value > training_mfu("H100 SXM").value
    assert training_mfu_fp8("H200").value > training_mfu_fp8("H100 SXM").value
    ratio = _measured("H200") / _measured("H100 SXM")
    assert _speed("H200") / _speed("H100 SXM") == pytest.approx(ratio, rel=0.01)


@pytest.mark.parametrize("name", ["MI300X", "MI325X", "B200"])
def test_speeds_follow_the_mlperf_results(name):
    # Speed per GPU against the H200's equals the ratio of the samples trained per minute.
    ratio = _speed(name) / _speed("H200")
    assert ratio == pytest.approx(_measured(name) / _measured("H200"), rel=0.01)


def test_mi300x_trains_behind_the_h200_as_measured():
    # 28.27 against 22.94 minutes: the MI300X trains 20 % fewer samples per minute, where its
    # larger peak at the old single MFU made it 32 % faster.
    assert _speed("H200") / _speed("MI300X") == pytest.approx(
        _measured("H200") / _measured("MI300X"), rel=0.01
    )
    assert 1.15 < _speed("H200") / _speed("MI300X") < 1.3
    for efficiency in (training_mfu, training_mfu_fp8):
        assert efficiency("MI300X").value < efficiency("H200").value
        assert "ROCm" in efficiency("MI300X").source


def test_bf16_shares_keep_the_h100_anchor_and_the_measured_ratios():
    assert training_mfu("H100 SXM").value == 0.40  # Llama 3's BF16 MFU on H100
    for name in MLPERF_MINUTES:
        bf16, fp8 = training_mfu(name).value, training_mfu_fp8(name).value
        assert bf16 / fp8 == pytest.approx(0.40 / 0.276, rel=0.01), name


def test_gpus_without_a_result_say_whose_figure_they_use():
    for name in ("L40S", "RTX 6000 Ada", "GeForce RTX 5090", "A100 SXM"):
        assert training_mfu_fp8(name).source.startswith("No MLPerf"), name
    assert training_mfu_fp8("H100 NVL") == training_mfu_fp8("H100 SXM")
    assert training_mfu_fp8("GB200 NVL72") == training_mfu_fp8("B200")
