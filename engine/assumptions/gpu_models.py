"""One record per GPU model and per GPU architecture: every fact GPUQuote keeps about a GPU that
is not a catalog part's own datasheet figure.

A catalog part (``engine.build.parts.GpuSpec``) carries its datasheet: memory, bandwidth,
TFLOP/s, TDP, form factor, the architecture's name. What the engine knows beyond that lives here,
once:

- ``GpuModel`` (``GPU_MODELS``): how a GPU name or SKU is recognised (``match``: squashed-name
  needles, all required; the first record that matches wins, so the longer names come first), its
  key in the price tables (``gpu_model_key``), its readable name, its market class (the hosting
  offers it is compared with, ``market_class``), its architecture, and its sourced efficiencies:
  the share of peak compute a training run reaches (MFU, in BF16 and in FP8: MLPerf Training's
  Llama-2-70B LoRA results where the GPU has one) and the share of peak memory bandwidth a
  decode step reaches;
- ``GpuArchitecture`` (``ARCHITECTURES``): per architecture, the vendor and compute platform, the
  number formats it runs in hardware (the rules' precision check), the platform target and first
  release that builds for it (the software stack) and its temperature limits (the monitoring
  plan). A catalog name matches its family ("Blackwell Ultra" is Blackwell: ``gpu_architecture``).

Adding a GPU: one ``GpuModel`` here (and a ``GpuArchitecture`` when its architecture is new), then
the catalog rows; ``docs/recipes.md`` has the checklist.
``tests/engine/assumptions/test_gpu_models.py`` checks that every architecture has every entry
and every record a known architecture.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..sizing.constants import (
    DECODE_BANDWIDTH_EFFICIENCY,
    DEFAULT_MFU,
    SOURCE_BANDWIDTH,
    SOURCE_MFU,
    SOURCE_MLPERF_TRAINING_V41,
    SOURCE_MLPERF_TRAINING_V50,
)
from .gpu_prices import CLOUD_ON_DEMAND, CLOUD_ON_DEMAND_BY_REGION

NVIDIA, AMD = "NVIDIA", "AMD"  # as the catalog names the vendor (GpuSpec.vendor)
CUDA, ROCM = "CUDA", "ROCm"

Version = tuple[int, int]

# --- Sources -------------------------------------------------------------------------------------

CUDA_RELEASE_NOTES = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"
CUDA_NOTES = CUDA_RELEASE_NOTES
ROCM_COMPATIBILITY = "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html"
# The ROCm 7.0.0 libraries "added gfx950 support" (MI350 series), e.g. hipFFT 1.0.20's notes.
ROCM_7_RELEASE = "https://github.com/ROCm/hipFFT/releases/tag/rocm-7.0.0"
# Datadog's recommended DCGM monitor alerts above 85 °C (a rule of thumb: each NVIDIA model
# reports its own slowdown temperature, which the catalog does not hold).
DATADOG_DCGM_TEMPERATURE = (
    "https://github.com/DataDog/integrations-core/blob/master/dcgm/assets/monitors/"
    "gpu_temperature.json"
)
# A CDNA 3 GPU slows down at a 100 °C hotspot and 105 °C memory (amd-smi's `static --limit`
# example, an MI300A). Taken for CDNA 2 and CDNA 4 too until their own figures are read.
AMD_SMI = "https://rocm.docs.amd.com/projects/amdsmi/en/docs-6.4.2/how-to/amdsmi-cli-tool.html"
EFFICIENCIES_SEEN_ON = dt.date(2026, 12, 3)


@dataclass(frozen=True, slots=True)
class Efficiency:
    """A share of a GPU's peak (0-1) that real runs reach, with where it was read and when."""

    value: float
    source: str
    seen_on: dt.date


MLPERF_SEEN_ON = dt.date(2026, 12, 6)

# Every GPU model without figures of its own trains at the MFU reported for large BF16 H100 runs
# and decodes at the bandwidth share measured on an H100.
TRAINING_MFU = Efficiency(DEFAULT_MFU, SOURCE_MFU, EFFICIENCIES_SEEN_ON)
DECODE_BANDWIDTH = Efficiency(DECODE_BANDWIDTH_EFFICIENCY, SOURCE_BANDWIDTH, EFFICIENCIES_SEEN_ON)

