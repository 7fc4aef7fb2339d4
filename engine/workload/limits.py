"""Allowed ranges (the one place, reused by the API serializers and the wizard forms) and the
validation messages (English templates; the shell translates them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..i18n import gettext_noop

# --- Allowed ranges: the one place, reused by the API serializers and the wizard forms. -------

LIMITS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "parameters_billions": (0.001, 10_000),  # 1 million to 10 trillion parameters
        "architecture.layers": (1, 1_000),
        "architecture.hidden_size": (1, 131_072),
        "architecture.attention_heads": (1, 1_024),
        "architecture.kv_heads": (1, 1_024),
        "architecture.head_dim": (1, 1_024),
        "architecture.vocab_size": (1, 10_000_000),
        "architecture.sliding_window": (1, 10_000_000),
        "architecture.experts": (1, 1_024),
        "architecture.experts_per_token": (1, 1_024),
        "architecture.intermediate_size": (1, 1_048_576),
        "architecture.context_length": (1, 10_000_000),
        "architecture.kv_lora_rank": (1, 65_536),
        "architecture.qk_rope_head_dim": (1, 1_024),
        "training.lora_rank": (1, 4_096),
        "training.batch_size": (1, 65_536),
        "training.micro_batch_size": (1, 65_536),
        "training.sequence_length": (1, 10_000_000),
        "training.gpus": (1, 65_536),
        "training.training_tokens": (1, 1e15),
        "training.epochs": (0.01, 1_000),
        "training.deadline_days": (0.01, 3_650),
        "inference.concurrent_requests": (1, 100_000),
        "inference.sequence_length": (1, 10_000_000),
        "inference.target_tokens_per_second": (0.01, 1e9),
        "data.items": (1, 1e13),
        "data.total_gb": (0.001, 1e8),  # 1 MB to 100 PB
    }
)


# --- Messages (English templates; the shell translates them). --------------------------------

MSG_RANGE = gettext_noop("must be between %(min)s and %(max)s")
MSG_REQUIRED = gettext_noop("is required")
MSG_UNKNOWN_FIELD = gettext_noop("is not a known field")
MSG_INTEGER = gettext_noop("must be a whole number")
MSG_NUMBER = gettext_noop("must be a number")
MSG_BOOLEAN = gettext_noop("must be true or false")
MSG_OBJECT = gettext_noop("must be an object")
MSG_STRING = gettext_noop("must be a text value")
MSG_CHOICE = gettext_noop("must be one of: %(choices)s")
MSG_UNKNOWN_MODEL = gettext_noop(
    "unknown model %(model)s; valid ids are listed by GET /api/models/ (currently: %(ids)s)"
)
MSG_MODEL_OR_PARAMETERS = gettext_noop("give either model or parameters_billions")
MSG_NOT_BOTH = gettext_noop("give model or parameters_billions, not both")
MSG_ARCH_NEEDS = gettext_noop(
    "an architecture for parameters_billions needs layers, hidden_size and attention_heads"
)
MSG_KV_HEADS = gettext_noop("must divide attention_heads (%(heads)s) evenly")
MSG_EXPERTS_PER_TOKEN = gettext_noop("must be at most experts (%(experts)s)")
MSG_EXPERTS_NEED_K = gettext_noop("is required when experts is more than 1")
# Multi-head latent attention caches (kv_lora_rank + qk_rope_head_dim) elements per token and
# layer (DeepSeek-V2, arXiv:2405.04434, section 2.1); with only one of the two the engine cannot
# size the cache, and refuses rather than guess.
MSG_LATENT_NEEDS_BOTH = gettext_noop(
    "the engine cannot model latent attention (MLA) with %(given)s alone: its KV cache is "
    "(kv_lora_rank + qk_rope_head_dim) x layers elements per token; give %(missing)s too (from "
    "the model's config.json)"
)
MSG_MICRO_BATCH = gettext_noop("must be at most batch_size (%(batch)s)")
MSG_PRETRAIN_FULL = gettext_noop("pretraining trains every weight: method must be full")
MSG_FULL_PRECISION = gettext_noop(
    "full training needs fp32, bf16, fp16 or fp8 weights; int8 and int4 are for inference or "
    "as the frozen base of lora/qlora"
)
MSG_KIND_CONTRADICTS_MODEL = gettext_noop(
    "%(model)s is a registry model of kind %(kind)s; leave model_kind out or give %(kind)s"
)
MSG_KIND_NO_ARCHITECTURE = gettext_noop(
    "architecture describes a transformer's layers; leave it out for a %(kind)s model (its "
    "per-image memory and compute are scaled from a registry model of that kind)"
)
# A served context (prompt + answer) is refused beyond the model's maximum: the registry's
# context_length, each taken from the model's config.json max_position_embeddings (the entry's
# first source), or the one the customer gives in architecture.context_length.
SOURCE_CONTEXT_LIMIT = (
    "the model's config.json max_position_embeddings (registry context_length); "
    "https://huggingface.co/docs/transformers/main_classes/configuration"
)
MSG_CONTEXT_TOO_LONG = gettext_noop(
    "must be at most %(max)s tokens: the longest context %(model)s takes (its context_length)"
)
MSG_CONTEXT_TOO_LONG_GIVEN = gettext_noop(
    "must be at most %(max)s tokens: the longest context given in architecture.context_length"
)
MSG_CONTEXT_UNKNOWN = gettext_noop(
    "no maximum context is known for this model (architecture.context_length not given): the "
    "%(context)s-token context is taken as asked, not checked against what the model takes"
)
