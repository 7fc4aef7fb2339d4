"""Serving a language model: per-user decode speed and time to first token (Pope et al. 2022;
Kipply's transformer inference arithmetic):

* the users are shared evenly by the copies (replicas); each copy batches its users, so every
  decode step yields one token for each of them;
* a decode step reads, on each GPU of a copy, its share of the weights and of its users' KV
  cache: step time = bytes per GPU / (memory bandwidth x ``DECODE_BANDWIDTH_EFFICIENCY``), or
  the step's compute (2 x active parameters x users / (tensor-parallel GPUs x peak x MFU)) when
  that is longer; a user sees one token per step;
* the KV cache is counted at the full context (prompt + answer): the speed at the end of the
  longest answer, the slowest a user sees;
* the time to first token is the prompt's prefill, compute-bound: (2 x active parameters x
  prompt tokens + causal attention, 2 x layers x prompt tokens^2 x heads x head size) /
  (tensor-parallel GPUs x peak x ``PREFILL_MFU``); see ``prefill_flops``. Waiting behind other
  prompts (queueing) and the network are not counted;
* the workload gives one context length (prompt + answer); the prompt is taken as
  ``PROMPT_SHARE`` of it;
* tensor parallelism over NVLink/Infinity Fabric is assumed to cost nothing extra;
* a copy that spans servers runs as a pipeline, one stage of its layers per server (see
  ``PIPELINE_SOURCE``): a user's token, and a prompt, pass through the stages one after the
  other, so each step takes the stages' times added up.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ..advice.on_gpu import gpu_profile
from ..assumptions.gpu_models import decode_bandwidth
from ..build.parts import GpuSpec
from ..i18n import Message, figure, gettext_noop, ngettext_noop
from ..sizing import DEFAULT_MFU, SOURCE_DECODE, SOURCE_MFU, Explanation
from ..sizing.compute import parameters_read_per_step, peak_flops
from ..sizing.explain import sig
from ..sizing.model import ModelFigures
from ..sizing.plan import memory_plan
from ..workload import Architecture, Workload
from .results import GB, ServingSpeed, Verdict, shown

# --- Assumptions, each with its source. ----------------------------------------------------------

SOURCE_DECODE_STEP = (
    SOURCE_DECODE + "; https://kipp.ly/transformer-inference-arithmetic/ (a decode step reads "
    "the weights and the KV cache; its FLOPs are 2 x parameters per token)"
)

# Prefill is one forward pass over the prompt. Its FLOPs are two terms:
# * the weights: 2 FLOPs per active parameter per token (Kaplan et al. 2020, arXiv:2001.08361,
#   section 2.1 and Table 1: C_forward = 2N + 2 n_layer n_ctx d_attn per token);
# * causal attention, which grows with the square of the prompt: Q K^T and the scores times V
#   each take 2 x d_attn FLOPs per (query, key) pair, d_attn = attention heads x head size (the
#   query heads: grouped-query attention shares K and V, not this work). Causal masking keeps
#   the pairs with key <= query, half of s^2, and FlashAttention-2 skips the masked blocks: its
#   count is 4 x s^2 x heads x head size / 2 per layer forward (Dao 2023, arXiv:2307.08691,
#   section 4.1; benchmarks/benchmark_flash_attention.py in github.com/Dao-AILab/flash-attention),
#   2 x layers x s^2 x d_attn in all, the same as Kaplan's 2 n_layer n_ctx d_attn per token summed
#   over the s tokens. With a sliding window w < s each query sees at most w keys: s w - w^2 / 2
#   pairs. The attention term stays under 1% of the weights' below s = N / (100 x layers x
#   d_attn), about 600 tokens for an 8B model, and equals it at s = N / (layers x d_attn), 61k.
# Prefill runs large matrix products like training: the training MFU is taken for both terms
# (Llama 3: 38-43% on H100; FlashAttention-2 reaches 50-73% of A100 peak, its abstract).
PREFILL_MFU = DEFAULT_MFU
SOURCE_PREFILL = (
    "Kaplan et al. 2020, arXiv:2001.08361, section 2.1 and Table 1 (forward pass: 2N + "
    "2 n_layer n_ctx d_attn FLOPs per token); Dao 2023, FlashAttention-2, arXiv:2307.08691, "
    "section 4.1 (causal attention forward: 4 s^2 d_attn / 2 FLOPs per layer); MFU: "
    + SOURCE_MFU
    + "; queueing behind other prompts not counted"
)

# A copy spread over servers is a pipeline: tensor parallel inside each server, one stage of
# the layers per server (vLLM's layout for a model that does not fit one server). A decode step
# of one user is a single micro-batch: it crosses the stages one after the other while the
# others wait, the pipeline "bubble" of Narayanan et al. 2021 (section 2.2.1: (p - 1) / m of
# the time idle with p stages and m micro-batches; m = 1 here). Batching more users into
# micro-batches keeps the stages busy for throughput, not for a user's own speed. Each stage
# reads its share of the weights and KV cache on its own GPUs, so a step takes the sum of the
# stages' times, ``stages`` x one stage's; the activations passed between stages (hidden size
# x users x 2 bytes, under a megabyte) are left out.
PIPELINE_SOURCE = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using "
    "Megatron-LM, arXiv:2104.04473, section 2.2.1 (pipeline bubble); "
    "https://docs.vllm.ai/en/v0.8.3/serving/distributed_serving.html (tensor parallel inside a "
    "server, pipeline parallel across servers)"
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


def language_speed(
    workload: Workload,
    model: ModelFigures,
    gpu: GpuSpec,
    tp: int,
    replicas: int,
    lines: list[Message],
    ex: list[Explanation],
    stages: int = 1,
) -> ServingSpeed:
    """``tp`` GPUs per copy; ``stages``: the servers one copy spans (``PIPELINE_SOURCE``)."""
    inf = workload.inference_or_default
    plan = memory_plan(
        workload, model
    )  # weights and the KV cache of every user at the full context
    users = inf.concurrent_requests
    per_replica = math.ceil(users / replicas)
    kv_per_user = plan.kv_cache / users
    bytes_per_weight = plan.weights / model.parameters
    weights_read = parameters_read_per_step(model, per_replica) * bytes_per_weight
    step_bytes_per_gpu = (weights_read + kv_per_user * per_replica) / tp
    decode = decode_bandwidth(gpu.name)  # the GPU model's own share, with its source
    bandwidth = gpu.memory_bandwidth_gbs * GB * decode.value
    memory_s = step_bytes_per_gpu / bandwidth
    profile = gpu_profile(gpu)
    peak = peak_flops(profile, workload.precision)
    prefill_mfu = profile.training_mfu  # prefill runs large matrix products, like training
    compute_s = 2.0 * model.active_parameters * per_replica / (tp * peak * prefill_mfu)
    # Each stage reads and computes on its own GPUs; the stages take turns (``PIPELINE_SOURCE``).
    step_s = max(memory_s, compute_s) * stages
    per_user = 1.0 / step_s
    total = per_user * users

    prompt = round(inf.sequence_length * PROMPT_SHARE)
    answer = inf.sequence_length - prompt
    linear_flops, attention_flops = prefill_flops(model, prompt)
    ttft = (linear_flops + attention_flops) / (tp * peak * prefill_mfu) * stages

    speed = _speed_verdict(per_user)
    first = _first_token_verdict(ttft)
    lines.append(
        Message(
            gettext_noop("~%(per_user)s tokens/s for one user, first token in %(ttft)s s"),
            {"per_user": shown(per_user), "ttft": shown(ttft)},
        )
        if users == 1
        else Message(
            gettext_noop(
                "~%(per_user)s tokens/s for each of %(users)s users at once (%(total)s tokens/s "
                "in all), first token in %(ttft)s s"
            ),
            {
                "per_user": shown(per_user),
                "users": users,
                "total": shown(total),
                "ttft": shown(ttft),
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
                    "per_user": shown(per_user),
                    "replicas": replicas,
                    "tp": tp,
                    "per_replica": per_replica,
                    "gb": round(step_bytes_per_gpu / GB, 2),
                    "context": inf.sequence_length,
                    "efficiency": round(decode.value * 100),
                    "bandwidth": gpu.memory_bandwidth_gbs,
                },
            ),
            f"{SOURCE_DECODE_STEP}; {decode.source}; {SOURCE_READING}",
        )
    )
    ex.append(
        Explanation(
            "performance.first_token",
            Message.counted(
                ngettext_noop(
                    "first token in %(ttft)s s: a %(prompt)s-token prompt (%(share)s%% of the "
                    "%(context)s-token context, an assumption) takes 2 FLOPs per active "
                    "parameter per token (%(linear)s TFLOP) plus causal attention over "
                    "%(layers)s layers %(d_attn)s wide (%(attention)s TFLOP, growing with the "
                    "square of the prompt) on the %(tp)s GPU of one copy at %(mfu)s%% of "
                    "%(tflops)s TFLOP/s; waiting behind other prompts is not counted",
                    "first token in %(ttft)s s: a %(prompt)s-token prompt (%(share)s%% of the "
                    "%(context)s-token context, an assumption) takes 2 FLOPs per active "
                    "parameter per token (%(linear)s TFLOP) plus causal attention over "
                    "%(layers)s layers %(d_attn)s wide (%(attention)s TFLOP, growing with the "
                    "square of the prompt) on the %(tp)s GPUs of one copy at %(mfu)s%% of "
                    "%(tflops)s TFLOP/s each; waiting behind other prompts is not counted",
                ),
                "tp",
                ttft=shown(ttft),
                prompt=prompt,
                share=round(PROMPT_SHARE * 100),
                context=inf.sequence_length,
                linear=figure(sig(linear_flops / 1e12)),
                layers=model.arch.layers,
                d_attn=attention_width(model.arch),
                attention=figure(sig(attention_flops / 1e12)),
                tp=tp,
                mfu=round(prefill_mfu * 100),
                tflops=round(peak / 1e12, 1),
            )
            if attention_flops
            else Message.counted(
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
                ttft=shown(ttft),
                prompt=prompt,
                share=round(PROMPT_SHARE * 100),
                context=inf.sequence_length,
                tp=tp,
                mfu=round(prefill_mfu * 100),
                tflops=round(peak / 1e12, 1),
            ),
            f"{SOURCE_PREFILL}; {SOURCE_PROMPT}; {SOURCE_RESPONSE_TIMES}",
        )
    )
    if stages > 1:
        ex.append(
            Explanation(
                "performance.pipeline",
                Message(
                    gettext_noop(
                        "each copy spans %(stages)s servers, one pipeline stage of %(per_stage)s "
                        "GPUs each: a token, and a prompt, pass through the stages one after the "
                        "other, so each step takes %(stages)s times as long as one stage's work; "
                        "included in the figures above"
                    ),
                    {"stages": stages, "per_stage": max(1, tp // stages)},
                ),
                PIPELINE_SOURCE,
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
        pipeline_stages=stages,
    )


def attention_width(arch: Architecture) -> int:
    """d_attn: the query heads times the head size (0 when the shape is not known)."""
    return (arch.attention_heads or 0) * (arch.resolved_head_dim or 0)


def prefill_flops(model: ModelFigures, prompt: int) -> tuple[float, float]:
    """The FLOPs of one prompt's forward pass: (weights, causal attention). See
    ``PREFILL_MFU``'s comment for the count and its sources."""
    linear = 2.0 * model.active_parameters * prompt
    arch = model.arch
    if not arch.is_transformer:
        return linear, 0.0
    window = arch.sliding_window
    if window is not None and window < prompt:
        pairs = prompt * window - window * window / 2.0
    else:
        pairs = prompt * prompt / 2.0
    return linear, 4.0 * (arch.layers or 0) * attention_width(arch) * pairs


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
