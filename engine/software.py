"""The software stack a GPU runs on, stated per vendor: one line with its sources.

Minimal on purpose (issue 14, point 13): which platform and which framework path a customer
installs on the GPUs of a configuration. The full stack advice (drivers, containers, versions per
framework) is issue 18's. Sources are the vendors' and projects' own pages, with the date they
were read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .i18n import Message, gettext_noop

SEEN_ON = dt.date(2026, 12, 3)

VLLM_GPU_INSTALL = "https://docs.vllm.ai/en/latest/getting_started/installation/gpu/"
PYTORCH_GET_STARTED = "https://pytorch.org/get-started/locally/"
CUDA_RELEASE_NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"
ROCM_COMPATIBILITY = "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html"


@dataclass(frozen=True, slots=True)
class SoftwareStack:
    """``platform`` names the vendor's compute platform (``"CUDA"``, ``"ROCm"``); ``statement``
    is the line shown to the customer; ``sources`` were read on ``seen_on``."""

    vendor: str
    platform: str
    statement: Message
    sources: tuple[str, ...]
    seen_on: dt.date


# vLLM's GPU installation page (read 2026-12-03): its wheels contain CUDA 12.9 binaries; AMD GPUs
# are supported with ROCm 6.3 or above, with pre-built wheels for ROCm 7.0 and 7.2.1. PyTorch's
# "Start locally" page offers CUDA and ROCm wheels of each stable release. Blackwell GPUs need
# CUDA 12.8 or later (CUDA toolkit release notes). The ROCm compatibility matrix lists the
# Instinct GPUs (MI300X: CDNA 3) and framework versions each ROCm release supports.
STACKS: Mapping[str, SoftwareStack] = MappingProxyType(
    {
        "NVIDIA": SoftwareStack(
            vendor="NVIDIA",
            platform="CUDA",
            statement=Message(
                gettext_noop(
                    "Software: CUDA 12 (12.8 or later on Blackwell GPUs) with PyTorch's CUDA "
                    "wheels; vLLM or TensorRT-LLM for serving"
                )
            ),
            sources=(VLLM_GPU_INSTALL, PYTORCH_GET_STARTED, CUDA_RELEASE_NOTES),
            seen_on=SEEN_ON,
        ),
        "AMD": SoftwareStack(
            vendor="AMD",
            platform="ROCm",
            statement=Message(
                gettext_noop(
                    "Software: ROCm (6.3 or later; vLLM ships wheels for ROCm 7) with PyTorch's "
                    "ROCm wheels or AMD's ROCm containers; vLLM's ROCm build for serving. Check "
                    "each library you use on ROCm before buying: CUDA-only kernels do not run"
                )
            ),
            sources=(ROCM_COMPATIBILITY, VLLM_GPU_INSTALL, PYTORCH_GET_STARTED),
            seen_on=SEEN_ON,
        ),
    }
)


def software_stack(vendor: str) -> SoftwareStack | None:
    """The stack of a GPU vendor as the catalog names it (``GpuSpec.vendor``); None: unknown."""
    return STACKS.get(vendor)
