"""The training plan: the figures a training engineer checks, from the one sizing.

Figures: 1.24B parameters (Llama 3.2 1B model card), 6 x N FLOPs per trained token (Kaplan et
al. 2020), interruptions from the Llama 3 paper (arXiv:2407.21783, section 3.3.4).
"""

from __future__ import annotations

import pytest

from engine.sizing import size
from engine.sizing.constants import HOURS_LOST_PER_INTERRUPTION, INTERRUPTIONS_PER_GPU_HOUR
from engine.sizing.training_plan import TIGHT_MARGIN, training_plan
from engine.workload import Inference, Task, Training, Workload

from .sizing_figures import H100

TOKENS = 100 * 10**9


def _pretraining(*, batch: int = 512, deadline_days: float | None = 30) -> Workload:
    return Workload(
        task=Task.PRETRAINING,
        model="llama-3.2-1b",
        training=Training(
            batch_size=batch,
            sequence_length=2048,
            training_tokens=TOKENS,
            deadline_days=deadline_days,
        ),
    )


def test_the_plan_puts_the_sizings_figures_together():
    workload = _pretraining()
    sizing = size(workload, gpu=H100, gpus=4)

    plan = training_plan(sizing, workload)

    assert plan is not None
    assert (plan.gpus, plan.global_batch) == (4, 512)
    assert (plan.micro_batch, plan.accumulation_steps) == (
        sizing.micro_batch,
        sizing.accumulation_steps,
    )
    # the global batch is micro-batch x accumulation steps x data-parallel GPUs (at least)
    assert plan.micro_batch * plan.accumulation_steps * plan.data_parallel >= 512
    assert (plan.tensor_parallel, plan.pipeline_parallel) == (1, 1)
    assert plan.mfu == sizing.mfu
    assert plan.mfu_source == next(
        e.source for e in sizing.explanations if e.key == "training_hours"
    )
    assert sizing.training_hours is not None
    assert plan.hours == sizing.training_hours
    # the cluster's training speed: every token over the wall-clock hours
    assert plan.units_per_second == pytest.approx(TOKENS / (sizing.training_hours * 3600))
    assert not plan.per_sample
    lost = 4 * INTERRUPTIONS_PER_GPU_HOUR * HOURS_LOST_PER_INTERRUPTION
    assert plan.goodput == pytest.approx(1 / (1 + lost))
    assert plan.goodput < 1


@pytest.mark.parametrize(("deadline_days", "meets"), [(30, True), (1, False)])
def test_the_plan_says_whether_the_deadline_holds_and_by_how_much(deadline_days, meets):
    workload = _pretraining(deadline_days=deadline_days)
    sizing = size(workload, gpu=H100, gpus=4)

    plan = training_plan(sizing, workload)

    assert plan is not None
    assert sizing.training_hours is not None
    assert plan.deadline_hours == deadline_days * 24
    assert plan.margin == pytest.approx(deadline_days * 24 / sizing.training_hours - 1)
    assert plan.meets_deadline is meets


def test_a_plan_finishing_with_little_to_spare_is_tight():
    workload = _pretraining(deadline_days=None)
    hours = size(workload, gpu=H100, gpus=4).training_hours
    assert hours is not None
    tight = _pretraining(deadline_days=hours * (1 + TIGHT_MARGIN / 2) / 24)
    roomy = _pretraining(deadline_days=hours * (1 + 2 * TIGHT_MARGIN) / 24)

    tight_plan = training_plan(size(tight, gpu=H100, gpus=4), tight)
    roomy_plan = training_plan(size(roomy, gpu=H100, gpus=4), roomy)

    assert tight_plan is not None
    assert roomy_plan is not None
    assert (tight_plan.meets_deadline, tight_plan.tight) == (True, True)
    assert (roomy_plan.meets_deadline, roomy_plan.tight) == (True, False)


def test_inference_has_no_plan_and_a_sizing_without_a_gpu_no_time():
    serving = Workload(task=Task.INFERENCE, model="llama-3.2-1b", inference=Inference())
    training = _pretraining()

    assert training_plan(size(serving, gpu=H100), serving) is None
    plan = training_plan(size(training), training)
    assert plan is not None
    assert (plan.hours, plan.units_per_second, plan.margin, plan.meets_deadline) == (
        None,
        None,
        None,
        None,
    )
