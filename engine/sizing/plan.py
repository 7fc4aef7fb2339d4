"""The plan: everything that does not depend on the GPU count, computed once per call."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..workload import Precision, TrainingMethod, Workload
from ..workload.registry import Architecture
from .constants import CUDA_CONTEXT_GB, GB, RUNTIME_OVERHEAD_FRACTION
from .formulas import (
    STAGE,
    activation_bytes_per_layer,
    kv_cache_bytes_per_token,
    lora_adapter_parameters,
    model_state_bytes_per_parameter,
)
from .model import ModelFigures, weight_bytes
from .results import MemoryBreakdown

# --- The plan: everything that does not depend on the GPU count, computed once per call. -------


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    training: bool
    weights: float  # bytes, whole job
    gradients: float
    optimizer_states: float
    activation_per_sample: float  # bytes per sequence/sample on one GPU
    batch: int  # global batch (training) or concurrent requests (inference)
    kv_cache: float  # bytes, all requests
    stage: int  # ZeRO stage (training)
    tensor_parallel: bool  # inference: split weights and KV; False: whole replicas
    # Training: samples one GPU holds at a time (gradient accumulation reaches the global
    # ``batch``; ``SOURCE_MICRO_BATCH``), never more than its share of the batch.
    micro_batch: int = 1
    micro_batch_asked: bool = False  # the workload's micro_batch_size: not chosen by memory

    def per_gpu(self, gpus: int, stage: int | None = None, replica: int = 0) -> tuple[float, ...]:
        """(weights, gradients, optimizer, activations, kv) bytes on one of ``gpus`` GPUs.

        Training: the activations of one micro-batch. Tensor-parallel inference: ``replica``
        GPUs hold one copy of the weights (0: all ``gpus``), and the requests, with their KV
        cache, are shared by every GPU."""
        share = math.ceil(self.batch / gpus)
        if self.training:
            s = self.stage if stage is None else stage
            return (
                self.weights / gpus if s >= 3 else self.weights,
                self.gradients / gpus if s >= 2 else self.gradients,
                self.optimizer_states / gpus if s >= 1 else self.optimizer_states,
                self.activation_per_sample * self.micro_batch_on(gpus),
                0.0,
            )
        if self.tensor_parallel:
            return (
                self.weights / (replica or gpus),
                0.0,
                0.0,
                self.activation_per_sample * self.batch / gpus,
                self.kv_cache / gpus,
            )
        return (self.weights, 0.0, 0.0, self.activation_per_sample * share, 0.0)

    def micro_batch_on(self, gpus: int) -> int:
        """Samples per micro-batch on one of ``gpus`` data-parallel GPUs: ``micro_batch``, at
        most the GPU's share of the global batch."""
        return max(1, min(self.micro_batch, math.ceil(self.batch / gpus)))

    def accumulation_steps(self, gpus: int) -> int:
        """Micro-batches each GPU runs per optimizer step to make the global batch."""
        return math.ceil(self.batch / (self.micro_batch_on(gpus) * gpus))

    def total_per_gpu(self, gpus: int, stage: int | None = None, replica: int = 0) -> float:
        base = sum(self.per_gpu(gpus, stage, replica))
        return base + CUDA_CONTEXT_GB * GB + RUNTIME_OVERHEAD_FRACTION * base


def _activation_precision_factor(precision: Precision) -> float:
    # Korthikanti's counts are for 16-bit activations; fp32 training stores 4-byte activations.
    return 2.0 if precision is Precision.FP32 else 1.0


def _transformer_training_activation_per_sequence(
    arch: Architecture,
    sequence_length: int,
    recompute: bool,
    precision: Precision,
    flash_attention: bool = True,
) -> float:
    layers, hidden, heads = arch.layers or 0, arch.hidden_size or 0, arch.attention_heads or 0
    k = arch.experts_per_token or 1
    scores = not flash_attention
    per_layer = activation_bytes_per_layer(
        sequence_length,
        1,
        hidden,
        heads,
        recompute=recompute,
        experts_per_token=k,
        attention_scores=scores,
    )
    total = layers * per_layer
    if recompute:
        # The layer being recomputed needs its full activations during its backward pass.
        total += activation_bytes_per_layer(
            sequence_length, 1, hidden, heads, experts_per_token=k, attention_scores=scores
        )
    # Embedding and output terms (Korthikanti et al. section 4): embedding dropout mask sbh,
    # final layer-norm input 2sbh, output-projection input 2sbh and fp32 logits 4sbv.
    total += 5.0 * sequence_length * hidden + 4.0 * sequence_length * (arch.vocab_size or 0)
    return total * _activation_precision_factor(precision)


