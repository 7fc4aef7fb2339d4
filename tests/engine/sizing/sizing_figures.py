"""Figures the sizing tests work from by hand: the GPU they size on and models' exact sizes.

GB = 10^9 bytes. Parameter counts are the models' exact ones (model cards), not nominal.
"""

from engine.sizing import GpuProfile

GB = 1e9
# NVIDIA H100 SXM datasheet: 80 GB HBM3, 3.35 TB/s, BF16 1,979 and FP8 3,958 TFLOPS with
# sparsity, i.e. 989 and 1,979 dense.
H100 = GpuProfile("H100 SXM", 80, 3350, 989, 1979)

LLAMA2_7B = 6_738_415_616
LLAMA31_8B_WEIGHTS_BF16 = 8_030_261_248 * 2


def goodput_factor(gpus: int) -> float:
    """Wall time over compute time on ``gpus`` GPUs: Llama 3 (arXiv:2407.21783, section 3.3.4)
    lost about 10% to interruptions on 16,384 GPUs, a loss proportional to the GPU count."""
    return 1 + gpus * 0.10 / 16_384