# --- Training efficiency per GPU: MLPerf Training, Llama-2-70B LoRA on 8 GPUs -------------------
#
# Every 8-GPU submission ran in FP8 (NVIDIA: ``FP8=True``, no activation recomputation; AMD:
# ``FP8=True``, full recomputation of 21 of the 80 layers). The engine counts a LoRA step as
# 2(N + A) forward + 2(N + A) + 2A backward FLOPs per token (``engine.sizing.compute``): for
# Llama-2-70B at rank 16 that is 4 x 69.3e9 = 2.77e11 FLOPs per token. The FP8 efficiency is
# those FLOPs over the time to train on 8 x the dense FP8 peak (catalog datasheets):
#
#   GPU, submission (round)            samples x 8,192 tokens   FLOPs     time      FP8 peak   share
#   H100 SXM, NVIDIA eos (v4.1)         3,226 -> 26.4M          7.32e18   27.93 min 1,979 T    0.276
#   H200 SXM, Dell XE9680 (v5.0)        3,149 -> 25.8M          7.15e18   22.94 min 1,979 T    0.328
#   MI300X, AMD (v5.0, ROCm 6.4)        3,110 -> 25.5M          7.06e18   28.27 min 2,615 T    0.199
#   MI325X, AMD (v5.0, ROCm 6.4)        2,995 -> 24.5M          6.80e18   20.96 min 2,615 T    0.259
#   B200, NVIDIA nyx (v5.0)             3,187 -> 26.1M          7.24e18   11.24 min 4,500 T    0.298
#
# e.g. H100: 7.32e18 / (8 x 1,979e12 x 1,676 s) = 0.276. The time includes the evaluations
# (about 10 %), as a customer's run would. H200: the median of the seven 8 x H200 SXM results of
# v5.0 (NVIDIA submitted none); v5.0 has no 8 x H100 result, v4.1's NVIDIA one is the latest.
# The share holds whatever limits the GPU at this size (8,192-token samples make a step
# compute-bound: 2.3e15 FLOPs per sample against 70 GB of FP8 weights, some 33,000 FLOPs per
# byte), so the H200's faster memory and the software stack each GPU ran are in it.
#
# BF16, the engine's default format, has no MLPerf result: the H100 keeps the BF16 MFU Llama 3
# reports (``DEFAULT_MFU``) and every other GPU gets it scaled by its FP8 share against the
# H100's (assumption: FP8's gain over BF16 is the same on each of these GPUs, all of which run
# FP8 at twice their BF16 peak). H100 0.40; H200 0.40 x 0.328 / 0.276 = 0.475; MI300X 0.288;
# MI325X 0.375; B200 0.432.

H100_FP8_SHARE = 0.276


def _mlperf(value: float, what: str, source: str) -> Efficiency:
    return Efficiency(value, f"MLPerf Training Llama-2-70B LoRA, {what}: {source}", MLPERF_SEEN_ON)


def _scaled(fp8: float, what: str, source: str) -> Efficiency:
    bf16 = round(DEFAULT_MFU * fp8 / H100_FP8_SHARE, 3)
    return _mlperf(bf16, f"{what}, BF16 = {DEFAULT_MFU} x {fp8} / {H100_FP8_SHARE}", source)


H100_V41 = f"{SOURCE_MLPERF_TRAINING_V41} (NVIDIA eos_ngc24.09_nemo)"
H200_V50 = f"{SOURCE_MLPERF_TRAINING_V50} (Dell XE9680x8H200-SXM-141GB)"
MI300X_V50 = f"{SOURCE_MLPERF_TRAINING_V50} (AMD MI300X_EPYC_9575F_pytorch, ROCm 6.4)"
MI325X_V50 = f"{SOURCE_MLPERF_TRAINING_V50} (AMD MI325X_EPYC_9575F_pytorch, ROCm 6.4)"
B200_V50 = f"{SOURCE_MLPERF_TRAINING_V50} (NVIDIA nyx_n1_ngc25.04_nemo)"

