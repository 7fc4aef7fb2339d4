"""Engine results -> plain JSON-ready dicts, messages rendered in the active language.

The one translation of the engine's output, at the edge: the REST API returns these dicts and the
result page and the PDFs render them, each in its reader's language when it is shown (a stored
result keeps the engine's objects, not these dicts), so every screen shows the same numbers and
words. Money is a decimal string next to its currency; memory in GB (10^9 bytes).

One module per section: ``words`` (messages and numbers), ``needs`` (sizing, model),
``options`` (configurations), ``performance``, ``tco`` (ways to pay, managed offer, service
tier, recommendation), ``market`` (public cloud offers) and ``result`` (a whole advice result).
The labels of the engine's enums live in ``quotes.advice.labels``.
"""

from quotes.advice.labels import MARKET_LABELS  # the staff quote screen reads it here
from quotes.advice.presenters.market import (
    cloud_market_panel,
    cloud_offer_to_dict,
    market_offers_to_list,
    reserved_cloud_price_to_dict,
)
from quotes.advice.presenters.needs import (
    explanations_to_list,
    model_entry_to_dict,
    sizing_to_dict,
    training_plan_to_dict,
)
from quotes.advice.presenters.options import (
    build_to_dict,
    exchange_rates_to_list,
    option_to_dict,
)
from quotes.advice.presenters.performance import monitoring_to_dict, performance_to_dict
from quotes.advice.presenters.result import (
    defaults_to_dict,
    job_dict,
    on_gpus_to_dict,
    result_to_dict,
)
from quotes.advice.presenters.tco import (
    assumption_to_dict,
    assumption_words,
    job_to_dict,
    managed_offer_to_dict,
    recommendation_to_dict,
    service_tier_to_dict,
    tco_to_dict,
)
from quotes.advice.presenters.words import (
    Render,
    amount,
    cents,
    cents_or_none,
    localized_text,
    number,
    text,
)

__all__ = [
    "MARKET_LABELS",
    "Render",
    "amount",
    "assumption_to_dict",
    "assumption_words",
    "build_to_dict",
    "cents",
    "cents_or_none",
    "cloud_market_panel",
    "cloud_offer_to_dict",
    "defaults_to_dict",
    "exchange_rates_to_list",
    "explanations_to_list",
    "job_dict",
    "job_to_dict",
    "localized_text",
    "managed_offer_to_dict",
    "market_offers_to_list",
    "model_entry_to_dict",
    "monitoring_to_dict",
    "number",
    "on_gpus_to_dict",
    "option_to_dict",
    "performance_to_dict",
    "recommendation_to_dict",
    "reserved_cloud_price_to_dict",
    "result_to_dict",
    "service_tier_to_dict",
    "sizing_to_dict",
    "tco_to_dict",
    "text",
    "training_plan_to_dict",
]
