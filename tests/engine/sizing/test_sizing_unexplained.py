"""``size(..., explain=False)``: the builder sizes the job on every GPU model it
considers and reads only the figures, so nothing is built for the explanations; the figures are
exactly those of the explained sizing, on every registry model, task and GPU below."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from engine.advice.on_gpu import sized_on
from engine.advice.pipeline import sizing_on_gpu
from engine.sizing import GpuProfile, size
from engine.workload import WorkloadError, workload_from_dict
from engine.workload.registry import all_models
from tests.engine.catalog_factory import a100_pcie, h100_nvl, h100_sxm, l40s, rtx_4090
from tests.engine.sizing.sizing_figures import H100

GPUS = [
    None,
    H100,
    GpuProfile("L4", 24, 300, 121, 242),
    GpuProfile("A100 40GB", 40, 1555, 312),
]
TASKS: list[dict[str, Any]] = [
    {"task": "inference", "inference": {"concurrent_requests": 64, "sequence_length": 8192}},
    {"task": "fine_tuning", "training": {"method": "qlora"}},
    {"task": "fine_tuning", "training": {"method": "full", "gpus": 8}},
    {"task": "training"},
]


def _workloads():
    for entry, task in itertools.product(all_models(), TASKS):
        try:
            yield workload_from_dict({"model": entry.id, **task})
        except WorkloadError:
            continue  # a task the model does not take


WORKLOADS = list(_workloads())


@pytest.mark.parametrize("gpu", GPUS, ids=lambda gpu: gpu.name if gpu else "no GPU")
def test_the_figures_without_explanations_are_the_explained_figures(gpu):
    compared = 0
    for workload in WORKLOADS:
        for gpus in (None, 1, 4):
            explained = size(workload, gpu=gpu, gpus=gpus)
            figures = size(workload, gpu=gpu, gpus=gpus, explain=False)
            assert figures.explanations == ()
            assert explained.explanations != ()
            assert dataclasses.replace(explained, explanations=()) == figures, workload
            compared += 1
    assert compared > 100


CATALOG_GPUS = [h100_sxm(), h100_nvl(), a100_pcie(), l40s(), rtx_4090()]


def test_the_builders_sizing_on_a_catalog_gpu_is_the_explained_one_less_its_words():
    for workload, gpu in itertools.product(WORKLOADS[::3], CATALOG_GPUS):
        explained = sizing_on_gpu(workload, gpu)
        figures = sizing_on_gpu(workload, gpu, explain=False)
        if explained is None:
            assert figures is None
            continue
        assert figures == dataclasses.replace(explained, explanations=())
        assert sized_on(workload, gpu, 2, explain=False) == dataclasses.replace(
            sized_on(workload, gpu, 2), explanations=()
        )