H100_TRAINING = (TRAINING_MFU, _mlperf(H100_FP8_SHARE, "8 x H100 SXM, 27.93 min", H100_V41))
H200_TRAINING = (
    _scaled(0.328, "8 x H200 SXM, 22.94 min", H200_V50),
    _mlperf(0.328, "8 x H200 SXM, 22.94 min", H200_V50),
)
MI300X_TRAINING = (
    _scaled(0.199, "8 x MI300X, 28.27 min", MI300X_V50),
    _mlperf(0.199, "8 x MI300X, 28.27 min", MI300X_V50),
)
MI325X_TRAINING = (
    _scaled(0.259, "8 x MI325X, 20.96 min", MI325X_V50),
    _mlperf(0.259, "8 x MI325X, 20.96 min", MI325X_V50),
)
B200_TRAINING = (
    _scaled(0.298, "8 x B200, 11.24 min", B200_V50),
    _mlperf(0.298, "8 x B200, 11.24 min", B200_V50),
)
# No MLPerf Llama-2-70B LoRA result of their own: the H100 SXM's figures, said so.
DEFAULT_TRAINING = (
    TRAINING_MFU,
    Efficiency(
        H100_FP8_SHARE,
        "No MLPerf Llama-2-70B LoRA result for this GPU: the H100 SXM's FP8 share, "
        f"{H100_FP8_SHARE} ({H100_V41})",
        MLPERF_SEEN_ON,
    ),
)


@dataclass(frozen=True, slots=True)
class ThermalLimits:
    """Where the monitoring plan raises a temperature alert, in °C. ``slowdown``: the GPU's own
    slowdown temperatures (the plan alerts a margin before them); otherwise ``gpu_c`` is the alert
    itself and the memory limit is read from the GPU (NVIDIA reports it)."""

    gpu_c: Decimal
    memory_c: Decimal | None
    slowdown: bool
    source: str


NVIDIA_THERMAL = ThermalLimits(Decimal(85), None, False, DATADOG_DCGM_TEMPERATURE)
AMD_THERMAL = ThermalLimits(Decimal(100), Decimal(105), True, AMD_SMI)


@dataclass(frozen=True, slots=True)
class GpuArchitecture:
    """A GPU architecture: ``precisions`` are the formats beyond FP32/FP16 it runs in hardware
    (tensor cores, or the weight-only kernels of the common serving stacks for INT8/INT4);
    ``target`` its CUDA compute capability or ROCm target; ``first_release`` the first CUDA or ROCm
    release that builds for it."""

    name: str
    vendor: str
    platform: str
    precisions: frozenset[str]
    target: str
    first_release: Version
    platform_source: str
    thermal: ThermalLimits


def _arch(
    name: str, vendor: str, precisions: str, target: str, first: Version, source: str
) -> GpuArchitecture:
    nvidia = vendor == NVIDIA
    return GpuArchitecture(
        name=name,
        vendor=vendor,
        platform=CUDA if nvidia else ROCM,
        precisions=frozenset(precisions.split()),
        target=target,
        first_release=first,
        platform_source=source,
        thermal=NVIDIA_THERMAL if nvidia else AMD_THERMAL,
    )


# Precisions: NVIDIA A100, H100, Ada Lovelace and Blackwell architecture whitepapers and the
# Transformer Engine documentation (FP8 on Hopper, Ada Lovelace and Blackwell); AMD CDNA 2 and
# CDNA 3 whitepapers and ROCm "Data types and precision support" (BF16 from MI200, FP8 from MI300);
# weight-only INT8/INT4: vLLM "Supported Hardware" (AWQ/GPTQ from Turing) and Hugging Face Optimum
# on AMD GPUs (GPTQ on MI210, MI250, MI300): the rule's source in ``engine.build.rules``.
# Platforms: CUDA 10.0 added compute capability 7.5 (Turing), 11.0 added 8.0 (Ampere; 8.6 came
# with 11.1), 11.8 added 8.9 (Ada Lovelace) and 9.0 (Hopper), 12.8 added 10.0 and 12.0
# (Blackwell): the CUDA toolkit release notes. ROCm 5.0 lists the MI200 series (gfx90a), 6.0 is the
# first release for the MI300X (gfx942): the ROCm compatibility matrix; 7.0 the first for the
# MI350 series (gfx950).
ARCHITECTURES: Mapping[str, GpuArchitecture] = MappingProxyType(
    {
        a.name: a
        for a in (
            _arch("Turing", NVIDIA, "int8 int4", "7.5", (10, 0), CUDA_RELEASE_NOTES),
            _arch("Ampere", NVIDIA, "bf16 int8 int4", "8.0 / 8.6", (11, 1), CUDA_RELEASE_NOTES),
            _arch("Ada Lovelace", NVIDIA, "fp8 bf16 int8 int4", "8.9", (11, 8), CUDA_RELEASE_NOTES),
            _arch("Hopper", NVIDIA, "fp8 bf16 int8 int4", "9.0", (11, 8), CUDA_RELEASE_NOTES),
            _arch(
                "Blackwell",
                NVIDIA,
                "fp8 bf16 int8 int4",
                "10.0 / 12.0",
                (12, 8),
                CUDA_RELEASE_NOTES,
            ),
            _arch("CDNA 2", AMD, "bf16 int8 int4", "gfx90a", (5, 0), ROCM_COMPATIBILITY),
            _arch("CDNA 3", AMD, "fp8 bf16 int8 int4", "gfx942", (6, 0), ROCM_COMPATIBILITY),
            _arch("CDNA 4", AMD, "fp8 bf16 int8 int4", "gfx950", (7, 0), ROCM_7_RELEASE),
        )
    }
)


