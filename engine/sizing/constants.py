"""Sizing's rules and assumptions, each in one named place with its source.

Units: memory and storage in GB = 10^9 bytes, throughput in MB/s = 10^6 bytes/s, network in Gb/s.
"""

from __future__ import annotations

from types import MappingProxyType

from ..workload import DataKind, Optimizer, Precision

GB = 1e9
MB = 1e6

# --- Rules and assumptions (each in one named place, with its source). ---------------------------

# Fraction of a GPU's memory a job may plan to fill; the rest absorbs fragmentation and spikes.
# Same default as vLLM's ``gpu_memory_utilization`` (0.9), docs.vllm.ai engine arguments.
USABLE_MEMORY_FRACTION = 0.9
MAX_GPUS = 4096  # min_gpus gives up (returns None) beyond this many GPUs

# Model-FLOPs utilisation for training time. Llama 3 (arXiv:2407.21783, Table 4) reports 38-43%
# BF16 MFU on up to 16K H100; PaLM (arXiv:2204.02311, Table 3) 46.2%. MFU counts model FLOPs
# only, not recomputation (PaLM appendix B).
DEFAULT_MFU = 0.40
SOURCE_MFU = "Llama 3 Herd of Models, arXiv:2407.21783, Table 4 (38-43% BF16 MFU); PaLM app. B"
# MLPerf Training (MLCommons), closed division, Llama-2-70B LoRA: fine-tune to a target
# evaluation loss on GovReport, LoRA rank 16 on the attention weights, 8,192-token samples, global
# batch 8, FP8 on every GPU submitted. Each submission's logs give its time to train (mean of the
# 10 runs less the fastest and the slowest) and the samples it took (``samples_count`` at
# ``run_stop``); the per-GPU training efficiencies in ``engine.assumptions.gpu_models`` are derived
# from them.
SOURCE_MLPERF_TRAINING_V41 = "https://github.com/mlcommons/training_results_v4.1"
SOURCE_MLPERF_TRAINING_V50 = "https://github.com/mlcommons/training_results_v5.0"
MLPERF_LORA_TOKENS_PER_SAMPLE = 8192
# Goodput: a long run loses time to failures. Llama 3 (arXiv:2407.21783, section 3.3.4) counts
# 419 unexpected interruptions in a 54-day snapshot on up to 16,384 H100s and more than 90%
# effective training time. Per GPU-hour: 419 / (16,384 x 54 x 24) interruptions; if they cost
# the 10% lost, each costs 0.10 x 54 x 24 / 419 = 0.31 hours (restart, reload the last
# checkpoint, redo the work since it). Wall time = compute time x (1 + GPUs x rate x cost): the
# loss grows with the cluster and its hours with the run.
# (Together: 0.1 / 16,384 of the compute time lost per GPU in the cluster.)
INTERRUPTIONS_PER_GPU_HOUR = 419 / (16_384 * 54 * 24)
HOURS_LOST_PER_INTERRUPTION = 0.10 * 54 * 24 / 419
SOURCE_GOODPUT = (
    "Llama 3 Herd of Models, arXiv:2407.21783, section 3.3.4: 419 unexpected interruptions in "
    "54 days on 16,384 H100s, over 90% effective training time"
)
# Share of the peak memory bandwidth a decode step achieves ("model bandwidth utilisation",
# Databricks/MosaicML, "LLM Inference Performance Engineering: Best Practices", 2023). Derived
# from NVIDIA's NeMo Framework inference figures: Llama-2-7B (13.5 GB in 16 bits), batch 1, one
# H100 80GB HBM3 (3,350 GB/s): 153.8 ms for 128 prompt + 20 answer tokens; less about 3.5 ms of
# prefill, 7.5 ms per token = 1,800 GB/s = 54% of the peak. Rounded to 55%.
DECODE_BANDWIDTH_EFFICIENCY = 0.55
SOURCE_BANDWIDTH = (
    "https://www.databricks.com/blog/llm-inference-performance-engineering-best-practices "
    "(MBU); https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html "
    "(Llama-2-7B, batch 1, H100: 153.8 ms for 128 + 20 tokens, about 55% of the bandwidth); "
    "seen 2026-12-03"
)
# Convolutional and diffusion models reach far less: NVIDIA DeepLearningExamples ResNet-50 v1.5
# trains 2,470 img/s on one A100 (mixed precision) x 3 x 8.18 GFLOPs = 60.6 TFLOP/s, 19% of the
# A100's 312 TFLOP/s. Used for models without a transformer architecture.
NON_TRANSFORMER_MFU = 0.20
SOURCE_MFU_CNN = (
    "NVIDIA DeepLearningExamples ResNet-50 v1.5 PyTorch: 2,470 img/s on one A100 80GB, mixed "
    "precision (about 19% of peak)"
)

