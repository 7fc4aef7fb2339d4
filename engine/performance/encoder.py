"""Embeddings per second a configuration delivers when it serves an encoder (BERT, embedders,
rerankers): one forward pass per request, no decode, no KV cache.

A request of ``s`` tokens costs a prompt's forward pass (``language.prefill_flops``: 2 x
parameters x s, plus the attention term), with the attention doubled since an encoder's tokens
see every other token (s^2 pairs), not only the earlier ones as in a causal prefill. Requests
batch into large matrix products, like a prefill: each GPU runs them at the GPU's training MFU
(``engine.assumptions.gpu_models``, the same share the time to first token uses), every GPU
serving its own copy (an encoder fits one GPU). The data set (``data.items``, each one request
of the asked sequence length) is indexed at that rate.
"""

from __future__ import annotations

import math

from ..advice.on_gpu import gpu_profile
from ..build.parts import GpuSpec
from ..i18n import Message, gettext_noop
from ..sizing import Explanation
from ..sizing.compute import peak_flops
from ..sizing.model import ModelFigures
from ..workload import Workload
from ..workload.registry import ModelKind
from .language import SOURCE_PREFILL, prefill_flops
from .results import EncoderSpeed, shown

SECONDS_PER_HOUR = 3600.0


def encoder_flops(model: ModelFigures, tokens: int) -> float:
    """FLOPs of one encoder request of ``tokens`` tokens: the weights' and the attention's, the
    causal count of ``prefill_flops`` doubled (bidirectional attention: every pair of tokens)."""
    linear, causal_attention = prefill_flops(model, tokens)
    return linear + 2.0 * causal_attention


def encoder_speed(
    workload: Workload,
    model: ModelFigures,
    gpu: GpuSpec,
    total_gpus: int,
    lines: list[Message],
    ex: list[Explanation],
) -> EncoderSpeed | None:
    """Embeddings/s of an encoder on ``total_gpus`` x ``gpu``; None for another kind of model."""
    if model.kind is not ModelKind.ENCODER:
        return None
    inf = workload.inference_or_default
    tokens = inf.sequence_length
    flops = encoder_flops(model, tokens)
    profile = gpu_profile(gpu)
    rate = peak_flops(profile, workload.precision) * profile.training_mfu  # FLOP/s per GPU
    if flops <= 0 or rate <= 0:
        return None
    seconds = flops / rate  # one request alone on one GPU
    per_second = total_gpus / seconds
    # The asked concurrency spreads over the GPUs; the last request of a GPU's share waits for
    # the ones batched with it.
    wait = math.ceil(inf.concurrent_requests / total_gpus) * seconds
    items = workload.data.items if workload.data is not None else None
    index_hours = items / per_second / SECONDS_PER_HOUR if items else None
    lines.append(
        Message(
            gettext_noop(
                "~%(eps)s embeddings/s of %(tokens)s tokens on %(gpus)s x %(gpu)s, %(ms)s ms "
                "per request alone, %(wait)s s for %(users)s requests at once"
            ),
            {
                "eps": shown(per_second),
                "tokens": tokens,
                "gpus": total_gpus,
                "gpu": gpu.name,
                "ms": shown(seconds * 1000),
                "wait": shown(wait),
                "users": inf.concurrent_requests,
            },
        )
    )
    if index_hours is not None:
        lines.append(
            Message(
                gettext_noop("Indexing the %(items)s items takes ~%(hours)s h"),
                {"items": items, "hours": shown(index_hours)},
            )
        )
    ex.append(
        Explanation(
            "performance.encoder",
            Message(
                gettext_noop(
                    "%(eps)s embeddings/s: %(flops)s FLOPs per request of %(tokens)s tokens (2 "
                    "x parameters x tokens, plus attention over every pair of tokens) at "
                    "%(mfu)s%% of the GPU's peak, on each of %(gpus)s GPUs"
                ),
                {
                    "eps": shown(per_second),
                    "flops": float(f"{flops:.3g}"),
                    "tokens": tokens,
                    "mfu": round(profile.training_mfu * 100),
                    "gpus": total_gpus,
                },
            ),
            f"{SOURCE_PREFILL}; MFU on this GPU: {profile.training_mfu_source}",
        )
    )
    return EncoderSpeed(
        embeddings_per_second=per_second,
        seconds_per_request=seconds,
        seconds_at_concurrency=wait,
        sequence_length=tokens,
        flops_per_request=flops,
        index_hours=index_hours,
    )
