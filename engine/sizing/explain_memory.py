"""Explanations of the GPU memory breakdown (weights, states, activations, KV cache, totals)."""

from __future__ import annotations

from ..i18n import gettext_noop, ngettext_noop
from ..workload import Optimizer, Precision, TrainingMethod, Workload
from .constants import (
    CUDA_CONTEXT_GB,
    KV_BYTES,
    MB,
    RUNTIME_OVERHEAD_FRACTION,
    SOURCE_8BIT,
    SOURCE_ACTIVATIONS,
    SOURCE_KV,
    SOURCE_KV_LATENT,
    SOURCE_KV_PRECISION,
    SOURCE_LORA,
    SOURCE_MICRO_BATCH,
    SOURCE_NON_TRANSFORMER,
    SOURCE_OVERHEAD,
    SOURCE_QUANT,
    SOURCE_RECOMPUTE_CNN,
    SOURCE_SHARDING,
    SOURCE_ZERO,
    WEIGHT_BYTES,
)
from .explain import explain_step, r
from .formulas import (
    activation_bytes_per_layer,
    kv_cache_bytes_per_token,
    lora_adapter_parameters,
    model_state_bytes_per_parameter,
)
from .model import ModelFigures
from .plan import MemoryPlan, kv_precision, kv_tokens
from .results import Explanation, MemoryBreakdown


def explain_memory(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    plan: MemoryPlan,
    whole: MemoryBreakdown,
    per_gpu: MemoryBreakdown,
    gpus: int,
    gpu_given: bool = False,
) -> None:
    trained = _explain_weights(ex, workload, model, whole)
    if workload.is_training:
        _explain_model_states(ex, workload, whole, trained)
        _explain_training_activations(ex, workload, model, plan, whole)
        _explain_micro_batch(ex, plan, gpus, gpu_given)
    else:
        _explain_inference_memory(ex, workload, model, plan, whole)
    _explain_totals(ex, workload, plan, whole, per_gpu, gpus)


def _explain_weights(
    ex: list[Explanation], workload: Workload, model: ModelFigures, whole: MemoryBreakdown
) -> float:
    """Explain the weights; return the number of trained parameters."""
    precision = workload.precision
    t = workload.training_or_default
    arch = model.arch
    training = workload.is_training
    if training and t.method is not TrainingMethod.FULL:
        adapters = lora_adapter_parameters(arch, t.lora_rank, model.parameters)
        base_precision = Precision.INT4 if t.method is TrainingMethod.QLORA else precision
        explain_step(
            ex,
            "memory.weights",
            gettext_noop(
                "%(gb)s GB: frozen base of %(params)s parameters at %(precision)s "
                "(%(bytes)s bytes each) plus %(adapters)s rank-%(rank)s LoRA adapter parameters "
                "on every attention and MLP projection"
            ),
            SOURCE_QUANT if base_precision is Precision.INT4 else SOURCE_LORA,
            gb=r(whole.weights),
            params=int(model.parameters),
            precision="NF4" if t.method is TrainingMethod.QLORA else precision.value,
            bytes=r(WEIGHT_BYTES[base_precision], 4),
            adapters=int(adapters),
            rank=t.lora_rank,
        )
        trained = adapters
    else:
        trained = model.parameters - model.frozen_parameters
        if training:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters, %(bytes)s bytes each for the %(precision)s "
                "training copy (%(frozen)s of them frozen)"
            )
        elif WEIGHT_BYTES[precision] < 2:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters at %(precision)s (%(bytes)s bytes each); the "
                "embedding and output head stay 16-bit"
            )
        else:
            template = gettext_noop(
                "%(gb)s GB: %(params)s parameters at %(precision)s (%(bytes)s bytes each)"
            )
        explain_step(
            ex,
            "memory.weights",
            template,
            SOURCE_ZERO if training else SOURCE_QUANT,
            gb=r(whole.weights),
            params=int(model.parameters),
            precision=precision.value,
            bytes=(
                model_state_bytes_per_parameter(precision, t.optimizer)[0]
                if training
                else r(WEIGHT_BYTES[precision], 4)
            ),
            frozen=int(model.frozen_parameters),
        )
    return trained


