"""Every default the TCO model uses, in one place, per region, each with its unit and source.

An ``Assumption`` is a named ``Decimal`` with a unit, a citation (``source``) and a translatable
``label``. ``region_defaults(region, currency)`` returns the full set for one region
(ISO 3166 codes: FR, DE, US, GB) with every money value expressed in the requested currency;
``Assumptions.with_overrides(...)`` replaces values and records them as overridden
(their source becomes ``"override"``).

Conventions
- Shares are fractions: ``0.10`` means 10 %. A value above 1 is refused, so "10" cannot be
  mistaken for 10 %.
- Money values are in ``Assumptions.currency``; the unit says so (``EUR/kWh``). A default
  published in another currency is converted with the exchange-rate assumptions
  ``usd_per_eur`` and ``gbp_per_eur`` (ECB reference rates, 2024 annual averages); its source
  says which rate was used. Overriding a rate re-converts every default that was converted.
- Per-GPU-model defaults (cloud price per GPU-hour) depend on the configuration's GPU:
  ``Assumptions.for_gpu_model(name)`` resolves them; ``compute_tco`` calls it. A model without a
  dated public price gets no default: the cloud is then left out of the comparison until the
  value is set by override. The managed-hosting fee per GPU has no default: when set, it
  overrides the provider's computed fee (``engine.tco.hosting``).
- ``source`` is the citation in English, marked for translation (``gettext_noop`` in
  ``facts``): the shell shows it translated, titles, URLs and dates kept as published; ``label``
  is the user-facing wording and is a translatable ``Message``, and so are the unit
  (``unit_message``; ``unit`` keeps its English words) and the note of a currency conversion
  (``conversion``), which the shell shows after the citation.
"""

from .facts import COMMON, EPOCH, OFFERS, ONE, RATE_CURRENCIES, RATES, REGIONAL, ZERO, Fact
from .gpu_models import gpu_model_key, known_gpu_models
from .gpu_prices import CLOUD_ON_DEMAND, CLOUD_ON_DEMAND_BY_REGION
from .resolve import (
    OVERRIDE_SOURCE,
    REGIONS,
    Assumption,
    AssumptionError,
    Assumptions,
    UnknownRegionError,
    assumption_validate,
    builtin_facts,
    is_money,
    region_defaults,
)
from .specs import FRACTION, FRACTION_PER_YEAR, PER_MODEL, SPECS, unit_message

__all__ = [
    "CLOUD_ON_DEMAND",
    "CLOUD_ON_DEMAND_BY_REGION",
    "COMMON",
    "EPOCH",
    "FRACTION",
    "FRACTION_PER_YEAR",
    "OFFERS",
    "ONE",
    "OVERRIDE_SOURCE",
    "PER_MODEL",
    "RATES",
    "RATE_CURRENCIES",
    "REGIONAL",
    "REGIONS",
    "SPECS",
    "ZERO",
    "Assumption",
    "AssumptionError",
    "Assumptions",
    "Fact",
    "UnknownRegionError",
    "assumption_validate",
    "builtin_facts",
    "gpu_model_key",
    "is_money",
    "known_gpu_models",
    "region_defaults",
    "unit_message",
]
