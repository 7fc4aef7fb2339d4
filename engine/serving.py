"""What a configuration delivers: per-user decode speed and time to first token when it serves a
language model, images per second for image models, training time against the deadline, and
the software stack of its GPUs.

``performance_for`` answers for one GPU model, a tensor-parallel degree (GPUs per model copy),
a number of copies and a GPU count; ``option_performance`` reads these from a built option and
``options_performance`` does so for every tier.
Pure: figures in, figures and untranslated messages (with their sources) out.

Serving a language model (Pope et al. 2022; Kipply's transformer inference arithmetic):

* the users are shared evenly by the copies (replicas); each copy batches its users, so every
  decode step yields one token for each of them;
* a decode step reads, on each GPU of a copy, its share of the weights and of its users' KV
  cache: step time = bytes per GPU / (memory bandwidth x ``DECODE_BANDWIDTH_EFFICIENCY``), or
  the step's compute (2 x active parameters x users / (tensor-parallel GPUs x peak x MFU)) when
  that is longer; a user sees one token per step;
* the KV cache is counted at the full context (prompt + answer): the speed at the end of the
  longest answer, the slowest a user sees;
* the time to first token is the prompt's prefill, compute-bound: 2 x active parameters x
  prompt tokens / (tensor-parallel GPUs x peak x ``PREFILL_MFU``). Waiting behind other prompts
  (queueing) and the network are not counted;
* the workload gives one context length (prompt + answer); the prompt is taken as
  ``PROMPT_SHARE`` of it;
* tensor parallelism over NVLink/Infinity Fabric is assumed to cost nothing extra.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from .advice import gpu_profile, sized_on
from .builder import Option, Tier
from .i18n import Message, gettext_noop, ngettext_noop
from .model_registry import ModelKind
from .monitoring import MonitoringPlan, monitoring_plan
from .parts import GpuSpec
from .sizing import (
    DEFAULT_MFU,
    NON_TRANSFORMER_MFU,
    SOURCE_DECODE,
    SOURCE_MFU,
    Explanation,
    Sizing,
    size,
)
from .sizing.compute import _peak_flops, parameters_read_per_step
from .sizing.images import (
    DIFFUSION_GUIDANCE_PASSES,
    DIFFUSION_MFU,
    DIFFUSION_STEPS,
    SOURCE_DIFFUSION_MFU,
    SOURCE_DIFFUSION_STEPS,
    SOURCE_IMAGES_VISION,
    images_per_second,
)
from .sizing.model import _Model, _resolve_workload
from .sizing.plan import _plan
from .software import SoftwareStack, StackPurpose, software_stack
from .workload import Workload, validate_workload

GB = 1e9

# --- Assumptions, each with its source. ----------------------------------------------------------

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
SOURCE_DECODE_STEP = (
    SOURCE_DECODE + "; https://kipp.ly/transformer-inference-arithmetic/ (a decode step reads "
    "the weights and the KV cache; its FLOPs are 2 x parameters per token)"
)

# Prefill is one forward pass over the prompt, 2 FLOPs per active parameter per token (Kaplan et
# al. 2020, section 2.1: the attention term 2 x layers x context x d_model is small while the
# context is short of 12 x d_model, 49k tokens for an 8B model). It runs large matrix products
# like training: the training MFU is taken for it (Llama 3: 38-43% on H100).
PREFILL_MFU = DEFAULT_MFU
SOURCE_PREFILL = (
    "Kaplan et al. 2020, arXiv:2001.08361, section 2.1 (forward pass: 2N FLOPs per token); "
    "MFU: " + SOURCE_MFU + "; queueing behind other prompts not counted"
)

# The workload states one context length, prompt + answer. Stated assumption: the prompt is three
# quarters of it (chat history, instructions and retrieved documents make prompts longer than
# answers; TrueFoundry's Llama-2-70B RAG benchmark uses 1,500 prompt and 100 answer tokens).
PROMPT_SHARE = 0.75
SOURCE_PROMPT = (
    "GPUQuote assumption: prompt = 3/4 of the context, answer = 1/4 "
    "(e.g. https://truefoundry.ghost.io/benchmarking-llama-2-70b: RAG with 1,500 prompt and 100 "
    "answer tokens)"
)

# Readable verdicts. Silent reading of English non-fiction: 238 words a minute (Brysbaert 2019,
# Journal of Memory and Language 109, 104047, doi:10.1016/j.jml.2019.104047); a token is about
# 3/4 of a word (OpenAI, "What are tokens and how to count them"): 238 / 60 / 0.75 = 5.3
# tokens/s. At 10 tokens/s, about twice that, text stays ahead of any reader, with room for
# tokenizers that need more tokens per word.
READING_TOKENS_PER_SECOND = 238 / 60 / 0.75
FLUENT_TOKENS_PER_SECOND = 10.0
SOURCE_READING = (
    "Brysbaert 2019, doi:10.1016/j.jml.2019.104047 (238 words/min); "
    "https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them "
    "(1 token ~ 3/4 word)"
)
# Response times (Nielsen 1993): within 1 s the user's flow of thought stays uninterrupted;
# 10 s is the limit for keeping the user's attention on the dialogue.
FIRST_TOKEN_GOOD_SECONDS = 1.0
FIRST_TOKEN_LIMIT_SECONDS = 10.0
SOURCE_RESPONSE_TIMES = "https://www.nngroup.com/articles/response-times-3-important-limits/"


class Verdict(StrEnum):
    GOOD = "good"
    FAIR = "fair"
    POOR = "poor"


@dataclass(frozen=True, slots=True)
class ServingSpeed:
    """A language model served by ``replicas`` copies of ``gpus_per_replica`` GPUs each; tokens
    per second each user sees and in all, and the time to the first token, in seconds."""

    gpus_per_replica: int
    replicas: int
    users: int
    users_per_replica: int
    prompt_tokens: int
    answer_tokens: int
    tokens_per_second_per_user: float
    tokens_per_second: float
    time_to_first_token_s: float
    memory_bound: bool  # the step is limited by memory bandwidth (else by compute)
    speed: Verdict
    first_token: Verdict


@dataclass(frozen=True, slots=True)
class ImageSpeed:
    """Images per second over all the GPUs, one image at a time per GPU; ``steps`` is 1 for a
    model that is not a diffusion model."""

    images_per_second: float
    seconds_per_image: float
    steps: int
    flops_per_image: float


@dataclass(frozen=True, slots=True)
class TrainingTime:
    hours: float
    deadline_days: float | None
    meets_deadline: bool | None  # None: no deadline given


@dataclass(frozen=True, slots=True)
class Performance:
    """What ``gpus`` x ``gpu_name`` deliver for the workload. ``lines`` are the short answers
    in the order to show them; ``explanations`` the figures with their formulas and sources."""

    gpu_name: str
    gpus: int
    serving: ServingSpeed | None
    images: ImageSpeed | None
    training: TrainingTime | None
    software: SoftwareStack | None
    lines: tuple[Message, ...]
    explanations: tuple[Explanation, ...]
    # What to watch on the option's servers run by the customer, and (``host_watches``) what
    # the host watches for them in managed hosting; None for a GPU vendor without data and in
    # results stored before the plan (issue 18).
    monitoring: MonitoringPlan | None = None


# --- Entry points. -------------------------------------------------------------------------------


def performance_for(
    workload: Workload,
    gpu: GpuSpec,
    *,
    gpus_per_replica: int,
    replicas: int,
    total_gpus: int,
) -> Performance:
    """The workload on ``total_gpus`` x ``gpu``: served by ``replicas`` model copies of
    ``gpus_per_replica`` GPUs each (tensor parallel), or trained on all ``total_gpus``."""
    for name, value in (
        ("gpus_per_replica", gpus_per_replica),
        ("replicas", replicas),
        ("total_gpus", total_gpus),
    ):
        if value < 1:
            raise ValueError(f"{name} must be at least 1")
    validate_workload(workload)
    model = _resolve_workload(workload)
    lines: list[Message] = []
    ex: list[Explanation] = []
    serving = images = training = None
    purpose = StackPurpose.SERVING
    if workload.is_training:
        sized = sized_on(workload, gpu, total_gpus)
        training = _training(workload, gpu, sized, lines, ex)
        # A model the sizing splits over the GPUs needs a sharding framework.
        sharded = total_gpus > 1 and sized.model_sharded
        purpose = StackPurpose.TRAINING_SHARDED if sharded else StackPurpose.TRAINING
    elif model.kind in (ModelKind.DIFFUSION, ModelKind.VISION):
        images = _images(workload, model, gpu, total_gpus, lines, ex)
    elif model.autoregressive and model.arch.is_transformer:
        serving = _serving(workload, model, gpu, gpus_per_replica, replicas, lines, ex)
        purpose = StackPurpose.SERVING_LLM
    software = software_stack(
        gpu.vendor,
        architecture=gpu.architecture,
        purpose=purpose,
        precision=str(workload.precision),
    )
    if software is not None:
        lines.append(software.statement)
        ex.append(
            Explanation("performance.software", software.statement, "; ".join(software.sources))
        )
    return Performance(
        gpu_name=gpu.name,
        gpus=total_gpus,
        serving=serving,
        images=images,
        training=training,
        software=software,
        lines=tuple(lines),
        explanations=tuple(ex),
    )


def replica_gpus(workload: Workload, gpu: GpuSpec, total_gpus: int) -> int:
    """GPUs per model copy for serving on ``gpu``: the sizing's copy size (a valid
    tensor-parallel degree, or a pipeline over servers), at most ``total_gpus``."""
    if workload.is_training:
        return total_gpus
    replica = size(workload, gpu=gpu_profile(gpu)).replica_gpus
    return max(1, min(replica, total_gpus))


def option_performance(
    workload: Workload, option: Option, gpus: Sequence[GpuSpec]
) -> Performance | None:
    """The performance of a built option, its GPU found by SKU in ``gpus`` (the catalog's);
    None when the option has no GPU line or the catalog no longer lists it. One copy of the
    model takes ``replica_gpus`` GPUs; the option's other GPUs hold more copies."""
    line = next((part for part in option.parts if part.kind == "gpu"), None)
    if line is None:
        return None
    gpu = next((spec for spec in gpus if spec.sku == line.sku), None)
    if gpu is None:
        return None
    total = line.quantity * option.servers
    per_replica = replica_gpus(workload, gpu, total)
    found = performance_for(
        workload,
        gpu,
        gpus_per_replica=per_replica,
        replicas=max(1, total // per_replica),
        total_gpus=total,
    )
    return dataclasses.replace(found, monitoring=_monitoring(gpu, line.quantity, option.servers))


def _monitoring(gpu: GpuSpec, per_server: int, servers: int) -> MonitoringPlan | None:
    """The customer's own monitoring plan, with what the host would watch for them."""
    return _monitoring_of(
        gpu.vendor,
        gpu.name,
        Decimal(str(gpu.memory_gb)),
        gpu.tdp_w,
        per_server,
        servers,
        gpu.nvlink_gbs is not None,
    )


# A plan is immutable and follows from these few figures; options on the same GPUs and server
# count (most of the catalog's answers) share it instead of writing it again (~80 µs).
@functools.lru_cache(maxsize=512)
def _monitoring_of(
    vendor: str,
    gpu_name: str,
    memory_gb: Decimal,
    tdp_w: int,
    per_server: int,
    servers: int,
    linked: bool,
) -> MonitoringPlan | None:
    own, hosted = (
        monitoring_plan(
            vendor=vendor,
            gpu_name=gpu_name,
            memory_gb=memory_gb,
            tdp_w=tdp_w,
            gpus_per_server=per_server,
            servers=servers,
            linked=linked,
            managed=managed,
        )
        for managed in (False, True)
    )
    if own is None or hosted is None:
        return None
    return dataclasses.replace(own, host_watches=hosted.host_watches)


def options_performance(
    workload: Workload, options: Sequence[Option], gpus: Sequence[GpuSpec]
) -> Mapping[Tier, Performance]:
    """``option_performance`` of each option, by tier (options whose GPU is unknown left out)."""
    found = {option.tier: option_performance(workload, option, gpus) for option in options}
    return MappingProxyType({tier: perf for tier, perf in found.items() if perf is not None})


# --- Serving a language model. -------------------------------------------------------------------


def _serving(
    workload: Workload,
    model: _Model,
    gpu: GpuSpec,
    tp: int,
    replicas: int,
    lines: list[Message],
    ex: list[Explanation],
) -> ServingSpeed:
    inf = workload.inference_or_default
    plan = _plan(workload, model)  # weights and the KV cache of every user at the full context
    users = inf.concurrent_requests
    per_replica = math.ceil(users / replicas)
    kv_per_user = plan.kv_cache / users
    bytes_per_weight = plan.weights / model.parameters
    weights_read = parameters_read_per_step(model, per_replica) * bytes_per_weight
    step_bytes_per_gpu = (weights_read + kv_per_user * per_replica) / tp
    bandwidth = gpu.memory_bandwidth_gbs * GB * DECODE_BANDWIDTH_EFFICIENCY
    memory_s = step_bytes_per_gpu / bandwidth
    peak = _peak_flops(gpu_profile(gpu), workload.precision)
    compute_s = 2.0 * model.active_parameters * per_replica / (tp * peak * PREFILL_MFU)
    step_s = max(memory_s, compute_s)
    per_user = 1.0 / step_s
    total = per_user * users

    prompt = round(inf.sequence_length * PROMPT_SHARE)
    answer = inf.sequence_length - prompt
    ttft = 2.0 * model.active_parameters * prompt / (tp * peak * PREFILL_MFU)

    speed = _speed_verdict(per_user)
    first = _first_token_verdict(ttft)
    lines.append(
        Message(
            gettext_noop("~%(per_user)s tokens/s for one user, first token in %(ttft)s s"),
            {"per_user": _shown(per_user), "ttft": _shown(ttft)},
        )
        if users == 1
        else Message(
            gettext_noop(
                "~%(per_user)s tokens/s for each of %(users)s users at once (%(total)s tokens/s "
                "in all), first token in %(ttft)s s"
            ),
            {
                "per_user": _shown(per_user),
                "users": users,
                "total": _shown(total),
                "ttft": _shown(ttft),
            },
        )
    )
    lines.append(_SPEED_WORDS[speed])
    lines.append(_FIRST_TOKEN_WORDS[first])
    ex.append(
        Explanation(
            "performance.decode",
            Message(
                gettext_noop(
                    "%(per_user)s tokens/s per user: model copies: %(replicas)s, GPUs per copy "
                    "(tensor parallel): %(tp)s, users per copy: %(per_replica)s; each step reads "
                    "%(gb)s GB per GPU (its share of the weights and of the KV cache at "
                    "%(context)s tokens) at %(efficiency)s%% of %(bandwidth)s GB/s, and yields one "
                    "token per user"
                )
                if memory_s >= compute_s
                else gettext_noop(
                    "%(per_user)s tokens/s per user: model copies: %(replicas)s, GPUs per copy "
                    "(tensor parallel): %(tp)s, users per copy: %(per_replica)s; each step "
                    "computes 2 FLOPs per active parameter for each user, which takes longer than "
                    "reading %(gb)s GB per GPU at %(efficiency)s%% of %(bandwidth)s GB/s"
                ),
                {
                    "per_user": _shown(per_user),
                    "replicas": replicas,
                    "tp": tp,
                    "per_replica": per_replica,
                    "gb": round(step_bytes_per_gpu / GB, 2),
                    "context": inf.sequence_length,
                    "efficiency": round(DECODE_BANDWIDTH_EFFICIENCY * 100),
                    "bandwidth": gpu.memory_bandwidth_gbs,
                },
            ),
            f"{SOURCE_DECODE_STEP}; {SOURCE_BANDWIDTH}; {SOURCE_READING}",
        )
    )
    ex.append(
        Explanation(
            "performance.first_token",
            Message.counted(
                ngettext_noop(
                    "first token in %(ttft)s s: a %(prompt)s-token prompt (%(share)s%% of the "
                    "%(context)s-token context, an assumption) takes 2 FLOPs per active "
                    "parameter per token on the %(tp)s GPU of one copy at %(mfu)s%% of "
                    "%(tflops)s TFLOP/s; waiting behind other prompts is not counted",
                    "first token in %(ttft)s s: a %(prompt)s-token prompt (%(share)s%% of the "
                    "%(context)s-token context, an assumption) takes 2 FLOPs per active "
                    "parameter per token on the %(tp)s GPUs of one copy at %(mfu)s%% of "
                    "%(tflops)s TFLOP/s each; waiting behind other prompts is not counted",
                ),
                "tp",
                ttft=_shown(ttft),
                prompt=prompt,
                share=round(PROMPT_SHARE * 100),
                context=inf.sequence_length,
                tp=tp,
                mfu=round(PREFILL_MFU * 100),
                tflops=round(peak / 1e12, 1),
            ),
            f"{SOURCE_PREFILL}; {SOURCE_PROMPT}; {SOURCE_RESPONSE_TIMES}",
        )
    )
    return ServingSpeed(
        gpus_per_replica=tp,
        replicas=replicas,
        users=users,
        users_per_replica=per_replica,
        prompt_tokens=prompt,
        answer_tokens=answer,
        tokens_per_second_per_user=per_user,
        tokens_per_second=total,
        time_to_first_token_s=ttft,
        memory_bound=memory_s >= compute_s,
        speed=speed,
        first_token=first,
    )


def _speed_verdict(tokens_per_second: float) -> Verdict:
    if tokens_per_second >= FLUENT_TOKENS_PER_SECOND:
        return Verdict.GOOD
    if tokens_per_second >= READING_TOKENS_PER_SECOND:
        return Verdict.FAIR
    return Verdict.POOR


def _first_token_verdict(seconds: float) -> Verdict:
    if seconds <= FIRST_TOKEN_GOOD_SECONDS:
        return Verdict.GOOD
    if seconds <= FIRST_TOKEN_LIMIT_SECONDS:
        return Verdict.FAIR
    return Verdict.POOR


_SPEED_WORDS = MappingProxyType(
    {
        Verdict.GOOD: Message(
            gettext_noop("Reads fluently: text appears faster than people read (10 tokens/s+)")
        ),
        Verdict.FAIR: Message(
            gettext_noop("About as fast as people read (5 to 10 tokens/s): usable, not snappy")
        ),
        Verdict.POOR: Message(
            gettext_noop("Slower than people read (under 5 tokens/s): add GPUs or fewer users")
        ),
    }
)
_FIRST_TOKEN_WORDS = MappingProxyType(
    {
        Verdict.GOOD: Message(gettext_noop("Answers start within a second")),
        Verdict.FAIR: Message(gettext_noop("A noticeable wait before answers start (1 to 10 s)")),
        Verdict.POOR: Message(
            gettext_noop("Answers take over 10 s to start: too slow for a conversation")
        ),
    }
)


# --- Images. -------------------------------------------------------------------------------------


def _images(
    workload: Workload,
    model: _Model,
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
                    "ips": _shown(per_second),
                    "gpus": total_gpus,
                    "gpu": gpu.name,
                    "seconds": _shown(seconds),
                    "steps": steps,
                },
            )
        )
    else:
        lines.append(
            Message(
                gettext_noop("~%(ips)s images/s on %(gpus)s x %(gpu)s"),
                {"ips": _shown(per_second), "gpus": total_gpus, "gpu": gpu.name},
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
                    "ips": _shown(per_second),
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


def _training(
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
    duration = _duration(hours)
    if deadline is None:
        line = Message(
            gettext_noop("Training takes ~%(duration)s on %(gpus)s x %(gpu)s"),
            {"duration": duration, "gpus": total_gpus, "gpu": gpu.name},
        )
    elif meets:
        line = Message(
            gettext_noop(
                "Training takes ~%(duration)s on %(gpus)s x %(gpu)s, within your %(days)s-day "
                "deadline"
            ),
            {"duration": duration, "gpus": total_gpus, "gpu": gpu.name, "days": _shown(deadline)},
        )
    else:
        line = Message(
            gettext_noop(
                "Training takes ~%(duration)s on %(gpus)s x %(gpu)s: it misses your "
                "%(days)s-day deadline by %(late)s"
            ),
            {
                "duration": duration,
                "gpus": total_gpus,
                "gpu": gpu.name,
                "days": _shown(deadline),
                "late": _duration(hours - deadline * 24),
            },
        )
    lines.append(line)
    # The sizing's own account of the hours (FLOPs, recomputation, MFU, peak), with its source.
    how = next(e for e in sized.explanations if e.key == "training_hours")
    ex.append(Explanation("performance.training", how.message, how.source))
    return TrainingTime(hours=hours, deadline_days=deadline, meets_deadline=meets)


def _duration(hours: float) -> Message:
    if hours < 48:
        return Message.counted(ngettext_noop("%(n)s hour", "%(n)s hours"), "n", n=_shown(hours))
    return Message.counted(ngettext_noop("%(n)s day", "%(n)s days"), "n", n=_shown(hours / 24))


def _shown(x: float) -> float | int:
    """A figure as people read it: whole numbers from 10 up (and whenever whole), one decimal
    from 1, else two significant digits. Still a number: the shell formats it for the locale."""
    if x >= 10:
        return round(x)
    shown = round(x, 1) if x >= 1 else float(f"{x:.2g}")
    return int(shown) if shown.is_integer() else shown
