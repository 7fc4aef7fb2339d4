"""How long a configuration trains the job, against the customer's deadline."""

from __future__ import annotations

from ..build.parts import GpuSpec
from ..i18n import Message, gettext_noop, ngettext_noop
from ..sizing import Explanation, Sizing
from ..workload import Workload
from .results import TrainingTime, shown


def training_time(
    workload: Workload,
    gpu: GpuSpec,
    sized: Sizing,
    lines: list[Message],
    ex: list[Explanation],
) -> TrainingTime | None:
    """``sized``: the job on the option's GPUs (``sized_on``)."""
    total_gpus = sized.gpus
    hours = sized.training_hours
    if hours is None:
        return None
    deadline = workload.training_or_default.deadline_days
    meets = None if deadline is None else hours <= deadline * 24
    took = duration(hours)
    if deadline is None:
        line = Message(
            gettext_noop("Training takes ~%(duration)s on %(gpus)s x %(gpu)s"),
            {"duration": took, "gpus": total_gpus, "gpu": gpu.name},
        )
    elif meets:
        line = Message(
            gettext_noop(
                "Training takes ~%(duration)s on %(gpus)s x %(gpu)s, within your %(days)s-day "
                "deadline"
            ),
            {"duration": took, "gpus": total_gpus, "gpu": gpu.name, "days": shown(deadline)},
        )
    else:
        line = Message(
            gettext_noop(
                "Training takes ~%(duration)s on %(gpus)s x %(gpu)s: it misses your "
                "%(days)s-day deadline by %(late)s"
            ),
            {
                "duration": took,
                "gpus": total_gpus,
                "gpu": gpu.name,
                "days": shown(deadline),
                "late": duration(hours - deadline * 24),
            },
        )
    lines.append(line)
    # The sizing's own account of the hours (FLOPs, recomputation, MFU, peak), with its source.
    how = next(e for e in sized.explanations if e.key == "training_hours")
    ex.append(Explanation("performance.training", how.message, how.source))
    return TrainingTime(hours=hours, deadline_days=deadline, meets_deadline=meets)


def duration(hours: float) -> Message:
    if hours < 48:
        return Message.counted(ngettext_noop("%(n)s hour", "%(n)s hours"), "n", n=shown(hours))
    return Message.counted(ngettext_noop("%(n)s day", "%(n)s days"), "n", n=shown(hours / 24))
