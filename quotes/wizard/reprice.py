"""A stored result changed on its page: the same answers with the customer's GPU model and
count, horizon, region and deployment. The new inputs are computed like the wizard's (a new
result under a new private link); the answers keep what was changed, so the page can show it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from quotes.advice.result import AdviceInputs

# Where the answers keep the re-pricing choices the wizard's steps do not ask.
REPRICE_ANSWERS = "reprice"


def repriced(
    answers: Mapping[str, Any], inputs: AdviceInputs, changes: Mapping[str, Any]
) -> tuple[dict[str, Any], AdviceInputs]:
    """``changes``: the cleaned ``RepriceForm`` data."""
    new_inputs = dataclasses.replace(
        inputs,
        gpu_sku=changes["gpu"] or "",
        gpu_count=int(changes["gpu_count"] or 0),
        horizon_years=int(changes["horizon_years"]),
        region=changes["region"],
        deployment=changes["deployment"],
    )
    new_answers = dict(answers)
    deployment = dict(new_answers.get("deployment") or {})
    deployment.update(
        horizon_years=new_inputs.horizon_years,
        region=new_inputs.region,
        deployment=new_inputs.deployment,
    )
    new_answers["deployment"] = deployment
    new_answers[REPRICE_ANSWERS] = {"gpu": new_inputs.gpu_sku, "gpu_count": new_inputs.gpu_count}
    return new_answers, new_inputs
