"""How much GPU, memory, compute, storage and network a workload needs.

Pure arithmetic over ``Workload`` (see ``engine.workload``) and the model registry; every figure is
returned with an ``Explanation`` (the numbers, in plain language, and the source of the formula).

Units: memory and storage in GB = 10^9 bytes (not GiB), memory bandwidth in GB/s, throughput in
MB/s = 10^6 bytes/s, compute in FLOPs (and TFLOP/s = 10^12 FLOP/s for GPUs), network in Gb/s.

Conventions, each with its source next to the constant or function that applies it:

* Training ``batch_size`` is the global batch, reached by gradient accumulation: each
  data-parallel GPU holds one micro-batch (``Sizing.micro_batch``: the one asked for, else the
  largest power of two up to its share of the batch that fits the GPU given, 1 without one) and
  runs ``Sizing.accumulation_steps`` of them per optimizer step.
* ``Sizing.memory_gb`` is the whole job as if one device held one copy of the model states, one
  micro-batch's activations and every request's KV cache; ``memory_per_gpu_gb`` is what each GPU
  holds after ZeRO sharding (training) or tensor parallelism (inference of transformers).
  Non-transformer models (CNNs, diffusion UNets) are served by whole replicas instead.
* A custom model (``parameters_billions``) gets a shape derived from its size and
  ``model_kind`` (``derived_shape``): layers and hidden size fitted over the registry's models of
  that kind; diffusion and vision models scale the closest registry model's per-image figures.
* ``system_ram_gb`` and ``cpu_cores`` are per node (server); ``storage_gb`` and
  ``storage_read_mbs`` are for the whole job.
"""

from .constants import (
    BYTES_PER_TEXT_TOKEN,
    CPU_CORES_PER_GPU,
    CUDA_CONTEXT_GB,
    DATA_CORES_PER_GPU,
    DATA_RAM_GB_PER_GPU,
    DEFAULT_MFU,
    FABRIC,
    FP32_OPTIMIZER_BYTES,
    GB,
    GBPS_DATA_PARALLEL,
    GBPS_INFERENCE,
    GBPS_SHARDED_OR_PRETRAINING,
    INT4_CONSTANT_BITS,
    KEEP_CHECKPOINTS,
    KV_BYTES,
    LARGE_PROJECT_GPU_MEMORY_GB,
    LARGE_PROJECT_MEMORY_GB,
    LARGE_PROJECT_PARAMETERS,
    LORA_FALLBACK_FRACTION_AT_RANK_16,
    MAX_GPUS,
    MB,
    MIXED_PRECISION_OPTIMIZER_BYTES,
    MODEL_LOAD_SECONDS,
    NON_TRANSFORMER_MFU,
    PROCESS_RAM_GB_PER_GPU,
    READ_MBS_PER_GPU,
    RUNTIME_OVERHEAD_FRACTION,
    SOURCE_8BIT,
    SOURCE_ACTIVATIONS,
    SOURCE_DECODE,
    SOURCE_FABRIC,
    SOURCE_FLOPS,
    SOURCE_KV,
    SOURCE_LARGE,
    SOURCE_LORA,
    SOURCE_MFU,
    SOURCE_MFU_CNN,
    SOURCE_NON_TRANSFORMER,
    SOURCE_OVERHEAD,
    SOURCE_QUANT,
    SOURCE_READ,
    SOURCE_RECOMPUTE_CNN,
    SOURCE_TOKENS,
    SOURCE_ZERO,
    SYSTEM_BASE_RAM_GB,
    TYPICAL_ITEM_BYTES,
    USABLE_MEMORY_FRACTION,
    WEIGHT_BYTES,
)
from .core import size
from .fit import (
    interconnect_gbps_per_gpu,
    max_concurrent_requests,
    max_context_length,
    min_gpus,
)
from .formulas import (
    activation_bytes_per_layer,
    default_intermediate_size,
    kv_cache_bytes_per_token,
    lora_adapter_parameters,
    model_state_bytes_per_parameter,
    zero_model_state_bytes_per_gpu,
)
from .model import (
    DerivedShape,
    decoder_parameter_count,
    derived_shape,
    encoder_parameter_count,
)
from .results import Explanation, GpuProfile, Interconnect, MemoryBreakdown, Sizing

__all__ = [
    "BYTES_PER_TEXT_TOKEN",
    "CPU_CORES_PER_GPU",
    "CUDA_CONTEXT_GB",
    "DATA_CORES_PER_GPU",
    "DATA_RAM_GB_PER_GPU",
    "DEFAULT_MFU",
    "FABRIC",
    "FP32_OPTIMIZER_BYTES",
    "GB",
    "GBPS_DATA_PARALLEL",
    "GBPS_INFERENCE",
    "GBPS_SHARDED_OR_PRETRAINING",
    "INT4_CONSTANT_BITS",
    "KEEP_CHECKPOINTS",
    "KV_BYTES",
    "LARGE_PROJECT_GPU_MEMORY_GB",
    "LARGE_PROJECT_MEMORY_GB",
    "LARGE_PROJECT_PARAMETERS",
    "LORA_FALLBACK_FRACTION_AT_RANK_16",
    "MAX_GPUS",
    "MB",
    "MIXED_PRECISION_OPTIMIZER_BYTES",
    "MODEL_LOAD_SECONDS",
    "NON_TRANSFORMER_MFU",
    "PROCESS_RAM_GB_PER_GPU",
    "READ_MBS_PER_GPU",
    "RUNTIME_OVERHEAD_FRACTION",
    "SOURCE_8BIT",
    "SOURCE_ACTIVATIONS",
    "SOURCE_DECODE",
    "SOURCE_FABRIC",
    "SOURCE_FLOPS",
    "SOURCE_KV",
    "SOURCE_LARGE",
    "SOURCE_LORA",
    "SOURCE_MFU",
    "SOURCE_MFU_CNN",
    "SOURCE_NON_TRANSFORMER",
    "SOURCE_OVERHEAD",
    "SOURCE_QUANT",
    "SOURCE_READ",
    "SOURCE_RECOMPUTE_CNN",
    "SOURCE_TOKENS",
    "SOURCE_ZERO",
    "SYSTEM_BASE_RAM_GB",
    "TYPICAL_ITEM_BYTES",
    "USABLE_MEMORY_FRACTION",
    "WEIGHT_BYTES",
    "DerivedShape",
    "Explanation",
    "GpuProfile",
    "Interconnect",
    "MemoryBreakdown",
    "Sizing",
    "activation_bytes_per_layer",
    "decoder_parameter_count",
    "default_intermediate_size",
    "derived_shape",
    "encoder_parameter_count",
    "interconnect_gbps_per_gpu",
    "kv_cache_bytes_per_token",
    "lora_adapter_parameters",
    "max_concurrent_requests",
    "max_context_length",
    "min_gpus",
    "model_state_bytes_per_parameter",
    "size",
    "zero_model_state_bytes_per_gpu",
]
