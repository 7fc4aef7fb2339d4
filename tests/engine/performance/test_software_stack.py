"""The software stack matrix: every GPU family of the catalog gets a complete stack
line by line, each line sourced; combinations that do not work are refused with their reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.i18n import Message
from engine.performance.software import (
    GENERATIONS,
    RECOMMENDED,
    StackPurpose,
    driver_branch_needed,
    software_stack,
    stack_problems,
)

CATALOG = Path(__file__).resolve().parents[3] / "catalog" / "data" / "catalog.json"
KEYS = ("os", "driver", "platform", "container", "frameworks")


def _catalog_gpus() -> list[tuple[str, str]]:
    """(vendor, architecture) of every GPU the seed catalog offers."""
    parts = json.loads(CATALOG.read_text())["parts"]
    found = {
        (part["vendor"], part["spec"]["architecture"]) for part in parts if part["kind"] == "gpu"
    }
    return sorted(found)


def _words(message: Message) -> str:
    return message.render()


@pytest.mark.parametrize(("vendor", "architecture"), _catalog_gpus())
@pytest.mark.parametrize("purpose", list(StackPurpose))
def test_every_catalog_gpu_family_has_a_whole_sourced_stack(vendor, architecture, purpose):
    stack = software_stack(vendor, architecture=architecture, purpose=purpose)

    assert stack is not None
    assert tuple(line.key for line in stack.lines) == KEYS
    for line in stack.lines:
        assert line.sources, line
        assert all(source.startswith("https://") for source in line.sources), line
        assert _words(line.text)
    recommended = RECOMMENDED[vendor]
    platform = _words(stack.lines[2].text)
    assert f"{recommended.platform_name} {recommended.platform[0]}." in platform
    # The recommended release builds for the GPU and its driver is new enough: no problem.
    assert stack_problems(vendor, architecture, precision="bf16") == ()
    if vendor == "NVIDIA":
        assert (
            stack_problems(vendor, architecture, cuda=recommended.platform, driver_branch=570) == ()
        )


def test_the_frameworks_follow_the_work():
    def frameworks(purpose: StackPurpose, vendor: str = "NVIDIA", arch: str = "Hopper") -> str:
        stack = software_stack(vendor, architecture=arch, purpose=purpose)
        assert stack is not None
        return next(_words(line.text) for line in stack.lines if line.key == "frameworks")

    assert "vLLM" in frameworks(StackPurpose.SERVING_LLM)
    assert "TensorRT-LLM" in frameworks(StackPurpose.SERVING_LLM)
    assert "TensorRT-LLM" not in frameworks(StackPurpose.SERVING_LLM, "AMD", "CDNA 3")
    assert "ROCm" in frameworks(StackPurpose.SERVING_LLM, "AMD", "CDNA 3")
    assert "FSDP" in frameworks(StackPurpose.TRAINING_SHARDED)
    assert "DeepSpeed" in frameworks(StackPurpose.TRAINING_SHARDED)
    assert "DistributedDataParallel" in frameworks(StackPurpose.TRAINING)


def test_a_compact_number_format_names_its_kernels_where_the_gpu_runs_it():
    hopper = software_stack("NVIDIA", architecture="Hopper", precision="fp8")
    ampere = software_stack("NVIDIA", architecture="Ampere", precision="fp8")
    int4 = software_stack("NVIDIA", architecture="Ampere", precision="int4")
    assert hopper is not None
    assert ampere is not None
    assert int4 is not None
    assert "FP8" in _words(hopper.lines[-1].text)
    assert all(line.key != "kernels" for line in ampere.lines)  # no FP8 units: no FP8 kernels
    assert "INT4" in _words(int4.lines[-1].text)


@pytest.mark.parametrize(
    ("vendor", "architecture", "combination", "reason"),
    [
        ("NVIDIA", "Ampere", {"precision": "fp8"}, "cannot run FP8"),
        ("AMD", "CDNA 3", {"framework": "tensorrt-llm"}, "NVIDIA GPUs only"),
        ("AMD", "CDNA 3", {"cuda": (12, 8)}, "use ROCm"),
        ("NVIDIA", "Blackwell", {"cuda": (12, 4)}, "CUDA 12.8 or later is needed"),
        ("NVIDIA", "Hopper", {"cuda": (11, 7)}, "CUDA 11.8 or later is needed"),
        ("NVIDIA", "Blackwell", {"driver_branch": 535}, "R570 or later"),
        ("NVIDIA", "Hopper", {"cuda": (12, 0), "driver_branch": 515}, "R525 or later"),
        ("NVIDIA", "Volta", {}, "no software data"),
    ],
)
def test_a_combination_that_does_not_work_is_refused_with_its_reason(
    vendor, architecture, combination, reason
):
    problems = stack_problems(vendor, architecture, **combination)
    assert len(problems) == 1
    assert reason in _words(problems[0])


def test_the_driver_branch_each_cuda_release_needs():
    assert driver_branch_needed((12, 8)) == 570
    assert driver_branch_needed((12, 4)) == 525  # a 12.x minor release: the 12.0 driver
    assert driver_branch_needed((11, 8)) == 520
    assert set(GENERATIONS) == {
        "Turing",
        "Ampere",
        "Ada Lovelace",
        "Hopper",
        "Blackwell",
        "CDNA 2",
        "CDNA 3",
        "CDNA 4",
    }


def test_an_unknown_vendor_has_no_stack():
    assert software_stack("Intel", architecture="Xe") is None