# Runtime overhead per GPU: CUDA context, cuBLAS/cuDNN/NCCL workspaces and framework buffers.
# Engineering rule (PyTorch's CUDA context alone is several hundred MB; vLLM profiles the rest):
# a fixed 1 GB per GPU plus 10% of everything else on that GPU.
CUDA_CONTEXT_GB = 1.0
RUNTIME_OVERHEAD_FRACTION = 0.10
SOURCE_OVERHEAD = (
    "Stated rule: 1 GB CUDA context and libraries per GPU + 10% framework workspace "
    "(common practice; vLLM reserves memory the same way, docs.vllm.ai)"
)

# Bytes per weight by precision. int4 adds the block-wise quantisation constants of NF4 with
# double quantisation: 0.127 bits per parameter (QLoRA, Dettmers et al. 2023, section 3), close
# to GPTQ/AWQ group-128 fp16 scales (16/128 = 0.125 bits). int8 per-row scales are negligible.
INT4_CONSTANT_BITS = 0.127
WEIGHT_BYTES: MappingProxyType[Precision, float] = MappingProxyType(
    {
        Precision.FP32: 4.0,
        Precision.BF16: 2.0,
        Precision.FP16: 2.0,
        Precision.FP8: 1.0,
        Precision.INT8: 1.0,
        Precision.INT4: (4 + INT4_CONSTANT_BITS) / 8,
    }
)
# KV cache entries carry no per-block constants worth counting.
KV_BYTES: MappingProxyType[Precision, float] = MappingProxyType(
    {**WEIGHT_BYTES, Precision.INT4: 0.5}
)
SOURCE_QUANT = "Dettmers et al. 2023, QLoRA, arXiv:2305.14314, section 3 (NF4, double quantization)"

# Optimizer-state bytes per trained parameter. Mixed precision (bf16/fp16/fp8 weights): 2 bytes
# weights + 2 bytes gradients + K bytes of optimizer states that include the fp32 master copy.
# Adam: K = 12 (fp32 master 4 + momentum 4 + variance 4), ZeRO paper (Rajbhandari et al. 2020,
# arXiv:1910.02054, section 3.1). 8-bit Adam: 2 bytes of states (Dettmers et al. 2021,
# arXiv:2110.02861) + the 4-byte fp32 master = 6. SGD with momentum: 4 + 4 master = 8.
# Pure fp32 training keeps no extra master copy: 4 + 4 + (Adam 8, 8-bit Adam 2, SGD 4).
# FP8 training (Transformer Engine) keeps the same 16-bit weights and fp32 states: same bytes.
MIXED_PRECISION_OPTIMIZER_BYTES = MappingProxyType(
    {Optimizer.ADAMW: 12.0, Optimizer.ADAMW_8BIT: 6.0, Optimizer.SGD: 8.0}
)
FP32_OPTIMIZER_BYTES = MappingProxyType(
    {Optimizer.ADAMW: 8.0, Optimizer.ADAMW_8BIT: 2.0, Optimizer.SGD: 4.0}
)
SOURCE_ZERO = "Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, section 3.1 and Figure 1 (K=12)"
SOURCE_8BIT = "Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization, arXiv:2110.02861"

