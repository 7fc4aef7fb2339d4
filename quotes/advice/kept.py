"""Computed results kept per process, per data version.

The wizard and the partner API ask the same questions again and again (the registry's models,
the wizard's defaults): a result computed from the same inputs with the same data (catalog,
prices, assumptions: ``data_version_get``) is the same result, so each process keeps the last
``COMPUTED_KEPT`` of them with their stored form. Only the computation is kept: every wizard
answer still stores its own result row and every quote its own number and lines.

Both values are shared by every caller that asks the same question: read them, never change
them (the result is made of frozen dataclasses; the stored form is written to JSON columns).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from catalog.selectors import per_version_cache
from engine.codec import encode
from quotes.advice.compute import compute
from quotes.advice.result import AdviceInputs, AdviceResult
from quotes.advice.selectors import data_version_get
from quotes.advice.store import result_to_json

COMPUTED_KEPT = 32  # a stored result is ~100 KB of JSON, its objects a few times that


@dataclass(frozen=True, slots=True)
class Computed:
    """A result and its stored form (``result_to_json``), computed once."""

    result: AdviceResult
    stored: dict[str, Any]


def computed_get(inputs: AdviceInputs) -> Computed:
    """``compute(inputs)`` and its stored form, from this process's recent results when the
    same inputs were computed with the same data. Raises what ``compute`` raises (never kept)."""
    key = (json.dumps(encode(inputs), sort_keys=True), repr(data_version_get()))
    kept = _computed.get(key)
    if kept is not None:
        _computed.move_to_end(key)
        return kept
    result = compute(inputs)
    kept = Computed(result, result_to_json(result))
    _computed[key] = kept
    while len(_computed) > COMPUTED_KEPT:
        _computed.popitem(last=False)
    return kept


# Per process: (inputs, data version) -> the computed result, least recently used first.
_computed: OrderedDict[tuple[str, str], Computed] = OrderedDict()
per_version_cache(_computed.clear)
