"""The software stack a configuration's GPUs run, line by line, each with its source.

Data, not code: per GPU architecture, the compute platform target and the first platform
release that builds for it (``GENERATIONS``); per vendor, the stack GPUQuote recommends
(``RECOMMENDED``: operating systems, driver, platform release, container runtime); per purpose,
the frameworks. ``software_stack`` writes the lines for a configuration; ``stack_problems``
names what does not work in a given combination (FP8 on a GPU without FP8 units, a CUDA release
that predates the GPU, a driver too old for the CUDA release, a CUDA-only framework on AMD).
Sources are the vendors' and projects' own pages.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from ..assumptions.gpu_models import (
    AMD,
    ARCHITECTURES,
    CUDA_RELEASE_NOTES,
    NVIDIA,
    ROCM_COMPATIBILITY,
    GpuArchitecture,
    architecture_family,
)
from ..build import rules
from ..i18n import Message, gettext_noop

# When the summary statements' sources were read. The line-by-line facts below cite
# their publishers' pages; of them, only the CUDA driver table was re-read since
# (2026-12-04, NVIDIA's release notes): re-read the others before relying on a version.
SEEN_ON = dt.date(2026, 12, 3)

VLLM_GPU_INSTALL = "https://docs.vllm.ai/en/latest/getting_started/installation/gpu/"
VLLM_QUANTIZATION_HARDWARE = (
    "https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html"
)
PYTORCH_GET_STARTED = "https://pytorch.org/get-started/locally/"
PYTORCH_FSDP = "https://pytorch.org/docs/stable/fsdp.html"
DEEPSPEED_ZERO = "https://www.deepspeed.ai/tutorials/zero/"
CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
CUDA_INSTALL_LINUX = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"
NVIDIA_CONTAINER_TOOLKIT = (
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
)
TENSORRT_LLM_SUPPORT = "https://nvidia.github.io/TensorRT-LLM/reference/support-matrix.html"
ROCM_DOCKER = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"

Version = tuple[int, int]


def version_text(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


# What each GPU architecture needs from the platform (its CUDA compute capability or ROCm target,
# and the first CUDA or ROCm release that builds for it) is in its record, with its source:
# ``engine.assumptions.gpu_models.ARCHITECTURES``.
Generation = GpuArchitecture
GENERATIONS: Mapping[str, GpuArchitecture] = ARCHITECTURES

# The least Linux driver each CUDA release needs (CUDA toolkit release notes, "CUDA Toolkit and
# Corresponding Driver Versions"): 11.1 GA >= 455.23, 11.8 GA >= 520.61.05, 12.0 GA >=
# 525.60.13, 12.8 GA >= 570.26; the driver branch is the number before the first dot.
CUDA_DRIVER_BRANCH: Mapping[Version, int] = MappingProxyType(
    {(11, 1): 455, (11, 8): 520, (12, 0): 525, (12, 8): 570}
)


def driver_branch_needed(cuda: Version) -> int:
    """The least driver branch for ``cuda``: that of the latest release listed not after it."""
    listed = [release for release in CUDA_DRIVER_BRANCH if release <= cuda]
    return CUDA_DRIVER_BRANCH[max(listed)] if listed else min(CUDA_DRIVER_BRANCH.values())


@dataclass(frozen=True, slots=True)
class Recommended:
    """The stack GPUQuote recommends for a vendor's GPUs: ``platform`` is the CUDA or ROCm
    release (one that builds for every architecture of the vendor in ``GENERATIONS``)."""

    platform_name: str
    platform: Version
    driver: Message
    container: Message
    os_source: str  # the operating systems the platform release supports
    driver_source: str
    container_source: str


RECOMMENDED: Mapping[str, Recommended] = MappingProxyType(
    {
        NVIDIA: Recommended(
            platform_name="CUDA",
            platform=(12, 8),
            driver=Message(
                gettext_noop("NVIDIA data-center driver, branch R%(branch)s or later"),
                MappingProxyType({"branch": driver_branch_needed((12, 8))}),
            ),
            container=Message(
                gettext_noop(
                    "Docker with the NVIDIA Container Toolkit (docker run --gpus all), one "
                    "container image per framework"
                )
            ),
            os_source=CUDA_INSTALL_LINUX,
            driver_source=CUDA_RELEASE_NOTES,
            container_source=NVIDIA_CONTAINER_TOOLKIT,
        ),
        AMD: Recommended(
            platform_name="ROCm",
            platform=(7, 0),
            driver=Message(gettext_noop("The amdgpu driver of the same ROCm release")),
            container=Message(
                gettext_noop(
                    "Docker with the GPUs passed in (--device=/dev/kfd --device=/dev/dri), from "
                    "AMD's ROCm images"
                )
            ),
            os_source=ROCM_COMPATIBILITY,
            driver_source=ROCM_COMPATIBILITY,
            container_source=ROCM_DOCKER,
        ),
    }
)

OPERATING_SYSTEMS = Message(
    gettext_noop("Ubuntu 24.04 LTS or 22.04 LTS (Red Hat Enterprise Linux 9 is supported too)")
)


class StackPurpose(StrEnum):
    """What the GPUs run: it decides the frameworks."""

    SERVING_LLM = "serving_llm"  # a language model generating text
    SERVING = "serving"  # any other model answering requests
    TRAINING = "training"  # fine-tuning or training on one GPU or in data parallel
    TRAINING_SHARDED = "training_sharded"  # the model itself split over the GPUs


_FRAMEWORKS: Mapping[tuple[str, StackPurpose], tuple[str, tuple[str, ...]]] = MappingProxyType(
    {
        (NVIDIA, StackPurpose.SERVING_LLM): (
            gettext_noop("vLLM for serving; TensorRT-LLM or Text Generation Inference also fit"),
            (VLLM_GPU_INSTALL, TENSORRT_LLM_SUPPORT),
        ),
        (AMD, StackPurpose.SERVING_LLM): (
            gettext_noop("vLLM's ROCm build for serving; Text Generation Inference also fits"),
            (VLLM_GPU_INSTALL,),
        ),
        (NVIDIA, StackPurpose.SERVING): (
            gettext_noop("PyTorch's CUDA wheels for inference"),
            (PYTORCH_GET_STARTED,),
        ),
        (AMD, StackPurpose.SERVING): (
            gettext_noop("PyTorch's ROCm wheels for inference"),
            (PYTORCH_GET_STARTED,),
        ),
        (NVIDIA, StackPurpose.TRAINING): (
            gettext_noop("PyTorch's CUDA wheels; data parallel with DistributedDataParallel"),
            (PYTORCH_GET_STARTED,),
        ),
        (AMD, StackPurpose.TRAINING): (
            gettext_noop("PyTorch's ROCm wheels; data parallel with DistributedDataParallel"),
            (PYTORCH_GET_STARTED,),
        ),
        (NVIDIA, StackPurpose.TRAINING_SHARDED): (
            gettext_noop("PyTorch FSDP or DeepSpeed ZeRO-3 to split the model over the GPUs"),
            (PYTORCH_FSDP, DEEPSPEED_ZERO),
        ),
        (AMD, StackPurpose.TRAINING_SHARDED): (
            gettext_noop(
                "PyTorch FSDP or DeepSpeed ZeRO-3 (ROCm builds) to split the model over the GPUs"
            ),
            (PYTORCH_FSDP, DEEPSPEED_ZERO),
        ),
    }
)


@dataclass(frozen=True, slots=True)
class StackLine:
    """One line of the stack: ``key`` is os, driver, platform, container, frameworks or
    kernels."""

    key: str
    text: Message
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SoftwareStack:
    """``platform`` names the vendor's compute platform (``"CUDA"``, ``"ROCm"``); ``statement``
    is the one-line summary; ``lines`` the stack line by line (empty for a GPU whose
    architecture is not in ``GENERATIONS``); ``sources`` were read on ``seen_on``."""

    vendor: str
    platform: str
    statement: Message
    sources: tuple[str, ...]
    seen_on: dt.date
    lines: tuple[StackLine, ...] = ()


# The one-line summaries of the stack per vendor: vLLM's GPU installation page (its wheels
# contain CUDA 12.9 binaries; AMD GPUs with ROCm 6.3 or above), PyTorch's "Start locally" page,
# and the CUDA release notes (Blackwell needs CUDA 12.8 or later).
_STATEMENTS: Mapping[str, tuple[Message, tuple[str, ...]]] = MappingProxyType(
    {
        NVIDIA: (
            Message(
                gettext_noop(
                    "Software: CUDA 12 (12.8 or later on Blackwell GPUs) with PyTorch's CUDA "
                    "wheels; vLLM or TensorRT-LLM for serving"
                )
            ),
            (VLLM_GPU_INSTALL, PYTORCH_GET_STARTED, CUDA_RELEASE_NOTES),
        ),
        AMD: (
            Message(
                gettext_noop(
                    "Software: ROCm (6.3 or later; vLLM ships wheels for ROCm 7) with PyTorch's "
                    "ROCm wheels or AMD's ROCm containers; vLLM's ROCm build for serving. Check "
                    "each library you use on ROCm before buying: CUDA-only kernels do not run"
                )
            ),
            (ROCM_COMPATIBILITY, VLLM_GPU_INSTALL, PYTORCH_GET_STARTED),
        ),
    }
)


def software_stack(
    vendor: str,
    *,
    architecture: str | None = None,
    purpose: StackPurpose | None = None,
    precision: str | None = None,
) -> SoftwareStack | None:
    """The stack of a GPU vendor as the catalog names it (``GpuSpec.vendor``; None: unknown),
    line by line when the GPU's ``architecture`` is known: for that ``purpose`` and number
    format (``precision``: the workload's, such as ``"fp8"``)."""
    if vendor not in _STATEMENTS:
        return None
    statement, sources = _STATEMENTS[vendor]
    recommended = RECOMMENDED[vendor]
    generation = GENERATIONS.get(architecture_family(architecture or "") or "")
    lines: list[StackLine] = []
    if generation is not None and generation.vendor == vendor:
        lines = _lines(generation, recommended, purpose, precision)
    platform = recommended.platform_name
    return SoftwareStack(vendor, platform, statement, sources, SEEN_ON, tuple(lines))


def _lines(
    generation: Generation,
    recommended: Recommended,
    purpose: StackPurpose | None,
    precision: str | None,
) -> list[StackLine]:
    # NVIDIA's target is a compute capability ("9.0"), named so: a version, not a quantity.
    target: Message | str = generation.target
    if generation.vendor == NVIDIA:
        target = Message(
            gettext_noop("compute capability %(capability)s"),
            MappingProxyType({"capability": generation.target}),
        )
    platform = {
        "platform": recommended.platform_name,
        "version": version_text(recommended.platform),
        "architecture": generation.name,
        "target": target,
        "first": version_text(generation.first_release),
    }
    lines = [
        StackLine("os", OPERATING_SYSTEMS, (recommended.os_source,)),
        StackLine("driver", recommended.driver, (recommended.driver_source,)),
        StackLine(
            "platform",
            Message(
                gettext_noop(
                    "%(platform)s %(version)s; the %(architecture)s GPUs (%(target)s) need "
                    "%(platform)s %(first)s or later"
                ),
                MappingProxyType(platform),
            ),
            (generation.platform_source, CUDA_GPUS)
            if generation.vendor == NVIDIA
            else (generation.platform_source,),
        ),
        StackLine("container", recommended.container, (recommended.container_source,)),
    ]
    if purpose is not None:
        template, sources = _FRAMEWORKS[(generation.vendor, purpose)]
        lines.append(StackLine("frameworks", Message(template), sources))
    kernels = _kernels(generation, precision)
    if kernels is not None:
        lines.append(kernels)
    return lines


def _kernels(generation: Generation, precision: str | None) -> StackLine | None:
    """The kernels a compact number format runs with (BF16/FP16 need no special kernels)."""
    if precision == "fp8" and rules.runs_precision(generation.name, "fp8"):
        text = gettext_noop(
            "FP8 weights and activations (W8A8) on the %(architecture)s's FP8 tensor cores"
        )
    elif precision in ("int8", "int4") and rules.runs_precision(generation.name, precision):
        text = gettext_noop(
            "%(format)s weights (GPTQ or AWQ) with vLLM's quantized kernels on the %(architecture)s"
        )
    else:
        return None
    params = {"architecture": generation.name, "format": (precision or "").upper()}
    return StackLine(
        "kernels", Message(text, MappingProxyType(params)), (VLLM_QUANTIZATION_HARDWARE,)
    )


def stack_problems(
    vendor: str,
    architecture: str,
    *,
    precision: str | None = None,
    framework: str | None = None,
    cuda: Version | None = None,
    driver_branch: int | None = None,
) -> tuple[Message, ...]:
    """What does not work when ``vendor``'s ``architecture`` GPUs run this combination: the
    number format, a framework (``"tensorrt-llm"``, ``"vllm"``, ...), a CUDA release, a driver
    branch. Empty: it works."""
    problems: list[Message] = []
    generation = GENERATIONS.get(architecture_family(architecture) or "")
    named = {"architecture": architecture}
    if generation is None:
        return (
            Message(
                gettext_noop("GPUQuote has no software data for the %(architecture)s GPUs."),
                MappingProxyType(named),
            ),
        )
    if precision is not None and not rules.runs_precision(generation.name, precision):
        problems.append(
            Message(
                gettext_noop(
                    "The %(architecture)s GPUs cannot run %(format)s: %(format)s needs one of "
                    "these architectures: %(supported)s. Serve in BF16, or with INT8 or INT4 "
                    "weights."
                ),
                MappingProxyType(
                    named
                    | {
                        "format": rules.PRECISION_LABELS.get(precision, precision.upper()),
                        "supported": ", ".join(rules.PRECISION_ARCHITECTURES.get(precision, ())),
                    }
                ),
            )
        )
    if framework == "tensorrt-llm" and vendor != NVIDIA:
        problems.append(Message(gettext_noop("TensorRT-LLM runs on NVIDIA GPUs only.")))
    if cuda is not None and vendor != NVIDIA:
        problems.append(
            Message(
                gettext_noop("CUDA does not run on %(vendor)s GPUs: use ROCm."),
                MappingProxyType({"vendor": vendor}),
            )
        )
    elif cuda is not None and cuda < generation.first_release:
        problems.append(
            Message(
                gettext_noop(
                    "CUDA %(given)s does not build for the %(architecture)s GPUs (compute "
                    "capability %(target)s): CUDA %(first)s or later is needed."
                ),
                MappingProxyType(
                    named
                    | {
                        "given": version_text(cuda),
                        "target": generation.target,
                        "first": version_text(generation.first_release),
                    }
                ),
            )
        )
    if driver_branch is not None and vendor == NVIDIA:
        release = max(cuda or RECOMMENDED[NVIDIA].platform, generation.first_release)
        needed = driver_branch_needed(release)
        if driver_branch < needed:
            problems.append(
                Message(
                    gettext_noop(
                        "Driver branch R%(given)s is too old for CUDA %(cuda)s: it needs "
                        "R%(needed)s or later."
                    ),
                    MappingProxyType(
                        {"given": driver_branch, "cuda": version_text(release), "needed": needed}
                    ),
                )
            )
    return tuple(problems)