SOURCE_ACTIVATIONS = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
    "arXiv:2205.05198, sections 4-5 (eq. 1; full recomputation keeps 2sbh per layer)"
)
# The global batch is an optimisation setting reached by gradient accumulation: each
# data-parallel GPU runs micro-batches of ``micro_batch`` samples and sums their gradients over
# ``accumulation_steps`` before one optimizer step, so memory holds one micro-batch's activations
# (Korthikanti et al. size activations per micro-batch; Megatron-LM's global and micro batch
# sizes; DeepSpeed's train_batch_size = micro batch x accumulation steps x GPUs). The compute per
# token does not change, so neither does the training time in this model.
SOURCE_MICRO_BATCH = (
    "DeepSpeed configuration, train_batch_size = train_micro_batch_size_per_gpu x "
    "gradient_accumulation_steps x GPUs (deepspeed.ai/docs/config-json); Shoeybi et al. 2019, "
    "Megatron-LM, arXiv:1909.08053 (global and micro batch sizes); Korthikanti et al. 2022, "
    "arXiv:2205.05198, section 4 (activations per micro-batch)"
)
# When the chosen sharding leaves the model states too large for the GPUs, ZeRO-3 (FSDP)
# partitions weights, gradients and optimizer states over the data-parallel GPUs, 16 bytes per
# parameter in mixed-precision Adam divided by their number (ZeRO, section 5.1 and Figure 1).
SOURCE_SHARDING = (
    "Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, sections 5.1-5.2 and Figure 1 (Pos+g+p: "
    "16 bytes per parameter / data-parallel degree); PyTorch FSDP, Zhao et al. 2023, "
    "arXiv:2304.11277 (FULL_SHARD)"
)
SOURCE_KV = (
    "KV cache = 2 x layers x kv_heads x head_dim x bytes per token; grouped-query attention: "
    "Ainslie et al. 2023, arXiv:2305.13245; sliding window: Jiang et al. 2023, arXiv:2310.06825"
)
# Multi-head latent attention (DeepSeek-V2/V3/R1) caches one latent and one RoPE key per layer,
# shared by all heads. The engine shares the requests' latents over the GPUs like any KV cache, as
# data-parallel attention does (MLA's cache cannot be split by heads under tensor parallelism).
SOURCE_KV_LATENT = (
    "KV cache = (kv_lora_rank + qk_rope_head_dim) x layers x bytes per token: DeepSeek-AI 2024, "
    "DeepSeek-V2, arXiv:2405.04434, section 2.1 and Table 1"
)
# The KV cache's number format when the request names none: the model's 16-bit activation type,
# whatever the weights' format. vLLM's --kv-cache-dtype "auto" keeps the model's data type (16-bit
# for AWQ/GPTQ INT4/INT8 and FP8 checkpoints); it quantises the KV cache to FP8 only when asked.
SOURCE_KV_PRECISION = (
    "vLLM engine arguments, --kv-cache-dtype (auto: the model's data type; fp8 only when asked), "
    "docs.vllm.ai; AWQ/GPTQ checkpoints keep 16-bit activations"
)
SOURCE_LORA = "Hu et al. 2021, LoRA, arXiv:2106.09685 (r x (d + k) parameters per adapted d x k)"
SOURCE_FLOPS = (
    "Kaplan et al. 2020, arXiv:2001.08361, section 2.1: 6N FLOPs per token, forward 2N, "
    "backward 4N (input and weight gradients); LoRA skips frozen weight gradients (Hu et al. 2021)"
)
SOURCE_DECODE = (
    "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102: each decode "
    "step reads all (active) weights and the KV cache from memory"
)
SOURCE_NON_TRANSFORMER = "Per-sample estimate documented in the model registry entry (notes)"
SOURCE_RECOMPUTE_CNN = (
    "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost, arXiv:1604.06174 "
    "(checkpointing every sqrt(n) layers keeps about 2/sqrt(n) of the activations)"
)

# LoRA adapters when the architecture is unknown (non-transformer): 1% of the base parameters
# at rank 16, scaled with the rank. Stated assumption: typical LoRA files are 0.1-1% of the base.
LORA_FALLBACK_FRACTION_AT_RANK_16 = 0.01

# Checkpoints: full = weights + optimizer states (fp32 master included); LoRA = adapters + their
# optimizer states. Stated assumption: keep the last 3 (e.g. Hugging Face ``save_total_limit``).
KEEP_CHECKPOINTS = 3

# Text data: about 4 bytes of English text per token (OpenAI tokenizer guide: 1 token ~ 4
# characters). Used to turn ``data.total_gb`` of text into tokens.
BYTES_PER_TEXT_TOKEN = 4.0
SOURCE_TOKENS = "OpenAI tokenizer guide: one token is about 4 characters of English text"

