"""Computed results cached per process, per data version.

The wizard and the partner API ask the same questions again and again (the registry's models,
the wizard's defaults): a result computed from the same inputs with the same data (catalog,
prices, assumptions: ``data_version_get``) is the same result, so each process caches the last
``COMPUTED_CACHE_SIZE`` of them with their stored form. Only the computation is cached here:
the wizard stores a result row once per question and data version
(``quotes.wizard.services.wizard_result_create``), every quote its own number and lines.

Both values are shared by every caller that asks the same question: read them, never change
them (the result is made of frozen dataclasses; the stored form is written to JSON columns).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from catalog.selectors import per_version_cache
from engine.advice.codec import encode
from gpuquote.core.process_cache import ProcessCache
from quotes.advice.compute import compute
from quotes.advice.result import AdviceInputs, AdviceResult
from quotes.advice.selectors import data_version_get
from quotes.advice.store import result_to_json

COMPUTED_CACHE_SIZE = 32  # a result and its stored form: ~0.4 MB (measured with tracemalloc)


@dataclass(frozen=True, slots=True)
class Computed:
    """A result and its stored form (``result_to_json``), computed once."""

    result: AdviceResult
    stored: dict[str, Any]


def computed_get(inputs: AdviceInputs) -> Computed:
    """``compute(inputs)`` and its stored form, from this process's recent results when the
    same inputs were computed with the same data. Raises what ``compute`` raises (never cached)."""
    key = (json.dumps(encode(inputs), sort_keys=True), repr(data_version_get()))

    def make() -> Computed:
        result = compute(inputs)
        return Computed(result, result_to_json(result))

    return _computed.get_or_make(key, make)


# Per process: (inputs, data version) -> the computed result.
_computed: ProcessCache[tuple[str, str], Computed] = ProcessCache(COMPUTED_CACHE_SIZE)
per_version_cache(_computed.clear)
