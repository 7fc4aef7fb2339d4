"""A whole advice result as JSON, in the active language: what the wizard's export and the
result page's figures come from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.assumptions import Assumption
from engine.performance.results import Performance
from engine.sizing import Sizing
from quotes.advice.presenters.needs import sizing_to_dict
from quotes.advice.presenters.options import build_to_dict
from quotes.advice.presenters.performance import performance_to_dict
from quotes.advice.presenters.tco import assumption_words, job_to_dict, tco_to_dict
from quotes.advice.presenters.words import Render, localized_text, number
from quotes.advice.result import AdviceResult


def defaults_to_dict(
    assumptions: Sequence[Assumption], currency: str, *, render: Render = localized_text
) -> dict[str, dict[str, str]]:
    return {
        item.name: {
            "value": format(item.value.normalize(), "f"),
            **assumption_words(item, currency, render),
        }
        for item in assumptions
    }


def job_dict(result: AdviceResult) -> dict[str, Any]:
    """The ``job`` entry of a TCO answer (as ``POST /api/v1/tco/`` gives it)."""
    return {"job": job_to_dict(result.job)}


def on_gpus_to_dict(
    sizing: Sizing | None, performance: Performance | None, *, render: Render = localized_text
) -> dict[str, Any] | None:
    """The job on one configuration's GPUs. Its serving throughput is the one the
    configuration's option states (``engine.performance``: the working GPUs, the decode
    efficiency), not the sizing's bandwidth ceiling: one figure per configuration everywhere."""
    if sizing is None:
        return None
    found = sizing_to_dict(sizing, render=render)
    serving = None if performance is None else performance.serving
    if serving is not None:
        found["tokens_per_second"] = number(serving.tokens_per_second, 1)
    return found


def result_to_dict(result: AdviceResult, *, render: Render = localized_text) -> dict[str, Any]:
    """An advice result in the active language: what the result page and the checklist PDF show,
    rendered when they are (the stored result holds no words), numbers written the reader's
    way."""
    tco = result.tco
    return {
        "sizing": sizing_to_dict(result.sizing, render=render),
        "build": build_to_dict(
            result.build, result.price_ages, exchange_rates=result.exchange_rates, render=render
        ),
        "tco": None if tco is None else tco_to_dict(tco, render=render) | job_dict(result),
        "on_recommended": on_gpus_to_dict(
            result.on_recommended,
            None if result.chosen_tier is None else result.performance.get(result.chosen_tier),
            render=render,
        ),
        "on_workstation": on_gpus_to_dict(
            result.on_workstation, result.workstation_performance, render=render
        ),
        "defaults": defaults_to_dict(result.defaults, result.inputs.currency, render=render),
        "performance": {
            str(tier): performance_to_dict(found, render=render)
            for tier, found in result.performance.items()
        },
    }