# Stated assumptions per data kind.
TYPICAL_ITEM_BYTES = MappingProxyType(
    {
        DataKind.TEXT: 4_000,  # a page of text
        DataKind.DOCUMENTS: 1_000_000,  # a PDF/office file with some images
        DataKind.IMAGES: 110_000,  # ImageNet-1k train: ~138 GB / 1,281,167 JPEGs ~ 108 kB
        DataKind.AUDIO: 1_000_000,  # a minute of compressed audio
        DataKind.VIDEO: 50_000_000,  # a short clip
    }
)
# Sustained read per GPU to keep it fed. Images: NVIDIA DeepLearningExamples ResNet-50 v1.5
# trains 2,470 img/s on one A100 80GB (mixed precision) x ~108 kB per ImageNet JPEG = 270 MB/s.
# Text: an 8B model at 40% MFU on an H100 eats ~8k tokens/s = 33 kB/s; 5 MB/s leaves room for
# shuffled reads. Others are stated assumptions.
READ_MBS_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 5.0,
        DataKind.DOCUMENTS: 50.0,
        DataKind.IMAGES: 270.0,
        DataKind.AUDIO: 30.0,
        DataKind.VIDEO: 500.0,
    }
)
SOURCE_READ = (
    "Stated per-kind assumption; images from NVIDIA DeepLearningExamples ResNet-50 v1.5 "
    "(2,470 img/s per A100) x ImageNet's ~108 kB average JPEG"
)
# Cold start: load the served weights from local storage within a minute (stated assumption).
MODEL_LOAD_SECONDS = 60.0

# CPU cores per GPU: 4 for the training/serving process (launcher, NCCL, tokenisation) plus
# data-loading workers by kind (JPEG/video decode and augmentation are CPU-heavy). Stated.
CPU_CORES_PER_GPU = 4
DATA_CORES_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 0,
        DataKind.DOCUMENTS: 2,
        DataKind.IMAGES: 6,
        DataKind.AUDIO: 2,
        DataKind.VIDEO: 8,
    }
)
# System RAM per node (data side; the builder separately applies RAM >= 2 x VRAM): OS and
# services, 4 GB per GPU process (pinned buffers), data-loader buffers by kind, plus one copy of
# the weights in 16-bit for loading and checkpointing. Stated assumptions.
SYSTEM_BASE_RAM_GB = 16.0
PROCESS_RAM_GB_PER_GPU = 4.0
DATA_RAM_GB_PER_GPU = MappingProxyType(
    {
        DataKind.TEXT: 2.0,
        DataKind.DOCUMENTS: 4.0,
        DataKind.IMAGES: 8.0,
        DataKind.AUDIO: 4.0,
        DataKind.VIDEO: 16.0,
    }
)

# Interconnect between nodes. NVIDIA's HGX/DGX H100 reference architectures give each GPU its
# own 400 Gb/s NIC on the compute fabric ("2-8-9-400"); Llama 3 trained on 400 Gb/s RoCE and
# InfiniBand. DGX A100 gives each GPU a 200 Gb/s HDR port. Rule: sharded models (ZeRO-3/FSDP)
# and pretraining need 400 Gb/s per GPU; data-parallel fine-tuning and multi-node inference
# (pipeline-parallel between nodes) 200 Gb/s per GPU.
FABRIC = "infiniband_or_roce"
GBPS_SHARDED_OR_PRETRAINING = 400
GBPS_DATA_PARALLEL = 200
GBPS_INFERENCE = 200
SOURCE_FABRIC = (
    "NVIDIA HGX AI Factory reference architecture (2-8-9-400: 400 Gb/s per GPU), "
    "docs.nvidia.com/enterprise-reference-architectures; DGX A100: 8 x 200 Gb/s HDR per node; "
    "Llama 3, arXiv:2407.21783, section 3.3.1 (400 Gb/s RoCE/InfiniBand)"
)

# Seed rule "24 GB+ per GPU for larger projects": a project is large when the whole job needs
# more than 16 GB (more than a 16 GB card can hold at the usable fraction) or the model has 7B+
# parameters.
LARGE_PROJECT_MEMORY_GB = 16.0
LARGE_PROJECT_PARAMETERS = 7e9
LARGE_PROJECT_GPU_MEMORY_GB = 24
SOURCE_LARGE = "GPUQuote seed rule: 24 GB+ per GPU for larger projects"

# Tensor parallelism splits every layer's attention heads between GPUs and all-reduces after
# each layer, so it stays inside one server's GPU fabric, at a power of two that divides the
# attention heads (and the KV heads, or is a multiple of them: the KV heads are then copied);
# replicas larger than one server add pipeline stages across servers instead.
TENSOR_PARALLEL_MAX = 8
SOURCE_PARALLELISM = (
    "vLLM documentation, Distributed inference and serving (docs.vllm.ai, seen 2026-12-03): "
    "tensor parallel size = GPUs per node, pipeline parallel size = nodes; the number of "
    "attention heads must be divisible by the tensor parallel size"
)
