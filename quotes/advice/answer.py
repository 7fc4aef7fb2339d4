"""The answer first, for templates: the recommendation (``presenters.recommendation_to_dict``)
with its labels, shown at the top of the result page, the checklist PDF and the staff quote
screen (``templates/quotes/_answer.html``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from quotes.advice.labels import TIER_LABELS, WAY_LABELS


def answer_context(recommendation: dict[str, Any] | None) -> dict[str, Any] | None:
    """``recommendation`` as the answer block reads it; None when nothing was recommended."""
    if not recommendation:
        return None
    job = recommendation.get("job")
    cheapest = recommendation.get("cheapest")
    horizon = recommendation.get("horizon_months")
    return {
        **recommendation,
        "tier_name": TIER_LABELS.get(recommendation["tier"], recommendation["tier"]),
        "cheapest_name": WAY_LABELS.get(cheapest, cheapest) if cheapest else None,
        "years": None if horizon is None else horizon // 12,
        "job_days": None if not job else (Decimal(str(job["hours"])) / 24).quantize(Decimal("0.1")),
    }
