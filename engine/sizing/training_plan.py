"""The training plan a training engineer reads: how the job runs on the GPUs it is sized for.

One function over a ``Sizing`` (on a GPU model) and its ``Workload``; every figure is one the
sizing already computed (micro-batch, accumulation, data-parallel GPUs, sharding, MFU, wall-clock
hours with interruptions), put together with the two it implies: the tokens per second the
cluster trains at and the margin to the deadline. The pages, the API and the PDFs show this one
object, so they never disagree.

Parallelism: the engine trains by data parallelism with the model states sharded by ZeRO/FSDP
(``SOURCE_SHARDING``); it plans no tensor or pipeline parallelism for training, so both degrees
are 1 and the plan says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..workload import Workload
from .compute import training_compute
from .constants import (
    HOURS_LOST_PER_INTERRUPTION,
    INTERRUPTIONS_PER_GPU_HOUR,
    SOURCE_GOODPUT,
    SOURCE_MFU,
)
from .model import resolve_workload
from .results import Sizing

# Below this share of the deadline left over, the plan is "tight": one bad week of failures or a
# slower-than-measured efficiency (the MFU sources spread by about 10 %) misses the date.
TIGHT_MARGIN = 0.10


@dataclass(frozen=True, slots=True)
class TrainingPlan:
    gpus: int
    global_batch: int
    micro_batch: int
    accumulation_steps: int
    data_parallel: int
    tensor_parallel: int
    pipeline_parallel: int
    sharding: str  # a ``Sharding`` value: "none", "zero1", "zero2", "zero3"
    mfu: float
    mfu_source: str
    goodput: float  # share of the wall-clock time that trains (interruptions take the rest)
    goodput_source: str
    hours: float | None  # wall clock, interruptions included; None without a token count
    units_per_second: float | None  # tokens (or samples, per-sample models) per second, cluster
    per_sample: bool  # ``units_per_second`` counts samples (images), not tokens
    deadline_hours: float | None
    margin: float | None  # deadline / hours - 1: 0.25 means a quarter of the deadline to spare

    @property
    def meets_deadline(self) -> bool | None:
        return None if self.margin is None else self.margin >= 0

    @property
    def tight(self) -> bool:
        return self.margin is not None and 0 <= self.margin < TIGHT_MARGIN


def training_plan(sizing: Sizing, workload: Workload) -> TrainingPlan | None:
    """The plan of ``sizing`` (a training sizing, on a GPU model for its time and speed), None at
    inference."""
    if not workload.is_training or sizing.micro_batch is None:
        return None
    t = workload.training_or_default
    hours = sizing.training_hours
    compute = training_compute(workload, resolve_workload(workload))
    units = None if compute is None else compute.tokens
    per_sample = compute is not None and compute.per_sample
    deadline = None if t.deadline_days is None else t.deadline_days * 24.0
    lost = sizing.gpus * INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION
    return TrainingPlan(
        gpus=sizing.gpus,
        global_batch=t.batch_size,
        micro_batch=sizing.micro_batch,
        accumulation_steps=sizing.accumulation_steps or 1,
        data_parallel=sizing.data_parallel or sizing.gpus,
        tensor_parallel=1,
        pipeline_parallel=1,
        sharding=sizing.sharding or "none",
        mfu=sizing.mfu,
        mfu_source=_source(sizing, "training_hours", SOURCE_MFU),
        goodput=1 / (1 + lost),
        goodput_source=SOURCE_GOODPUT,
        hours=hours,
        units_per_second=None if not hours or units is None else units / (hours * 3600),
        per_sample=per_sample,
        deadline_hours=deadline,
        margin=None if deadline is None or not hours else deadline / hours - 1,
    )


def _source(sizing: Sizing, key: str, default: str) -> str:
    """The source the sizing's explanation of ``key`` cites (the GPU model's own MFU source)."""
    return next((item.source for item in sizing.explanations if item.key == key), default)
