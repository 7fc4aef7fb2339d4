"""Images per second a configuration delivers when it serves a diffusion or vision model."""

from __future__ import annotations

import math

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

# A user asking for an image: beyond ~30 s the wait is flagged. Nielsen's 10 s limit for keeping
# a user's attention (language.SOURCE_RESPONSE_TIMES) is for answers people expect at once; an
# image is known to take a while, so three times that limit is taken as the point where users
# give up or the service must be run as a batch job (a product choice, not a measured figure).
LONG_WAIT_S = 30.0


def image_wait(users: int, parallel_images: int, seconds_per_image: float) -> float:
    """How long the last of ``users`` waits, each asking one image at the same time, when
    ``parallel_images`` images are made at once (one per GPU): ceil(users / parallel) rounds of
    ``seconds_per_image``. A simple batch model, not a queueing formula: requests arriving over
    time wait less."""
    return math.ceil(users / parallel_images) * seconds_per_image


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
    users = workload.inference_or_default.concurrent_requests
    wait = image_wait(users, total_gpus, seconds)
    long_wait = wait > LONG_WAIT_S
    lines.append(
        Message(
            gettext_noop(
                "With %(users)s users each asking one image at once, the last waits ~%(wait)s s "
                "(more than %(limit)s s: too long for people waiting at the screen)"
            )
            if long_wait
            else gettext_noop(
                "With %(users)s users each asking one image at once, the last waits ~%(wait)s s"
            ),
            {"users": users, "wait": shown(wait), "limit": round(LONG_WAIT_S)},
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
        users=users,
        wait_s=wait,
        long_wait=long_wait,
    )


# --- Training. -----------------------------------------------------------------------------------
