"""What the job needs on its own (sizing) and the model it runs, as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.sizing import Explanation, MemoryBreakdown, Sizing
from engine.sizing.training_plan import TrainingPlan
from engine.workload.registry import ARCHITECTURE_FIELDS, ModelEntry
from quotes.advice.presenters.words import Render, number, text


def _memory(breakdown: MemoryBreakdown) -> dict[str, float]:
    return {
        "weights": number(breakdown.weights),
        "gradients": number(breakdown.gradients),
        "optimizer_states": number(breakdown.optimizer_states),
        "activations": number(breakdown.activations),
        "kv_cache": number(breakdown.kv_cache),
        "overhead": number(breakdown.overhead),
        "total": number(breakdown.total),
    }


def explanations_to_list(
    explanations: Sequence[Explanation], render: Render = text
) -> list[dict[str, str]]:
    return [
        {"key": item.key, "text": render(item.message), "source": item.source}
        for item in explanations
    ]


def sizing_to_dict(sizing: Sizing, *, render: Render = text) -> dict[str, Any]:
    interconnect = sizing.interconnect
    return {
        "memory_gb": _memory(sizing.memory_gb),
        "memory_per_gpu_gb": _memory(sizing.memory_per_gpu_gb),
        "gpus": sizing.gpus,
        "min_gpus": sizing.min_gpus,
        "fits": sizing.fits,
        "training_flops": sizing.training_flops,
        "forward_flops": sizing.forward_flops,
        "backward_flops": sizing.backward_flops,
        "training_hours": None if sizing.training_hours is None else number(sizing.training_hours),
        "mfu": sizing.mfu,
        "gpus_for_deadline": sizing.gpus_for_deadline,
        "tokens_per_second": None
        if sizing.tokens_per_second is None
        else number(sizing.tokens_per_second, 1),
        "gpus_for_target": sizing.gpus_for_target,
        "images_per_second": None
        if sizing.images_per_second is None
        else number(sizing.images_per_second, 3),
        "system_ram_gb": number(sizing.system_ram_gb),
        "storage_gb": number(sizing.storage_gb),
        "storage_read_mbs": number(sizing.storage_read_mbs),
        "cpu_cores": sizing.cpu_cores,
        "nodes": sizing.nodes,
        "interconnect": None
        if interconnect is None
        else {"fabric": interconnect.fabric, "gbps_per_gpu": interconnect.gbps_per_gpu},
        "large_project": sizing.large_project,
        "model_sharded": sizing.model_sharded,
        "micro_batch": sizing.micro_batch,
        "accumulation_steps": sizing.accumulation_steps,
        "data_parallel": sizing.data_parallel,
        "sharding": sizing.sharding,
        "explanations": explanations_to_list(sizing.explanations, render),
    }


def training_plan_to_dict(plan: TrainingPlan | None) -> dict[str, Any] | None:
    """How a training job runs on the GPUs it is sized for (``engine.sizing.training_plan``)."""
    if plan is None:
        return None
    return {
        "gpus": plan.gpus,
        "global_batch": plan.global_batch,
        "micro_batch": plan.micro_batch,
        "accumulation_steps": plan.accumulation_steps,
        "data_parallel": plan.data_parallel,
        "tensor_parallel": plan.tensor_parallel,
        "pipeline_parallel": plan.pipeline_parallel,
        "sharding": plan.sharding,
        "mfu": number(plan.mfu, 4),
        "mfu_source": plan.mfu_source,
        "goodput": number(plan.goodput, 6),
        "goodput_source": plan.goodput_source,
        "hours": None if plan.hours is None else number(plan.hours),
        "units_per_second": None
        if plan.units_per_second is None
        else number(plan.units_per_second),
        "per_sample": plan.per_sample,
        "deadline_hours": None if plan.deadline_hours is None else number(plan.deadline_hours),
        "margin": None if plan.margin is None else number(plan.margin, 4),
        "meets_deadline": plan.meets_deadline,
        "tight": plan.tight,
    }


def model_entry_to_dict(entry: ModelEntry) -> dict[str, Any]:
    arch = entry.architecture
    return {
        "id": entry.id,
        "name": entry.name,
        "family": entry.family,
        "parameters": entry.parameters,
        "parameters_billions": number(entry.parameters / 1e9, 3),
        "active_parameters": entry.active_parameters,
        "modality": str(entry.modality),
        "license": entry.license,
        "sources": list(entry.sources),
        "architecture": {name: getattr(arch, name) for name in ARCHITECTURE_FIELDS},
    }
