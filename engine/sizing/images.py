"""Images per second when serving a diffusion or vision model: compute-bound, per image.

The same recipe as ``engine.performance`` (configurations' performance): SDXL's UNet FLOPs
from the registry, diffusers' default steps and guidance, and the utilisation each kind reaches.
"""

from __future__ import annotations

from ..i18n import gettext_noop
from ..workload import Workload
from ..workload.registry import ModelKind
from .compute import peak_flops
from .constants import NON_TRANSFORMER_MFU
from .explain import explain_step, r, sig
from .model import ModelFigures
from .results import Explanation, GpuProfile

# Denoiser evaluations per generated image: the diffusers Stable Diffusion XL pipeline runs 50
# denoising steps by default (num_inference_steps=50) with classifier-free guidance on
# (guidance_scale=5.0 > 1), which evaluates the UNet on a conditional and an unconditional
# input at every step: 100 evaluations. The VAE decode, once per image, is left out.
DIFFUSION_STEPS = 50
DIFFUSION_GUIDANCE_PASSES = 2
SOURCE_DIFFUSION_STEPS = (
    "Hugging Face diffusers, StableDiffusionXLPipeline.__call__: num_inference_steps=50, "
    "guidance_scale=5.0 (classifier-free guidance: two UNet evaluations per step) "
    "(huggingface.co/docs/diffusers, seen 2026-12-03)"
)
# Out of the box, SDXL makes a 1024 x 1024 image in 8-10 s on an A100: 100 x 6.76e12 FLOPs in
# about 9 s is 24% of the A100's 312 dense BF16 TFLOP/s.
DIFFUSION_MFU = 0.25
SOURCE_DIFFUSION_MFU = (
    "https://www.baseten.co/blog/sdxl-inference-in-under-2-seconds-the-ultimate-guide-to-"
    "stable-diffusion-optimiza/ (SDXL: 8-10 s per 1024 x 1024 image on an A100 out of the box), "
    "seen 2026-12-03"
)
SOURCE_IMAGES_VISION = (
    "Forward FLOPs per image of the registry model at the convolutional-model utilisation "
    "(NVIDIA DeepLearningExamples ResNet-50 v1.5: about 19% of peak on an A100)"
)


def diffusion_throughput(
    ex: list[Explanation],
    workload: Workload,
    model: ModelFigures,
    gpu: GpuProfile | None,
    gpus: int,
) -> float | None:
    """Images per second that ``gpus`` x ``gpu`` produce (diffusion) or classify (vision) when
    serving, compute-bound: the forward FLOPs of one image (for diffusion every denoising
    evaluation) over the GPUs' useful FLOP/s (``DIFFUSION_MFU`` or ``NON_TRANSFORMER_MFU`` of
    the peak). ``None`` for training, for text models, without a GPU or without a FLOP count
    for the model."""
    if (
        workload.is_training
        or model.kind not in (ModelKind.DIFFUSION, ModelKind.VISION)
        or gpu is None
        or not model.forward_flops_per_sample
    ):
        return None
    diffusion = model.kind is ModelKind.DIFFUSION
    passes = DIFFUSION_STEPS * DIFFUSION_GUIDANCE_PASSES if diffusion else 1
    mfu = DIFFUSION_MFU if diffusion else NON_TRANSFORMER_MFU
    flops_per_image = model.forward_flops_per_sample * passes
    peak = peak_flops(gpu, workload.precision)
    images = peak * mfu * gpus / flops_per_image
    if diffusion:
        explain_step(
            ex,
            "images_per_second",
            gettext_noop(
                "%(images)s images/s on %(gpus)s x %(gpu)s: each image takes %(steps)s "
                "denoising steps x %(passes)s evaluations (classifier-free guidance) x "
                "%(flops)s FLOPs, at %(mfu)s%% of %(tflops)s TFLOP/s per GPU"
            ),
            f"{SOURCE_DIFFUSION_STEPS}; {SOURCE_DIFFUSION_MFU}",
            images=sig(images),
            gpus=gpus,
            gpu=gpu.name,
            steps=DIFFUSION_STEPS,
            passes=DIFFUSION_GUIDANCE_PASSES,
            flops=sig(model.forward_flops_per_sample),
            mfu=r(mfu * 100, 1),
            tflops=r(peak / 1e12, 1),
        )
    else:
        explain_step(
            ex,
            "images_per_second",
            gettext_noop(
                "%(images)s images/s on %(gpus)s x %(gpu)s: %(flops)s FLOPs per image at "
                "%(mfu)s%% of %(tflops)s TFLOP/s per GPU"
            ),
            SOURCE_IMAGES_VISION,
            images=sig(images),
            gpus=gpus,
            gpu=gpu.name,
            flops=sig(model.forward_flops_per_sample),
            mfu=r(mfu * 100, 1),
            tflops=r(peak / 1e12, 1),
        )
    return images


def images_per_second(
    workload: Workload, model: ModelFigures, gpu: GpuProfile, gpus: int
) -> float | None:
    """``diffusion_throughput`` without its explanation (for the options' performance)."""
    return diffusion_throughput([], workload, model, gpu, gpus)