def _squashed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_FAMILIES = {_squashed(name): name for name in ARCHITECTURES}


def architecture_family(name: str | None) -> str | None:
    """The known architecture a catalog name belongs to (the longest one it starts with):
    "Blackwell Ultra" -> "Blackwell"; None when unknown."""
    key = _squashed(name or "")
    matches = [known for known in _FAMILIES if key.startswith(known)]
    return _FAMILIES[max(matches, key=len)] if matches else None


def gpu_architecture(name: str | None) -> GpuArchitecture | None:
    family = architecture_family(name)
    return None if family is None else ARCHITECTURES[family]


# --- GPU models ----------------------------------------------------------------------------------

# Market classes: the hosting offers a GPU is compared with (``engine.tco.market``), by name.
MARKET_CLASS_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "B200": "B200",
        "H200": "H200",
        "H100": "H100 / MI300X",
        "A100": "A100",
        "L40S": "L40S / RTX 6000",
        "L4": "L4 / RTX 4000",
    }
)


@dataclass(frozen=True, slots=True)
class GpuModel:
    """A GPU model: ``priced`` says whether ``key`` names it in the price tables (a superchip sold
    as a rack, or a board GPUQuote has no price for, is recognised but has no price key)."""

    key: str
    name: str
    match: tuple[str, ...]
    architecture: str
    market_class: str | None
    priced: bool = True
    training_mfu: Efficiency = TRAINING_MFU  # BF16/FP16 training, share of the BF16 peak
    training_mfu_fp8: Efficiency = DEFAULT_TRAINING[1]  # FP8 training, share of the FP8 peak
    decode_bandwidth: Efficiency = DECODE_BANDWIDTH


def _m(
    key: str,
    name: str,
    match: str,
    architecture: str,
    market: str | None,
    priced: bool = True,
    training: tuple[Efficiency, Efficiency] = DEFAULT_TRAINING,
) -> GpuModel:
    return GpuModel(
        key,
        name,
        tuple(match.split()),
        architecture,
        market,
        priced,
        training_mfu=training[0],
        training_mfu_fp8=training[1],
    )