def _explain_model_states(
    ex: list[Explanation], workload: Workload, whole: MemoryBreakdown, trained: float
) -> None:
    precision = workload.precision
    t = workload.training_or_default
    _, g, o = model_state_bytes_per_parameter(
        Precision.FP32 if precision is Precision.FP32 else Precision.BF16, t.optimizer
    )
    explain_step(
        ex,
        "memory.gradients",
        gettext_noop("%(gb)s GB: %(bytes)s bytes per trained parameter (%(trained)s trained)"),
        SOURCE_ZERO,
        gb=r(whole.gradients),
        bytes=g,
        trained=int(trained),
    )
    explain_step(
        ex,
        "memory.optimizer_states",
        gettext_noop(
            "%(gb)s GB: %(optimizer)s keeps %(bytes)s bytes per trained parameter "
            "(fp32 master weights included in mixed precision)"
        ),
        SOURCE_8BIT if t.optimizer is Optimizer.ADAMW_8BIT else SOURCE_ZERO,
        gb=r(whole.optimizer_states),
        optimizer=t.optimizer.value,
        bytes=o,
    )


def _explain_training_activations(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    plan: MemoryPlan,
    whole: MemoryBreakdown,
) -> None:
    t = workload.training_or_default
    arch = model.arch
    micro = plan.micro_batch_on(1)
    if arch.is_transformer:
        per_layer = activation_bytes_per_layer(
            t.sequence_length,
            1,
            arch.hidden_size or 0,
            arch.attention_heads or 0,
            recompute=t.gradient_checkpointing,
            experts_per_token=arch.experts_per_token or 1,
            attention_scores=not t.flash_attention,
        )
        explain_step(
            ex,
            "memory.activations",
            gettext_noop(
                "%(gb)s GB for a micro-batch of %(micro)s sequences of %(tokens)s tokens: with "
                "gradient checkpointing each layer keeps only its input, %(per_layer_mb)s MB per "
                "sequence x %(layers)s layers, plus one layer being recomputed and the "
                "embedding and output terms"
            )
            if t.gradient_checkpointing
            else gettext_noop(
                "%(gb)s GB for a micro-batch of %(micro)s sequences of %(tokens)s tokens: "
                "%(per_layer_mb)s MB per sequence per layer x %(layers)s layers, plus embedding "
                "and output terms"
            ),
            SOURCE_ACTIVATIONS,
            gb=r(whole.activations),
            micro=micro,
            tokens=t.sequence_length,
            per_layer_mb=r(per_layer / MB, 1),
            layers=arch.layers,
        )
    else:
        explain_step(
            ex,
            "memory.activations",
            gettext_noop(
                "%(gb)s GB: %(per_sample_mb)s MB per sample x a micro-batch of %(micro)s "
                "samples (registry estimate, reduced to 2/sqrt(layers) by gradient checkpointing)"
            )
            if t.gradient_checkpointing
            else gettext_noop(
                "%(gb)s GB: %(per_sample_mb)s MB per sample x a micro-batch of %(micro)s samples "
                "(registry estimate)"
            ),
            SOURCE_RECOMPUTE_CNN if t.gradient_checkpointing else SOURCE_NON_TRANSFORMER,
            gb=r(whole.activations),
            per_sample_mb=r(plan.activation_per_sample / MB, 1),
            micro=micro,
        )


