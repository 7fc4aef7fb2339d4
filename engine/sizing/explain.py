"""Explanations: the numbers in plain language with the source of the formula."""

from __future__ import annotations

from ..i18n import Message, Plural, gettext_noop
from ..workload import (
    MSG_CONTEXT_UNKNOWN,
    SOURCE_CONTEXT_LIMIT,
    TrainingMethod,
    Workload,
    context_limit,
)
from ..workload.registry import ModelKind
from .compute import TrainingCompute
from .constants import (
    MAX_GPUS,
    SOURCE_FLOPS,
    SOURCE_SHARDING,
    SOURCE_ZERO,
    USABLE_MEMORY_FRACTION,
)
from .formulas import lora_adapter_parameters
from .model import SOURCE_DERIVED_SHAPE, SOURCE_SCALED_SHAPE, ModelFigures
from .plan import MemoryPlan
from .results import Explanation, GpuProfile, MemoryBreakdown


def r(x: float, digits: int = 2) -> float:
    return round(x, digits)


def sig(x: float) -> float:
    """Three significant digits, still a number (the shell formats it for the locale)."""
    return float(f"{x:.3g}")


class Unexplained(list[Explanation]):
    """Where a sizing that nobody reads the explanations of writes them: nothing is kept and
    nothing is built (the builder sizes the job on every GPU model it considers)."""

    def append(self, _item: Explanation, /) -> None:
        return None


def explain_step(
    out: list[Explanation],
    key: str,
    template: str | Plural,
    source: str,
    counted_by: str = "",
    **params: object,
) -> None:
    """Add an explanation; a counted one (``ngettext_noop``) follows the parameter
    ``counted_by``."""
    if isinstance(out, Unexplained):
        return
    if isinstance(template, Plural):
        message = Message.counted(template, counted_by, **params)
    else:
        message = Message(template, params)
    out.append(Explanation(key, message, source))


def explain_model(ex: list[Explanation], workload: Workload, model: ModelFigures) -> None:
    if model.reference is not None and model.derived_parameters is not None:
        arch = model.arch
        explain_step(
            ex,
            "model",
            gettext_noop(
                "no architecture given: an encoder (no KV cache) of %(params)s parameters is "
                "assumed to have %(layers)s layers, hidden size %(hidden)s, %(heads)s attention "
                "heads, MLP width %(intermediate)s and a %(vocab)s-token vocabulary "
                "(%(derived)s parameters), fitted to the registry's encoders %(reference)s; "
                "give architecture for exact figures"
            )
            if model.kind is ModelKind.ENCODER
            else gettext_noop(
                "no architecture given: a decoder of %(params)s parameters is assumed to have "
                "%(layers)s layers, hidden size %(hidden)s, %(heads)s attention heads "
                "(%(kv_heads)s for keys and values), MLP width %(intermediate)s and a "
                "%(vocab)s-token vocabulary (%(derived)s parameters), fitted to the registry's "
                "decoders %(reference)s; give architecture for exact figures"
            ),
            SOURCE_DERIVED_SHAPE,
            params=int(model.parameters),
            layers=arch.layers,
            hidden=arch.hidden_size,
            heads=arch.attention_heads,
            kv_heads=arch.resolved_kv_heads,
            intermediate=arch.intermediate_size,
            vocab=arch.vocab_size,
            derived=int(model.derived_parameters),
            reference=model.reference,
        )
    elif model.reference is not None:
        explain_step(
            ex,
            "model",
            gettext_noop(
                "no registry model given: an image-generation (diffusion) model of %(params)s "
                "parameters is assumed to need the per-image activations and forward FLOPs of "
                "%(reference)s, scaled by %(scale)s with the parameters"
            )
            if model.kind is ModelKind.DIFFUSION
            else gettext_noop(
                "no registry model given: a vision model of %(params)s parameters is assumed "
                "to need the per-image activations and forward FLOPs of %(reference)s, scaled "
                "by %(scale)s with the parameters"
            ),
            SOURCE_SCALED_SHAPE,
            params=int(model.parameters),
            reference=model.reference,
            scale=sig(model.reference_scale or 1.0),
        )
    elif model.entry is not None:
        explain_step(
            ex,
            "model",
            gettext_noop("%(name)s: %(params)s parameters, %(active)s used per token")
            if model.active_parameters != model.parameters
            else gettext_noop("%(name)s: %(params)s parameters"),
            model.entry.sources[0],
            name=model.name,
            params=int(model.parameters),
            active=int(model.active_parameters),
        )
    _explain_unknown_context(ex, workload, model)


_TEXT_KINDS = frozenset({ModelKind.DECODER, ModelKind.ENCODER})


