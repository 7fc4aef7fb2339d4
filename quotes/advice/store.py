"""An ``AdviceResult`` in a JSON column and back, language-neutral (``engine.advice.codec``).

The stored form is the result's numbers, enum values and untranslated messages (template and
parameters), so a stored result is the same object when read back, whatever language it is then
shown in, and never changes with later catalog prices (STYLE.md rule 5: snapshots).

Results stored before schema 2 (per-language rendered texts) cannot be read back as objects:
``result_of`` answers ``None`` for them, and the wizard offers to compute them again from their
stored inputs (decision 0007).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from engine.advice.codec import CodecError, decode, encode
from quotes.advice.result import AdviceInputs, AdviceResult

RESULT_SCHEMA = 2


def result_to_json(result: AdviceResult) -> dict[str, Any]:
    return {"schema": RESULT_SCHEMA, "advice": encode(result)}


def stored_question_digest(
    *, answers: Mapping[str, Any], inputs: AdviceInputs, language: str
) -> str:
    """What makes two stored results the same, computed with the same data: the answers (the
    page shows them), the engine's inputs, the language (of the PDF and the CSV) and the stored
    schema; a SHA-256 of their canonical JSON."""
    question = {
        "schema": RESULT_SCHEMA,
        "answers": answers,
        "inputs": encode(inputs),
        "language": language,
    }
    text = json.dumps(question, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def result_from_json(data: Any) -> AdviceResult | None:
    """The stored result, or ``None`` when it was stored by an earlier schema."""
    if not isinstance(data, dict) or data.get("schema") != RESULT_SCHEMA:
        return None
    return decode(AdviceResult, data["advice"])


def inputs_from_json(data: Any) -> AdviceInputs | None:
    """The inputs of a stored result of any schema (schema 1 stored them in the same form)."""
    if not isinstance(data, dict):
        return None
    stored = data["advice"]["inputs"] if data.get("schema") == RESULT_SCHEMA else data.get("inputs")
    try:
        return decode(AdviceInputs, stored)
    except (CodecError, KeyError, TypeError, ValueError, ArithmeticError):
        return None
