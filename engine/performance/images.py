"""Images per second a configuration delivers when it serves a diffusion or vision model."""

from __future__ import annotations

from ..advice.on_gpu import gpu_profile
from ..build.parts import GpuSpec
from ..i18n import Message, gettext_noop
from ..sizing import NON_TRANSFORMER_MFU, Explanation
from ..sizing.images import (
    DIFFUSION_GUIDANCE_PASSES,
    DIFFUSION_MFU,
    DIFFUSION_STEPS,
    SOURCE_DIFFUSION_MFU,
    SOURCE_DIFFUSION_STEPS,
    SOURCE_IMAGES_VISION,
    images_per_second,
)
from ..sizing.model import ModelFigures
from ..workload import Workload
from ..workload.registry import ModelKind
from .results import ImageSpeed, shown


def image_speed(
    workload: Workload,
    model: ModelFigures,
    gpu: GpuSpec,
    total_gpus: int,
    lines: list[Message],
    ex: list[Explanation],
) -> ImageSpeed | None:
    """Images/s of a diffusion or vision model: the sizing's own recipe
    (``engine.sizing.images``), one image at a time on each GPU."""
    if model.kind not in (ModelKind.DIFFUSION, ModelKind.VISION):
        return None
    per_second = images_per_second(workload, model, gpu_profile(gpu), total_gpus)
    if per_second is None or per_second <= 0:
        return None
    diffusion = model.kind is ModelKind.DIFFUSION
    steps = DIFFUSION_STEPS if diffusion else 1
    flops = (model.forward_flops_per_sample or 0.0) * (
        DIFFUSION_STEPS * DIFFUSION_GUIDANCE_PASSES if diffusion else 1
    )
    seconds = total_gpus / per_second
    if diffusion:
        lines.append(
            Message(
                gettext_noop(
                    "~%(ips)s images/s on %(gpus)s x %(gpu)s, %(seconds)s s per image on one "
                    "GPU (%(steps)s steps)"
                ),
                {
                    "ips": shown(per_second),
                    "gpus": total_gpus,
                    "gpu": gpu.name,
                    "seconds": shown(seconds),
                    "steps": steps,
                },
            )
        )
    else:
        lines.append(
            Message(
                gettext_noop("~%(ips)s images/s on %(gpus)s x %(gpu)s"),
                {"ips": shown(per_second), "gpus": total_gpus, "gpu": gpu.name},
            )
        )
    mfu = DIFFUSION_MFU if diffusion else NON_TRANSFORMER_MFU
    ex.append(
        Explanation(
            "performance.images",
            Message(
                gettext_noop(
                    "%(ips)s images/s: %(flops)s FLOPs per image at %(mfu)s%% of the GPU's peak, "
                    "one image at a time on each GPU (%(gpus)s in all)"
                ),
                {
                    "ips": shown(per_second),
                    "flops": float(f"{flops:.3g}"),
                    "mfu": round(mfu * 100),
                    "gpus": total_gpus,
                },
            ),
            f"{SOURCE_DIFFUSION_STEPS}; {SOURCE_DIFFUSION_MFU}"
            if diffusion
            else SOURCE_IMAGES_VISION,
        )
    )
    return ImageSpeed(
        images_per_second=per_second,
        seconds_per_image=seconds,
        steps=steps,
        flops_per_image=flops,
    )


# --- Training. -----------------------------------------------------------------------------------