def _explain_micro_batch(
    ex: list[Explanation], plan: MemoryPlan, gpus: int, gpu_given: bool
) -> None:
    """How the global batch is reached: micro-batch x accumulation steps x data-parallel GPUs."""
    if plan.micro_batch_asked:
        template = gettext_noop(
            "global batch of %(batch)s: a micro-batch of %(micro)s samples per GPU (as asked) x "
            "%(steps)s gradient-accumulation steps x %(gpus)s data-parallel GPUs; memory holds "
            "one micro-batch"
        )
    elif gpu_given:
        template = gettext_noop(
            "global batch of %(batch)s: a micro-batch of %(micro)s samples per GPU (the largest "
            "power of two up to its share of the batch that fits its memory) x %(steps)s "
            "gradient-accumulation steps x %(gpus)s data-parallel GPUs; memory holds one "
            "micro-batch"
        )
    else:
        template = gettext_noop(
            "global batch of %(batch)s: a micro-batch of %(micro)s samples per GPU until a GPU "
            "is chosen x %(steps)s gradient-accumulation steps x %(gpus)s data-parallel GPUs; "
            "memory holds one micro-batch"
        )
    explain_step(
        ex,
        "micro_batch",
        template,
        SOURCE_MICRO_BATCH,
        batch=plan.batch,
        micro=plan.micro_batch_on(gpus),
        steps=plan.accumulation_steps(gpus),
        gpus=gpus,
    )


def _explain_inference_memory(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    plan: MemoryPlan,
    whole: MemoryBreakdown,
) -> None:
    arch = model.arch
    inf = workload.inference_or_default
    explain_step(
        ex,
        "memory.gradients",
        gettext_noop("no gradients or optimizer states at inference"),
        SOURCE_ZERO,
    )
    if plan.kv_cache and arch.is_latent_attention:
        _explain_latent_kv(ex, workload, model, whole)
    elif plan.kv_cache:
        per_token = kv_cache_bytes_per_token(arch, kv_precision(workload))
        tokens = kv_tokens(arch, inf.sequence_length)
        explain_step(
            ex,
            "memory.kv_cache",
            gettext_noop(
                "%(gb)s GB: 2 x %(layers)s layers x %(kv_heads)s KV heads x %(head_dim)s x "
                "%(bytes)s bytes = %(per_token)s bytes per token, x %(tokens)s tokens (the "
                "sliding window) x %(requests)s requests"
            )
            if tokens < inf.sequence_length
            else gettext_noop(
                "%(gb)s GB: 2 x %(layers)s layers x %(kv_heads)s KV heads x %(head_dim)s x "
                "%(bytes)s bytes = %(per_token)s bytes per token, x %(tokens)s tokens x "
                "%(requests)s requests"
            ),
            SOURCE_KV
            if inf.kv_cache_precision is not None
            else f"{SOURCE_KV}; {SOURCE_KV_PRECISION}",
            gb=r(whole.kv_cache),
            layers=arch.layers,
            kv_heads=arch.resolved_kv_heads,
            head_dim=arch.resolved_head_dim,
            bytes=KV_BYTES[kv_precision(workload)],
            per_token=int(per_token),
            tokens=tokens,
            requests=inf.concurrent_requests,
        )
    else:
        explain_step(
            ex,
            "memory.kv_cache",
            gettext_noop("no KV cache: this model does not generate token by token"),
            SOURCE_KV,
        )
    explain_step(
        ex,
        "memory.activations",
        gettext_noop(
            "%(gb)s GB of activations for %(requests)s requests (decode workspace of "
            "generative models is in the overhead)"
        ),
        SOURCE_NON_TRANSFORMER if not arch.is_transformer else SOURCE_ACTIVATIONS,
        gb=r(whole.activations),
        requests=inf.concurrent_requests,
    )