def _explain_unknown_context(
    ex: list[Explanation], workload: Workload, model: ModelFigures
) -> None:
    """A served custom text model that gives no maximum context: its context is accepted, and
    the answer says it was not checked (a registry model's is, by ``validate_workload``)."""
    if workload.is_training or model.kind not in _TEXT_KINDS:
        return
    if workload.model is not None or context_limit(workload) is not None:
        return
    explain_step(
        ex,
        "model.context",
        MSG_CONTEXT_UNKNOWN,
        SOURCE_CONTEXT_LIMIT,
        context=workload.inference_or_default.sequence_length,
    )


def explain_fit(
    ex: list[Explanation],
    workload: Workload,
    plan: MemoryPlan,
    per_gpu: MemoryBreakdown,
    gpu: GpuProfile,
    gpus: int,
    min_n: int | None,
    min_stage: int,
    fits: bool | None,
) -> None:
    usable_gb = USABLE_MEMORY_FRACTION * gpu.memory_gb
    explain_step(
        ex,
        "fits",
        gettext_noop(
            "%(need)s GB per GPU fits in %(usable)s GB usable (%(percent)s%% of %(mem)s GB)"
        )
        if fits
        else gettext_noop(
            "%(need)s GB per GPU does not fit in %(usable)s GB usable (%(percent)s%% of %(mem)s GB)"
        ),
        "vLLM engine arguments, gpu_memory_utilization default 0.9 (docs.vllm.ai)",
        need=r(per_gpu.total),
        usable=r(usable_gb),
        percent=int(USABLE_MEMORY_FRACTION * 100),
        mem=gpu.memory_gb,
    )
    if min_n is None:
        explain_step(
            ex,
            "min_gpus",
            gettext_noop("does not fit on %(max)s x %(gpu)s or fewer"),
            SOURCE_ZERO,
            max=MAX_GPUS,
            gpu=gpu.name,
        )
    elif plan.training and min_stage == 3 and plan.stage < 3 and min_n > 1:
        explain_step(
            ex,
            "min_gpus",
            gettext_noop(
                "at least %(n)s x %(gpu)s, assuming ZeRO-3 / FSDP (fully sharded): with the "
                "chosen sharding the model states do not fit on one GPU"
            ),
            SOURCE_SHARDING,
            n=min_n,
            gpu=gpu.name,
        )
    else:
        explain_step(
            ex,
            "min_gpus",
            gettext_noop("at least %(n)s x %(gpu)s (%(mem)s GB each)"),
            SOURCE_ZERO,
            n=min_n,
            gpu=gpu.name,
            mem=gpu.memory_gb,
        )


def explain_compute(
    ex: list[Explanation], workload: Workload, model: ModelFigures, compute: TrainingCompute | None
) -> None:
    if compute is None:
        explain_step(
            ex,
            "training_flops",
            gettext_noop(
                "compute not estimated: give training_tokens or the data size (and for "
                "image models, a registry model with a per-image FLOP count)"
            ),
            SOURCE_FLOPS,
        )
        return
    if compute.per_sample:
        explain_step(
            ex,
            "training_flops",
            gettext_noop(
                "%(flops)s FLOPs: %(samples)s samples x %(per_sample)s forward FLOPs, forward "
                "%(fwd)s + backward %(bwd)s"
            ),
            SOURCE_FLOPS,
            flops=sig(compute.total),
            samples=int(compute.tokens or 0),
            per_sample=sig(compute.forward / (compute.tokens or 1)),
            fwd=sig(compute.forward),
            bwd=sig(compute.backward),
        )
        return
    lora = workload.training_or_default.method is not TrainingMethod.FULL
    explain_step(
        ex,
        "training_flops",
        gettext_noop(
            "%(flops)s FLOPs for %(tokens)s tokens and %(params)s parameters used per token: "
            "forward %(fwd)s (2ND), backward %(bwd)s (input gradients 2ND; weight gradients "
            "only for the %(adapters)s adapter parameters)"
        )
        if lora
        else gettext_noop(
            "%(flops)s FLOPs = 6ND for %(tokens)s tokens and %(params)s parameters used per "
            "token: forward %(fwd)s (2ND), backward %(bwd)s (4ND)"
        ),
        SOURCE_FLOPS,
        flops=sig(compute.total),
        tokens=sig(compute.tokens or 0),
        params=int(model.active_parameters),
        fwd=sig(compute.forward),
        bwd=sig(compute.backward),
        adapters=int(
            lora_adapter_parameters(
                model.arch, workload.training_or_default.lora_rank, model.parameters
            )
        )
        if lora
        else 0,
    )