# First match wins: a name is squashed (lower case, letters and digits only) and every needle of
# ``match`` must appear in it.
# Training efficiencies: the MLPerf-derived ones above; the H100 NVL and PCIe (no result of their
# own) share the H100 SXM's, the Grace Blackwell superchips the B200's (the same GPU; v5.0's
# 2 x 4 GB200 result, 10.79 min, is within 5 % of 8 x B200); every other GPU the default.
GPU_MODELS: tuple[GpuModel, ...] = (
    _m("H100_NVL", "H100 NVL", "h100 nvl", "Hopper", "H100", training=H100_TRAINING),
    _m("H100_PCIE", "H100 PCIe", "h100 pcie", "Hopper", "H100", training=H100_TRAINING),
    _m("H100_SXM", "H100 SXM", "h100", "Hopper", "H100", training=H100_TRAINING),
    _m("A100_PCIE", "A100 PCIe", "a100 pcie", "Ampere", "A100"),
    _m("A100_SXM", "A100 SXM", "a100", "Ampere", "A100"),
    # Grace Blackwell superchips are sold as racks, not as boards or hosted servers.
    _m("GB200", "GB200", "gb200", "Blackwell", None, priced=False, training=B200_TRAINING),
    _m("GB300", "GB300", "gb300", "Blackwell", None, priced=False, training=B200_TRAINING),
    _m("B200", "B200", "b200", "Blackwell", "B200", training=B200_TRAINING),
    _m("H200", "H200", "h200", "Hopper", "H200", training=H200_TRAINING),
    # MI325X: AMD product page (CDNA 3, 256 GB HBM3E); hosted against H200 offers, its rival class;
    # no cloud price key yet.
    _m(
        "MI325X",
        "Instinct MI325X",
        "mi325x",
        "CDNA 3",
        "H200",
        priced=False,
        training=MI325X_TRAINING,
    ),
    _m("MI300X", "Instinct MI300X", "mi300x", "CDNA 3", "H100", training=MI300X_TRAINING),
    _m("L40S", "L40S", "l40s", "Ada Lovelace", "L40S"),
    _m("L40", "L40", "l40", "Ada Lovelace", "L40S", priced=False),
    _m("RTX_PRO_6000", "RTX PRO 6000", "rtxpro6000", "Blackwell", "L40S"),
    _m("RTX_6000_ADA", "RTX 6000 Ada", "rtx6000ada", "Ada Lovelace", "L40S"),
    _m("QUADRO_RTX_6000", "Quadro RTX 6000", "rtx6000", "Turing", "L40S", priced=False),
    _m("RTX_A6000", "RTX A6000", "a6000", "Ampere", "L40S", priced=False),
    _m("L4", "L4", "l4", "Ada Lovelace", "L4"),
    _m("RTX_PRO_4000", "RTX PRO 4000", "rtxpro4000", "Blackwell", "L4", priced=False),
    _m("RTX_4000_SFF_ADA", "RTX 4000 SFF Ada", "rtx4000sff", "Ada Lovelace", "L4"),
    _m("RTX_4000", "RTX 4000", "rtx4000", "Ada Lovelace", "L4", priced=False),
    # Consumer cards: no hosting offers to compare with, no cloud price key.
    _m("RTX_4090", "GeForce RTX 4090", "rtx4090", "Ada Lovelace", None, priced=False),
    _m("RTX_5090", "GeForce RTX 5090", "rtx5090", "Blackwell", None, priced=False),
)
MODELS_BY_KEY: Mapping[str, GpuModel] = MappingProxyType({m.key: m for m in GPU_MODELS})


def gpu_model(name: str | None) -> GpuModel | None:
    """The record a GPU name or SKU matches ("NVIDIA H100 SXM5 80GB" -> H100 SXM); None when
    unknown."""
    squashed = _squashed(name or "")
    if not squashed:
        return None
    return next((m for m in GPU_MODELS if all(n in squashed for n in m.match)), None)


def gpu_model_key(name: str | None) -> str | None:
    """Canonical price-table key for a GPU name or SKU ("NVIDIA H100 SXM5 80GB" -> "H100_SXM").

    ``None`` when the model is unknown to the price tables (or ``name`` is empty).
    """
    found = gpu_model(name)
    return found.key if found is not None and found.priced else None


def gpu_model_name(key: str) -> str:
    """The readable name of a model key ("H100_PCIE" -> "H100 PCIe")."""
    found = MODELS_BY_KEY.get(key)
    return found.name if found is not None else key.replace("_", " ")


def training_mfu(name: str | None) -> Efficiency:
    """The share of peak a training run reaches on this GPU (the default when unknown)."""
    found = gpu_model(name)
    return TRAINING_MFU if found is None else found.training_mfu


def training_mfu_fp8(name: str | None) -> Efficiency:
    """The share of the FP8 peak an FP8 training run reaches on this GPU (the default when
    unknown)."""
    found = gpu_model(name)
    return DEFAULT_TRAINING[1] if found is None else found.training_mfu_fp8


def decode_bandwidth(name: str | None) -> Efficiency:
    """The share of peak memory bandwidth a decode step reaches on this GPU."""
    found = gpu_model(name)
    return DECODE_BANDWIDTH if found is None else found.decode_bandwidth


def known_gpu_models() -> tuple[str, ...]:
    """Model keys with at least one per-model default, sorted."""
    keys = set(CLOUD_ON_DEMAND)
    for table in CLOUD_ON_DEMAND_BY_REGION.values():
        keys |= set(table)
    return tuple(sorted(keys))
