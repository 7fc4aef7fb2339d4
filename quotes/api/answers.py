"""The calculators' answers as the API publishes them (``quotes.api.schemas`` documents them)."""

from __future__ import annotations

from typing import Any

from quotes.advice.calculators import ConfigurationsAnswer, SizingAnswer, TcoAnswer
from quotes.advice.presenters import (
    build_to_dict,
    exchange_rates_to_list,
    job_to_dict,
    market_offers_to_list,
    option_to_dict,
    recommendation_to_dict,
    reserved_cloud_price_to_dict,
    sizing_to_dict,
    tco_to_dict,
    training_plan_to_dict,
)


def sizing_answer_to_dict(answer: SizingAnswer) -> dict[str, Any]:
    body = sizing_to_dict(answer.sizing)
    body["training_plan"] = training_plan_to_dict(answer.plan)
    if answer.reach is not None:
        body["max_context_length"] = answer.reach.max_context_length
        body["max_concurrent_requests"] = answer.reach.max_concurrent_requests
    return body


def configurations_answer_to_dict(answer: ConfigurationsAnswer) -> dict[str, Any]:
    body = build_to_dict(
        answer.advice.build,
        answer.price_ages,
        answer.performance,
        exchange_rates=answer.exchange_rates,
    )
    body["recommendation"] = recommendation_to_dict(answer.recommendation)
    return body


def tco_answer_to_dict(answer: TcoAnswer) -> dict[str, Any]:
    body = tco_to_dict(answer.result)
    body["market_offers"] = market_offers_to_list(answer.market)
    body["reserved_cloud_price"] = reserved_cloud_price_to_dict(answer.market)
    body["job"] = job_to_dict(answer.job)
    body["recommendation"] = recommendation_to_dict(answer.recommendation)
    built = answer.built
    if built is not None:
        performance = {} if built.performance is None else {built.option.tier: built.performance}
        body["configuration"] = option_to_dict(built.option, built.price_ages, performance)
        body["configuration_exchange_rates"] = exchange_rates_to_list(
            built.exchange_rates, (built.option,), built.price_ages
        )
    return body
