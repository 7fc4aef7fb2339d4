"""Every default and derivation the wizard, the API, partner quotes and the staff builder share.

One fact, one place: the answers' allowed values (uptime, deployment, region, currency, language),
their defaults, their bounds and the one derivation between answers (uptime -> utilisation). The
wizard's forms add words (labels, help) to these values; the API serializers add documentation.

Where the edges still differ, on purpose or not, the difference is named here rather than hidden
in two modules (``WIZARD_*`` and ``PARTNER_*``/``API_*`` defaults below).

Languages come from ``settings.LANGUAGES`` and are read when asked (``language_codes()``), never
when this module is imported.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings

from engine.advice.checklist import Deployment
from engine.assumptions import REGIONS
from engine.build.builder import Environment
from engine.money import CURRENCIES
from engine.tco import MAX_HORIZON_YEARS, MAX_UTILIZATION, MIN_HORIZON_YEARS, MIN_UTILIZATION
from engine.workload import Inference, Training

__all__ = [
    "API_DEFAULT_UTILIZATION",
    "BUDGET_DECIMAL_PLACES",
    "BUDGET_MAX",
    "BUDGET_MAX_DIGITS",
    "CURRENCIES",
    "CURRENCY_CHOICES",
    "DEFAULT_CURRENCY",
    "DEFAULT_HORIZON_YEARS",
    "DEFAULT_LANGUAGE",
    "DEFAULT_REGION",
    "DEFAULT_UTILIZATION",
    "DEFAULT_UTILIZATION_PCT",
    "DEPLOYMENTS",
    "GPU_COUNT_MAX",
    "GROWTH_GPUS_MAX",
    "INFERENCE_DEFAULTS",
    "MAX_HORIZON_YEARS",
    "MAX_UTILIZATION",
    "MAX_UTILIZATION_PCT",
    "MIN_HORIZON_YEARS",
    "MIN_UTILIZATION",
    "MIN_UTILIZATION_PCT",
    "PARTNER_DEFAULT_DEPLOYMENT",
    "PARTNER_DEFAULT_UPTIME",
    "REGIONS",
    "REGION_CHOICES",
    "TCO_DEFAULT_ENVIRONMENT",
    "TRAINING_DEFAULTS",
    "UPTIMES",
    "UTILIZATION_PCT_FOR_UPTIME",
    "WIZARD_CONCURRENT_USERS",
    "WIZARD_DEFAULT_DEPLOYMENT",
    "Deployment",
    "Uptime",
    "language_choices",
    "language_codes",
    "utilization_pct_for_uptime",
]

# --- The workload's defaults ----------------------------------------------------------------------

# What a training run or a service is assumed to be when an answer is missing: the engine's own
# defaults (``engine.workload``), so the API (a field left out) and the wizard (its pre-filled
# answer) size the same job: activation recomputation on, batch 8, 2,048-token training sequences,
# LoRA rank 16, 4,096-token serving context.
TRAINING_DEFAULTS = Training()
INFERENCE_DEFAULTS = Inference()
# The one difference, on purpose: the wizard pre-fills 8 concurrent users as a starting point a
# visitor sees and changes; an API request without ``concurrent_requests`` sizes one request.
WIZARD_CONCURRENT_USERS = 8

# --- Uptime and the utilisation it suggests -----------------------------------------------------


class Uptime:
    """How available the servers must be (the wizard's usage step, the partner API's ``uptime``)."""

    FLEXIBLE = "flexible"
    BUSINESS_HOURS = "business_hours"
    ALWAYS_ON = "always_on"


UPTIMES = (Uptime.FLEXIBLE, Uptime.BUSINESS_HOURS, Uptime.ALWAYS_ON)

# A first guess of the GPUs' busy share for each uptime answer (the wizard's step 4 pre-fills it).
UTILIZATION_PCT_FOR_UPTIME = {Uptime.FLEXIBLE: 50, Uptime.BUSINESS_HOURS: 30, Uptime.ALWAYS_ON: 70}

# The utilisation when nothing suggests another: the wizard's initial value and the TCO API's
# default (it has no uptime). The wizard pre-fills from the uptime and a partner quote without
# ``utilization_pct`` takes it from its uptime (``utilization_pct_for_uptime``).
DEFAULT_UTILIZATION_PCT = 70
DEFAULT_UTILIZATION = Decimal(DEFAULT_UTILIZATION_PCT) / 100  # Decimal("0.7")
API_DEFAULT_UTILIZATION = DEFAULT_UTILIZATION  # POST /api/v1/tco/ without ``utilization``
MIN_UTILIZATION_PCT = (MIN_UTILIZATION * 100).quantize(Decimal(1))
MAX_UTILIZATION_PCT = (MAX_UTILIZATION * 100).quantize(Decimal(1))


def utilization_pct_for_uptime(uptime: Any) -> int | None:
    """The utilisation (%) an uptime answer suggests; ``None`` for an unknown or missing one."""
    if isinstance(uptime, str) and uptime in UTILIZATION_PCT_FOR_UPTIME:
        return UTILIZATION_PCT_FOR_UPTIME[uptime]
    return None


# The partner API's uptime when the request gives none (the wizard has no default: it asks).
PARTNER_DEFAULT_UPTIME = Uptime.ALWAYS_ON

# --- Deployment, environment ------------------------------------------------------------------

DEPLOYMENTS = tuple(deployment.value for deployment in Deployment)
WIZARD_DEFAULT_DEPLOYMENT = Deployment.NOT_SURE.value  # the wizard's pre-selected answer
PARTNER_DEFAULT_DEPLOYMENT = Deployment.ON_PREMISES.value  # a partner quote without ``deployment``
TCO_DEFAULT_ENVIRONMENT = Environment.PRODUCTION.value  # POST /api/v1/tco/ without ``environment``

# --- Growth, budget -------------------------------------------------------------------------------

# Growth slots per server: the wizard's bound and the configurations and partner APIs' one.
GROWTH_GPUS_MAX = 16
# A customer's own GPU count ("at least", the result page's re-pricing and the API's
# ``min_gpus``) stays within what one request computes in well under a second; larger clusters
# are a conversation with the sales team (the quote form below the result).
GPU_COUNT_MAX = 512
# A budget as the API stores and documents it: 14 digits with cents.
BUDGET_MAX_DIGITS = 14
BUDGET_DECIMAL_PLACES = 2
BUDGET_MAX = Decimal(10) ** (BUDGET_MAX_DIGITS - BUDGET_DECIMAL_PLACES) - Decimal(10) ** (
    -BUDGET_DECIMAL_PLACES
)  # Decimal("999999999999.99")

# --- Region, horizon ------------------------------------------------------------------------------

DEFAULT_REGION = "FR"
REGION_CHOICES = [(code, code) for code in REGIONS]
DEFAULT_HORIZON_YEARS = 3

# --- Currency, language ---------------------------------------------------------------------------

DEFAULT_CURRENCY = "EUR"
CURRENCY_CHOICES = [(code, code) for code in CURRENCIES]
# Quotes (and partner requests) without a language are in English, the site's LANGUAGE_CODE.
DEFAULT_LANGUAGE = "en"


def language_choices() -> list[tuple[str, Any]]:
    """The languages the site offers, as ``(code, name)``: ``settings.LANGUAGES`` itself."""
    return settings.LANGUAGES


def language_codes() -> list[str]:
    """The codes of the languages the site offers (``["en", "fr"]``), in settings order."""
    return [code for code, _name in settings.LANGUAGES]