def _explain_latent_kv(
    ex: list[Explanation], workload: Workload, model: ModelFigures, whole: MemoryBreakdown
) -> None:
    """The latent cache of multi-head latent attention: one latent and one RoPE key per layer."""
    arch, inf = model.arch, workload.inference_or_default
    tokens = kv_tokens(arch, inf.sequence_length)
    source = SOURCE_KV_LATENT
    if inf.kv_cache_precision is None:
        source = f"{source}; {SOURCE_KV_PRECISION}"
    explain_step(
        ex,
        "memory.kv_cache",
        gettext_noop(
            "%(gb)s GB of latent attention cache: (%(latent)s latent + %(rope)s RoPE key) x "
            "%(layers)s layers x %(bytes)s bytes = %(per_token)s bytes per token, x %(tokens)s "
            "tokens x %(requests)s requests"
        ),
        source,
        gb=r(whole.kv_cache),
        latent=arch.kv_lora_rank,
        rope=arch.qk_rope_head_dim,
        layers=arch.layers,
        bytes=KV_BYTES[kv_precision(workload)],
        per_token=int(kv_cache_bytes_per_token(arch, kv_precision(workload))),
        tokens=tokens,
        requests=inf.concurrent_requests,
    )


def _explain_totals(
    ex: list[Explanation],
    workload: Workload,
    plan: MemoryPlan,
    whole: MemoryBreakdown,
    per_gpu: MemoryBreakdown,
    gpus: int,
) -> None:
    training = workload.is_training
    explain_step(
        ex,
        "memory.overhead",
        gettext_noop(
            "%(gb)s GB per GPU: %(fixed)s GB CUDA context and libraries + %(percent)s%% "
            "framework workspace"
        ),
        SOURCE_OVERHEAD,
        gb=r(per_gpu.overhead),
        fixed=CUDA_CONTEXT_GB,
        percent=int(RUNTIME_OVERHEAD_FRACTION * 100),
    )
    explain_step(
        ex,
        "memory.total",
        gettext_noop(
            "%(gb)s GB for the whole job, as if one device held one copy of the model and one "
            "micro-batch"
        )
        if training
        else gettext_noop(
            "%(gb)s GB for the whole job, as if one device held one copy of the model and the "
            "whole batch"
        ),
        SOURCE_ZERO if training else SOURCE_KV,
        gb=r(whole.total),
    )
    if training:
        templates = {
            0: ngettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPU: plain data parallel, every GPU holds all "
                "model states and one micro-batch",
                "%(gb)s GB per GPU on %(gpus)s GPUs: plain data parallel, every GPU holds all "
                "model states and one micro-batch",
            ),
            1: ngettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPU: ZeRO stage 1 splits the optimizer states",
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 1 splits the optimizer states",
            ),
            2: ngettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPU: ZeRO stage 2 splits optimizer states and "
                "gradients",
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 2 splits optimizer states and "
                "gradients",
            ),
            3: ngettext_noop(
                "%(gb)s GB per GPU on %(gpus)s GPU: ZeRO stage 3 (fully sharded) splits optimizer "
                "states, "
                "gradients and weights",
                "%(gb)s GB per GPU on %(gpus)s GPUs: ZeRO stage 3 (fully sharded) splits "
                "optimizer states, "
                "gradients and weights",
            ),
        }
        template = templates[plan.stage]
    elif plan.tensor_parallel:
        template = ngettext_noop(
            "%(gb)s GB per GPU on %(gpus)s GPU: tensor parallelism splits weights and KV cache",
            "%(gb)s GB per GPU on %(gpus)s GPUs: tensor parallelism splits weights and KV cache",
        )
    else:
        template = ngettext_noop(
            "%(gb)s GB per GPU on %(gpus)s GPU: each GPU runs a whole copy on its share of the "
            "requests",
            "%(gb)s GB per GPU on %(gpus)s GPUs: each GPU runs a whole copy on its share of the "
            "requests",
        )
    explain_step(
        ex,
        "memory_per_gpu.total",
        template,
        SOURCE_SHARDING if training and plan.stage == 3 else SOURCE_ZERO,
        counted_by="gpus",
        gb=r(per_gpu.total),
        gpus=gpus,
    )