def memory_plan(workload: Workload, model: ModelFigures) -> MemoryPlan:
    arch, precision = model.arch, workload.precision
    if workload.is_training:
        t = workload.training_or_default
        trained = model.parameters - model.frozen_parameters
        frozen_bytes = weight_bytes(model, precision, model.frozen_parameters)
        if t.method is TrainingMethod.FULL:
            w, g, o = model_state_bytes_per_parameter(precision, t.optimizer)
            weights, grads, states = trained * w + frozen_bytes, trained * g, trained * o
        else:
            adapters = lora_adapter_parameters(arch, t.lora_rank, model.parameters)
            base_precision = Precision.INT4 if t.method is TrainingMethod.QLORA else precision
            adapter_precision = Precision.FP32 if precision is Precision.FP32 else Precision.BF16
            w, g, o = model_state_bytes_per_parameter(adapter_precision, t.optimizer)
            base = weight_bytes(model, base_precision, model.parameters)
            weights, grads, states = base + adapters * w, adapters * g, adapters * o
        if arch.is_transformer:
            per_sample = _transformer_training_activation_per_sequence(
                arch, t.sequence_length, t.gradient_checkpointing, precision, t.flash_attention
            )
        else:
            elements = model.activation_elements_per_sample
            per_sample = (elements or 0) * 2.0 * _activation_precision_factor(precision)
            if t.gradient_checkpointing and arch.layers:
                per_sample *= min(1.0, 2.0 / math.sqrt(arch.layers))
        return MemoryPlan(
            training=True,
            weights=weights,
            gradients=grads,
            optimizer_states=states,
            activation_per_sample=per_sample,
            batch=t.batch_size,
            kv_cache=0.0,
            stage=STAGE[t.sharding],
            tensor_parallel=False,
            micro_batch=t.micro_batch_size or 1,
            micro_batch_asked=t.micro_batch_size is not None,
        )
    inf = workload.inference_or_default
    weights = weight_bytes(model, precision, model.parameters)
    kv = 0.0
    per_request = 0.0
    if model.autoregressive and arch.is_transformer:
        tokens = kv_tokens(arch, inf.sequence_length)
        kv = kv_cache_bytes_per_token(arch, kv_precision(workload)) * tokens
        kv *= inf.concurrent_requests
    elif arch.is_transformer:
        # Encoders keep no cache; one layer's activations are live at a time.
        per_request = activation_bytes_per_layer(
            inf.sequence_length, 1, arch.hidden_size or 0, arch.attention_heads or 0
        ) * _activation_precision_factor(precision)
    elif model.inference_activation_elements_per_sample is not None:
        elements = model.inference_activation_elements_per_sample
        per_request = elements * 2.0 * _activation_precision_factor(precision)
    return MemoryPlan(
        training=False,
        weights=weights,
        gradients=0.0,
        optimizer_states=0.0,
        activation_per_sample=per_request,
        batch=inf.concurrent_requests,
        kv_cache=kv,
        stage=0,
        tensor_parallel=arch.is_transformer,
    )


def kv_tokens(arch: Architecture, sequence_length: int) -> int:
    if arch.sliding_window:
        return min(sequence_length, arch.sliding_window)
    return sequence_length


def kv_precision(workload: Workload) -> Precision:
    """The KV cache's format: as asked, else the model's 16-bit activations (FP32 for an FP32
    model), whatever the weights' quantisation (``SOURCE_KV_PRECISION``)."""
    asked = workload.inference_or_default.kv_cache_precision
    if asked is not None:
        return asked
    if workload.precision in (Precision.FP32, Precision.FP16):
        return workload.precision
    return Precision.BF16


def breakdown(parts: tuple[float, ...]) -> MemoryBreakdown:
    """GB figures of one device's (weights, gradients, optimizer, activations, kv) bytes."""
    base = sum(parts)
    overhead = CUDA_CONTEXT_GB * GB + RUNTIME_OVERHEAD_FRACTION * base
    w, g, o, a, kv = (x / GB for x in parts)
    return MemoryBreakdown(w, g, o, a, kv, overhead / GB, (base + overhead) / GB)
