"""The public calculators' answers (sizing, configurations, TCO), one service each, beside
``compute``: the API's views validate, call one of them and serialise; the wizard can call them
too. Engine objects in, engine objects out."""

from __future__ import annotations

from engine.sizing import GpuProfile, max_concurrent_requests, max_context_length
from engine.workload import Workload, WorkloadError


def reverse_questions(workload: Workload, gpu: GpuProfile, gpus: int) -> dict[str, int | None]:
    """The longest context and the most concurrent requests that fit (models with a KV cache)."""
    try:
        return {
            "max_context_length": max_context_length(workload, gpu=gpu, gpus=gpus),
            "max_concurrent_requests": max_concurrent_requests(workload, gpu=gpu, gpus=gpus),
        }
    except WorkloadError:
        return {"max_context_length": None, "max_concurrent_requests": None}
