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
    for efficiency in (model.training_mfu, model.decode_bandwidth):
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
