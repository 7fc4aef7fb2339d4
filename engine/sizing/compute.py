"""Training FLOPs, peak FLOP/s and decode throughput."""

from __future__ import annotations

from dataclasses import dataclass

from ..workload import DataKind, Precision, TrainingMethod, Workload
from .constants import BYTES_PER_TEXT_TOKEN, GB
from .formulas import lora_adapter_parameters
from .model import ModelFigures
from .plan import MemoryPlan
from .results import GpuProfile

# --- Compute. ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrainingCompute:
    total: float
    forward: float
    backward: float
    tokens: float | None  # tokens (transformers) or samples (per-sample models)
    per_sample: bool


def _training_tokens(workload: Workload) -> float | None:
    t, data = workload.training_or_default, workload.data
    if t.training_tokens is not None:
        return float(t.training_tokens)
    if data is None:
        return None
    if data.kind is DataKind.TEXT and data.total_gb is not None:
        return data.total_gb * GB / BYTES_PER_TEXT_TOKEN * t.epochs
    if data.items is not None:
        return data.items * t.sequence_length * t.epochs
    return None


def training_compute(workload: Workload, model: ModelFigures) -> TrainingCompute | None:
    t = workload.training_or_default
    lora = t.method is not TrainingMethod.FULL
    if model.arch.is_transformer:
        tokens = _training_tokens(workload)
        if tokens is None:
            return None
        active = model.active_parameters
        adapters = lora_adapter_parameters(model.arch, t.lora_rank, model.parameters) if lora else 0
        if lora:
            # Forward through base + adapters; backward computes input gradients everywhere
            # (2 FLOPs per weight per token) but weight gradients only for the adapters.
            forward = 2.0 * (active + adapters) * tokens
            backward = 2.0 * (active + adapters) * tokens + 2.0 * adapters * tokens
        else:
            forward = 2.0 * active * tokens
            backward = 4.0 * active * tokens
        return TrainingCompute(forward + backward, forward, backward, tokens, per_sample=False)
    flops = model.forward_flops_per_sample
    data = workload.data
    if flops is None or data is None or data.items is None:
        return None
    samples = data.items * t.epochs
    forward = flops * samples
    backward = (1.0 if lora else 2.0) * flops * samples
    return TrainingCompute(forward + backward, forward, backward, samples, per_sample=True)


def peak_flops(gpu: GpuProfile, precision: Precision) -> float:
    if precision is Precision.FP8 and gpu.fp8_tflops:
        return gpu.fp8_tflops * 1e12
    if precision is Precision.FP32:
        # fp32 training runs on TF32 tensor cores at half the BF16 rate (A100/H100 datasheets).
        return gpu.bf16_tflops * 1e12 / 2
    return gpu.bf16_tflops * 1e12


def parameters_read_per_step(model: ModelFigures, tokens: int) -> float:
    """Parameters one decode step reads for ``tokens`` tokens in the batch: every active one of a
    dense model; of a mixture of experts the shared weights and the distinct experts the tokens
    touch per layer, routing assumed uniform."""
    arch = model.arch
    if not (arch.is_moe and arch.experts and arch.experts_per_token):
        return model.active_parameters
    e, k = arch.experts, arch.experts_per_token
    per_expert = (model.parameters - model.active_parameters) / (e - k) if e > k else 0.0
    shared = model.active_parameters - k * per_expert
    return shared + per_expert * e * (1 - (1 - k / e) ** tokens)


def decode_tokens_per_second(
    workload: Workload,
    model: ModelFigures,
    plan: MemoryPlan,
    gpu: GpuProfile,
    gpus: int,
    copies: int = 1,
) -> tuple[float, float, float]:
    """(tokens/s, GB read per step, steps/s): roofline upper bound for ``gpus`` GPUs holding
    ``copies`` copies of the weights (each copy's weights are read on every step)."""
    inf = workload.inference_or_default
    requests = inf.concurrent_requests
    bytes_per_weight = plan.weights / model.parameters
    read_params = parameters_read_per_step(model, requests)
    step_bytes = read_params * bytes_per_weight * copies + plan.kv_cache
    bandwidth = gpu.memory_bandwidth_gbs * GB * gpus
    steps = bandwidth / step_bytes
    compute_cap = peak_flops(gpu, workload.precision) * gpus / (2.0 * model.active_parameters)
    return min(steps * requests, compute_cap), step_bytes / GB, steps
