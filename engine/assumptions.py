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
- Per-GPU-model defaults (cloud price per GPU-hour, managed-hosting fee per GPU) depend on the
  configuration's GPU: ``Assumptions.for_gpu_model(name)`` resolves them; ``compute_tco`` calls
  it. A model without a dated public price gets no default: the option is then left out of the
  comparison until the value is set by override.
- ``source`` is a citation (titles, URLs, dates), kept verbatim and not translated; ``label``
  is the user-facing wording and is a translatable ``Message``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

from .i18n import Message, gettext_noop
from .money import CURRENCIES, Money, round_money

REGIONS = ("DE", "FR", "GB", "US")
OVERRIDE_SOURCE = "override"

ZERO = Decimal(0)
ONE = Decimal(1)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class AssumptionError(ValueError):
    """A region, currency, name or value the assumptions cannot accept.

    ``message`` is the translatable explanation; ``field`` names the offending input.
    """

    def __init__(self, message: Message, *, field: str) -> None:
        super().__init__(message.render())
        self.message = message
        self.field = field


class UnknownRegionError(AssumptionError):
    pass


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


# --------------------------------------------------------------------------------------------
# The value objects
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assumption:
    name: str
    value: Decimal
    unit: str
    source: str
    label: Message
    overridden: bool = False


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a name means: its unit (``{cur}`` stands for the currency), label and bounds."""

    unit: str
    label: str
    minimum: Decimal
    maximum: Decimal | None
    money: bool = False
    integral: bool = False


def _spec(
    unit: str,
    label: str,
    minimum: str = "0",
    maximum: str | None = None,
    *,
    money: bool = False,
    integral: bool = False,
) -> _Spec:
    return _Spec(
        unit=unit,
        label=label,
        minimum=Decimal(minimum),
        maximum=None if maximum is None else Decimal(maximum),
        money=money,
        integral=integral,
    )


FRACTION = "fraction (0.10 = 10%)"

# Canonical order: the order in which assumptions are listed to users.
SPECS: Mapping[str, _Spec] = MappingProxyType(
    {
        "electricity_price_per_kwh": _spec(
            "{cur}/kWh", gettext_noop("Electricity price"), money=True
        ),
        "pue": _spec(
            "ratio", gettext_noop("Power usage effectiveness (facility power / IT power)"), "1", "3"
        ),
        "idle_power_fraction": _spec(
            FRACTION, gettext_noop("Idle draw as a share of full-load power"), "0", "1"
        ),
        "grid_carbon_kg_per_kwh": _spec(
            "kg CO2e/kWh", gettext_noop("Grid carbon intensity"), "0", "2"
        ),
        "colocation_per_kw_month": _spec(
            "{cur}/kW/month",
            gettext_noop("Colocation rent per provisioned kW (full-load power) per month"),
            money=True,
        ),
        "staff_cost_per_year": _spec(
            "{cur}/year",
            gettext_noop("Fully loaded cost of one systems engineer per year"),
            money=True,
        ),
        "staff_fte_per_server": _spec(
            "FTE/server", gettext_noop("Staff time per server you run yourself"), "0", "5"
        ),
        "managed_staff_fte_per_server": _spec(
            "FTE/server",
            gettext_noop("Staff time per server that stays with you when it is hosted"),
            "0",
            "5",
        ),
        "installation_cost": _spec(
            "{cur}/server",
            gettext_noop("Installation and integration, one-off, per server"),
            money=True,
        ),
        "support_pct_per_year": _spec(
            FRACTION,
            gettext_noop("Hardware support and maintenance per year, share of the price"),
            "0",
            "1",
        ),
        "spares_pct_per_year": _spec(
            FRACTION, gettext_noop("Spare parts per year, share of the price"), "0", "1"
        ),
        "insurance_pct_per_year": _spec(
            FRACTION, gettext_noop("Insurance per year, share of the price"), "0", "1"
        ),
        "network_per_server_month": _spec(
            "{cur}/server/month",
            gettext_noop("Network uplink and transit per server per month"),
            money=True,
        ),
        "software_per_gpu_year": _spec(
            "{cur}/GPU/year", gettext_noop("Software licences per GPU per year"), money=True
        ),
        "depreciation_years": _spec(
            "years", gettext_noop("Depreciation period (straight line)"), "1", "15"
        ),
        "residual_value_pct": _spec(
            FRACTION,
            gettext_noop("Residual value at the end of depreciation, share of the price"),
            "0",
            "1",
        ),
        "discount_rate": _spec(
            "fraction per year (0.08 = 8%)",
            gettext_noop("Cost of capital used to discount cash flows (0 = no discounting)"),
            "0",
            "1",
        ),
        "managed_monthly_price": _spec(
            "{cur}/GPU/month",
            gettext_noop("Managed-hosting fee per GPU per month"),
            money=True,
        ),
        "managed_setup_fee_months": _spec(
            "months of fee",
            gettext_noop("Managed-hosting setup fee, in months of the monthly fee"),
            "0",
            "24",
        ),
        "managed_discount_12m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 12-month contract"), "0", "1"
        ),
        "managed_discount_24m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 24-month contract"), "0", "1"
        ),
        "managed_discount_36m_pct": _spec(
            FRACTION, gettext_noop("Managed-hosting discount for a 36-month contract"), "0", "1"
        ),
        "managed_power_included": _spec(
            "flag (1 = included, 0 = billed at the electricity price)",
            gettext_noop("Power and cooling included in the managed-hosting fee"),
            "0",
            "1",
            integral=True,
        ),
        "cloud_price_per_gpu_hour": _spec(
            "{cur}/GPU-hour", gettext_noop("Cloud price per GPU-hour, on demand"), money=True
        ),
        "cloud_reserved_discount_pct": _spec(
            FRACTION,
            gettext_noop("Discount for reserving cloud GPUs for one year"),
            "0",
            "0.99",
        ),
        "usd_per_eur": _spec(
            "USD/EUR", gettext_noop("Exchange rate, US dollars per euro"), "0.01", "100"
        ),
        "gbp_per_eur": _spec(
            "GBP/EUR", gettext_noop("Exchange rate, pounds sterling per euro"), "0.01", "100"
        ),
    }
)

PER_MODEL = ("cloud_price_per_gpu_hour", "managed_monthly_price")


# --------------------------------------------------------------------------------------------
# Facts: figures with the currency they were published in and their citation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fact:
    value: Decimal
    currency: str | None  # None: not money
    source: str


def _f(value: str | Decimal, source: str, currency: str | None = None) -> Fact:
    return Fact(Decimal(value), currency, source)


EPOCH = "Epoch AI hardware prices dataset (shared/data/hardware_prices.csv)"
OFFERS = "GPUQuote GPU hosting offers (shared/data/gpu_hosting_offers.csv)"

RATES: Mapping[str, Fact] = MappingProxyType(
    {
        "usd_per_eur": _f(
            "1.0824",
            "ECB euro reference exchange rate, 2024 annual average, series EXR.A.USD.EUR.SP00.A "
            "(https://data.ecb.europa.eu/data/datasets/EXR)",
        ),
        "gbp_per_eur": _f(
            "0.84662",
            "ECB euro reference exchange rate, 2024 annual average, series EXR.A.GBP.EUR.SP00.A "
            "(https://data.ecb.europa.eu/data/datasets/EXR)",
        ),
    }
)

_CBRE = (
    "CBRE, North America Data Center Trends H2 2024 (26 Feb 2025): average monthly asking "
    "rate 184.06 USD per kW for a 250-500 kW requirement in primary markets "
    "(https://www.cbre.com/insights/reports/north-america-data-center-trends-h2-2024)"
)
_CBRE_ELSEWHERE = _CBRE + "; no comparable published European rate found, North American rate used"

_UPTIME = (
    "Uptime Institute Global Data Center Survey 2024: average annual PUE 1.56 "
    "(1.58 in 2023); used for every region"
)

REGIONAL: Mapping[str, Mapping[str, Fact]] = MappingProxyType(
    {
        "FR": MappingProxyType(
            {
                "electricity_price_per_kwh": _f(
                    "0.172",
                    "SDES (French ministry statistics, compiler of France's Eurostat "
                    "non-household series nrg_pc_205), 'Prix du gaz et de l'électricité au "
                    "premier semestre 2024': businesses paid 172 EUR/MWh on average excl. VAT, "
                    "H1 2024 (https://www.statistiques.developpement-durable.gouv.fr/"
                    "prix-du-gaz-et-de-lelectricite-au-premier-semestre-2024)",
                    "EUR",
                ),
                "grid_carbon_kg_per_kwh": _f(
                    "0.032",
                    "RTE, Bilan électrique 2023: carbon intensity of French electricity "
                    "production 32 gCO2eq/kWh in 2023 (https://analysesetdonnees.rte-france.com)",
                ),
                "staff_cost_per_year": _f(
                    round_money(Decimal(51000) / (ONE - Decimal("0.322"))),
                    "APEC 2022 salary study: median gross pay (fixed + variable) 51,000 EUR in "
                    "'Infrastructures et systèmes d'information' (reported by silicon.fr, Nov "
                    "2022); employer non-wage costs 32.2% of French labour costs (Eurostat "
                    "lc_lci_lev, 2024): 51,000 / (1 - 0.322)",
                    "EUR",
                ),
                "colocation_per_kw_month": _f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
        "DE": MappingProxyType(
            {
                "electricity_price_per_kwh": _f(
                    "0.2001",
                    "Eurostat nrg_pc_205, non-household consumers, band IC (500-1,999 MWh/yr), "
                    "H2 2024, excl. VAT and recoverable taxes: 20.01 ct/kWh (as reported by "
                    "Statista, https://de.statista.com/statistik/daten/studie/160309/)",
                    "EUR",
                ),
                "grid_carbon_kg_per_kwh": _f(
                    "0.380",
                    "Umweltbundesamt, CO2 emission factor of the German electricity mix, 2023 "
                    "estimate: 380 g/kWh (as reported by Statista, "
                    "https://de.statista.com/statistik/daten/studie/38897/)",
                ),
                "staff_cost_per_year": _f(
                    round_money(Decimal(5331) * 12 * Decimal("1.27")),
                    "Bundesagentur für Arbeit, Entgeltatlas 2024: median gross pay of IT "
                    "administrators 5,331 EUR/month (reported by heise, 2025); employers pay 27 "
                    "EUR of non-wage costs per 100 EUR of gross earnings (Destatis, 2019): "
                    "5,331 x 12 x 1.27",
                    "EUR",
                ),
                "colocation_per_kw_month": _f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
        "US": MappingProxyType(
            {
                "electricity_price_per_kwh": _f(
                    "0.13",
                    "EIA Electric Power Monthly: US commercial-sector average retail price "
                    "12.52 ct/kWh (March 2023) to 13.10 ct/kWh (October 2023), rounded to 13 ct "
                    "(https://www.eia.gov/electricity/monthly/)",
                    "USD",
                ),
                "grid_carbon_kg_per_kwh": _f(
                    Decimal("0.86") * Decimal("0.45359237"),
                    "EIA FAQ 'How much carbon dioxide is produced per kilowatthour of U.S. "
                    "electricity generation?': 0.86 lb CO2/kWh in 2022, x 0.45359237 kg/lb "
                    "(https://www.eia.gov/tools/faqs/faq.php?id=74)",
                ),
                "staff_cost_per_year": _f(
                    round_money(Decimal(96800) / Decimal("0.705")),
                    "BLS OEWS May 2024: median annual wage 96,800 USD for network and computer "
                    "systems administrators (15-1244); wages are 70.5% of private-industry "
                    "compensation (BLS Employer Costs for Employee Compensation, Dec 2024): "
                    "96,800 / 0.705",
                    "USD",
                ),
                "colocation_per_kw_month": _f("184.06", _CBRE, "USD"),
            }
        ),
        "GB": MappingProxyType(
            {
                "electricity_price_per_kwh": _f(
                    "0.2077",
                    "AquaSwitch, 2024 average one-year fixed business electricity rate for "
                    "100,000+ kWh/yr: 20.77 p/kWh excl. VAT "
                    "(https://www.aquaswitch.co.uk/business-electricity-prices/); broker data, "
                    "the DESNZ non-domestic series was not available to us",
                    "GBP",
                ),
                "grid_carbon_kg_per_kwh": _f(
                    "0.20705",
                    "DESNZ, UK Government GHG conversion factors for company reporting 2024: "
                    "UK electricity generated 0.20705 kg CO2e/kWh",
                ),
                "staff_cost_per_year": _f(
                    Decimal("50670") + Decimal("0.15") * (Decimal("50670") - Decimal("5000")),
                    "WageIndicator UK 2025: most systems administrators earn 2,527-5,918 "
                    "GBP/month (midpoint 4,222.50 x 12 = 50,670 GBP/yr) "
                    "(https://wageindicator.co.uk/career/role-pay/systems-administrators); plus "
                    "employer National Insurance of 15% above 5,000 GBP (HMRC, from 6 April "
                    "2025)",
                    "GBP",
                ),
                "colocation_per_kw_month": _f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
    }
)

COMMON: Mapping[str, Fact] = MappingProxyType(
    {
        "pue": _f("1.56", _UPTIME),
        "idle_power_fraction": _f(
            "0.25",
            "GPUQuote estimate: no public measurement of a whole GPU node's idle draw found; "
            "GPUs idle far below their rating while CPUs, memory, fans and NICs keep drawing. "
            "For scale: an 8-GPU H100 node peaked at 8.4 kW of its 10.2 kW rating (Latif et al., "
            "IEEE Access 13, 2025)",
        ),
        "staff_fte_per_server": _f(
            "0.05",
            "META Group (2002): 10 to 20 application servers per systems administrator; "
            "GPUQuote takes 20 servers per engineer",
        ),
        "managed_staff_fte_per_server": _f(
            "0.02",
            "GPUQuote decision: the host runs power, cooling, parts and OS/driver upkeep; "
            "the customer keeps the application-level work, taken as 40% of the on-premises "
            "effort (0.05 x 0.4). Also applied to cloud GPUs",
        ),
        "installation_cost": _f(
            "0",
            "Not included by default: integration is often bundled in the server price; enter "
            "your integrator's quote",
            "EUR",
        ),
        "support_pct_per_year": _f(
            "0.10",
            "Hardware maintenance contracts cost 10-12% of the purchase price a year "
            "(Library Technology Reports, https://librarytechnology.org/document/7428) and "
            "10-30% (TechTarget, 'How to make the most of hardware service contracts'); "
            "GPUQuote takes the low end",
        ),
        "spares_pct_per_year": _f(
            "0",
            "Not included by default: parts replacement is covered by the support contract; "
            "set it if you keep your own spares",
        ),
        "insurance_pct_per_year": _f(
            "0",
            "Not included by default: no public benchmark found; enter your insurer's rate",
        ),
        "network_per_server_month": _f(
            "0",
            "Not included by default: uplink, cross-connects and transit depend on the "
            "colocation contract",
            "EUR",
        ),
        "software_per_gpu_year": _f(
            "0",
            "Open-source stack by default; NVIDIA AI Enterprise lists at 4,500 USD per GPU and "
            "year (NVIDIA, Q3 FY2024 earnings call) and comes with H100 PCIe cards for 5 years",
            "EUR",
        ),
        "depreciation_years": _f(
            "5",
            "IRS Publication 946: computers are 5-year property (MACRS). Used in every region "
            "as the book-value convention; depreciation is reported, not a cash cost",
        ),
        "residual_value_pct": _f("0", "GPUQuote convention: no resale value assumed"),
        "discount_rate": _f(
            "0",
            "GPUQuote convention: no discounting unless you set your cost of capital; the "
            "net present value is then shown next to the cash total",
        ),
        "managed_setup_fee_months": _f(
            "1",
            OFFERS + ": Hetzner GEX131 setup fee 1,499 EUR for 1,497.30 EUR/month, GEX45 209 "
            "EUR for 212.30 EUR/month (https://www.hetzner.com, seen 2026-10-08)",
        ),
        "managed_discount_12m_pct": _f(
            "0",
            "Provider's commercial policy (placeholder, confirm with the host): no discount "
            "for 12 months",
        ),
        "managed_discount_24m_pct": _f(
            "0.05",
            "Provider's commercial policy (placeholder, confirm with the host); OVHcloud "
            "offers 12/24-month commitment discounts (" + OFFERS + ")",
        ),
        "managed_discount_36m_pct": _f(
            "0.10",
            "Provider's commercial policy (placeholder, confirm with the host)",
        ),
        "managed_power_included": _f(
            "1",
            OFFERS + ": European bare-metal GPU offers include power, cooling, rack space and "
            "uplink in the monthly fee",
        ),
        "cloud_reserved_discount_pct": _f(
            "0.30",
            "One-year commitment discounts: Google Cloud a3-highgpu-1g H100 11.06 -> 7.67 "
            "USD/GPU-hour (-30.6%), " + EPOCH + ", https://web.archive.org/web/20250317151647/"
            "https://cloud.google.com/compute/all-pricing, 2025-03-17; Hyperstack H100 PCIe "
            "2.50 -> 1.75 USD (-30%), " + OFFERS + ", https://www.hyperstack.cloud/gpu-pricing, "
            "2026-08-26",
        ),
    }
)


# Per GPU model. Keys are canonical model keys from ``gpu_model_key``.

CLOUD_ON_DEMAND: Mapping[str, Fact] = MappingProxyType(
    {
        "H100_SXM": _f(
            "3.99",
            OFFERS + ": RunPod Secure Cloud H100 SXM, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09); Lambda 8x H100 SXM same price "
            "(https://lambda.ai/instances, 2026-09-20)",
            "USD",
        ),
        "H100_PCIE": _f(
            "3.29",
            OFFERS + ": Lambda 1x H100 PCIe, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "H100_NVL": _f(
            "6.98",
            EPOCH + ": Microsoft Azure NCads H100 v5, East US, on demand "
            "(https://web.archive.org/web/20250317154123/https://azure.microsoft.com/en-us/"
            "pricing/details/virtual-machines/, 2025-03-17)",
            "USD",
        ),
        "H200": _f(
            "5.40",
            OFFERS + ": Nebius H200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "B200": _f(
            "8.50",
            OFFERS + ": Nebius B200 on demand from 1 Oct 2026 (https://nebius.com/prices, "
            "seen 2026-09-26)",
            "USD",
        ),
        "A100_SXM": _f(
            "2.79",
            OFFERS + ": Lambda 8x A100 SXM 80GB, on demand (https://lambda.ai/instances, "
            "seen 2026-09-20)",
            "USD",
        ),
        "A100_PCIE": _f(
            "1.79",
            OFFERS + ": RunPod Secure Cloud A100 80GB PCIe, on demand "
            "(https://www.runpod.io/pricing, seen 2026-11-09)",
            "USD",
        ),
        "L40S": _f(
            "1.55",
            OFFERS + ": Nebius L40S, on demand (https://nebius.com/prices, seen 2026-09-26)",
            "USD",
        ),
        "L4": _f(
            "0.49",
            OFFERS + ": RunPod Secure Cloud L4, on demand (https://www.runpod.io/pricing, "
            "seen 2026-10-08)",
            "USD",
        ),
        "MI300X": _f(
            "1.85",
            "Vultr MI300X on demand, as listed in Cliff Center research note 'AMD inference "
            "economics', 2026-05-18 (https://www.cliffcenter.com/research/amd-inference-"
            "economics); not in the shared datasets",
            "USD",
        ),
    }
)

CLOUD_ON_DEMAND_BY_REGION: Mapping[str, Mapping[str, Fact]] = MappingProxyType(
    {
        "FR": MappingProxyType(
            {
                "H100_SXM": _f(
                    Decimal("25.3308") / 8,
                    OFFERS + ": Scaleway H100-SXM-8-80G, Paris, 25.3308 EUR/h for 8 GPUs "
                    "(https://www.scaleway.com/en/pricing/gpu/, seen 2026-09-26)",
                    "EUR",
                ),
                "H100_PCIE": _f(
                    "2.80",
                    OFFERS + ": OVHcloud h100-380, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "H200": _f(
                    Decimal("42.0") / 8,
                    OFFERS + ": OVHcloud h200-1920, Paris, 42.00 EUR/h for 8 GPUs "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L40S": _f(
                    "1.40",
                    OFFERS + ": OVHcloud l40s-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
                "L4": _f(
                    "0.75",
                    OFFERS + ": OVHcloud l4-90, on demand "
                    "(https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-09-26)",
                    "EUR",
                ),
            }
        ),
    }
)

_OVH_MONTHLY = (
    "; OVHcloud Public Cloud monthly plan, GPU with power, cooling, space and hardware "
    "replacement included (https://www.ovhcloud.com/fr/public-cloud/prices/, seen 2026-10-08)"
)

MANAGED_MONTHLY_PER_GPU: Mapping[str, Fact] = MappingProxyType(
    {
        "H100_PCIE": _f(
            Decimal(7770) / 4,
            OFFERS + ": h100-1520, 7,770 EUR/month for 4 GPUs" + _OVH_MONTHLY,
            "EUR",
        ),
        "A100_SXM": _f("1100", OFFERS + ": a100-180, A100 80GB" + _OVH_MONTHLY, "EUR"),
        "A100_PCIE": _f("1100", OFFERS + ": a100-180, A100 80GB" + _OVH_MONTHLY, "EUR"),
        "L40S": _f("1008", OFFERS + ": l40s-90" + _OVH_MONTHLY, "EUR"),
        "L4": _f("540", OFFERS + ": l4-90" + _OVH_MONTHLY, "EUR"),
        "RTX_PRO_6000": _f(
            "1497.30",
            OFFERS + ": Hetzner GEX131, RTX PRO 6000 Blackwell Max-Q, dedicated server with "
            "power, cooling, rack and uplink (https://www.hetzner.com, seen 2026-10-08)",
            "EUR",
        ),
        "RTX_4000_SFF_ADA": _f(
            "232.30",
            OFFERS + ": Hetzner GEX44-1, dedicated server with power, cooling, rack and uplink "
            "(https://docs.hetzner.com, price list effective 2026-06-15, seen 2026-08-31)",
            "EUR",
        ),
    }
)


# --------------------------------------------------------------------------------------------
# GPU model names
# --------------------------------------------------------------------------------------------

_MODEL_PATTERNS: tuple[tuple[str, str | None], ...] = (
    ("gb200", None),  # Grace Blackwell superchip: not a B200 board, no default
    ("gb300", None),
    ("b200", "B200"),
    ("h200", "H200"),
    ("mi300x", "MI300X"),
    ("l40s", "L40S"),
    ("l40", None),
    ("l4", "L4"),
    ("rtxpro6000", "RTX_PRO_6000"),
    ("rtx4000sff", "RTX_4000_SFF_ADA"),
)


def gpu_model_key(name: str | None) -> str | None:
    """Canonical key for a GPU name or SKU ("NVIDIA H100 SXM5 80GB" -> "H100_SXM").

    ``None`` when the model is unknown to the price tables (or ``name`` is empty).
    """
    if not name:
        return None
    squashed = re.sub(r"[^a-z0-9]", "", name.lower())
    if "h100" in squashed:
        if "nvl" in squashed:
            return "H100_NVL"
        return "H100_PCIE" if "pcie" in squashed else "H100_SXM"
    if "a100" in squashed:
        return "A100_PCIE" if "pcie" in squashed else "A100_SXM"
    for needle, key in _MODEL_PATTERNS:
        if needle in squashed:
            return key
    return None


def known_gpu_models() -> tuple[str, ...]:
    """Model keys with at least one per-model default, sorted."""
    keys = set(CLOUD_ON_DEMAND) | set(MANAGED_MONTHLY_PER_GPU)
    for table in CLOUD_ON_DEMAND_BY_REGION.values():
        keys |= set(table)
    return tuple(sorted(keys))


# --------------------------------------------------------------------------------------------
# The set of assumptions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assumptions(Mapping[str, Assumption]):
    """All assumptions for one region and currency; a read-only mapping name -> Assumption.

    Build it with ``region_defaults``; derive variants with ``with_overrides`` and
    ``for_gpu_model``. ``gpu_model`` is the canonical key the per-model defaults were
    resolved for (``None``: not resolved).
    """

    region: str
    currency: str
    items: tuple[Assumption, ...]
    gpu_model: str | None = None
    # Staff-edited regional defaults (from the database) that replace the built-in facts.
    edited: Mapping[str, Fact] = field(default_factory=lambda: MappingProxyType({}))
    _index: Mapping[str, Assumption] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_index", MappingProxyType({item.name: item for item in self.items})
        )

    def __getitem__(self, name: str) -> Assumption:
        return self._index[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def value(self, name: str) -> Decimal:
        return self._index[name].value

    def money(self, name: str) -> Money:
        if not SPECS[name].money:
            raise KeyError(name)
        return Money(self._index[name].value, self.currency)

    @property
    def overrides(self) -> Mapping[str, Decimal]:
        """The overridden values, to store with a quote and replay later."""
        return MappingProxyType({a.name: a.value for a in self.items if a.overridden})

    def with_overrides(self, **values: Decimal | int | str | Money) -> Assumptions:
        """A copy with ``values`` replacing the defaults (source ``"override"``).

        Accepts ``Decimal``, ``int``, a numeric ``str`` or, for money, ``Money`` in this set's
        currency; ``float`` is refused. Unknown names and out-of-range values raise
        ``AssumptionError``. Overriding ``usd_per_eur`` or ``gbp_per_eur`` re-converts every
        default that was converted.
        """
        merged = dict(self.overrides)
        for name, raw in values.items():
            merged[name] = _validated(name, raw, self.currency)
        return _assemble(self.region, self.currency, self.gpu_model, merged, self.edited)

    def for_gpu_model(self, name: str | None) -> Assumptions:
        """A copy whose per-model defaults are those of GPU ``name`` (overrides are kept)."""
        key = gpu_model_key(name)
        if key == self.gpu_model:
            return self
        return _assemble(self.region, self.currency, key, dict(self.overrides), self.edited)


def region_defaults(
    region: str,
    currency: str,
    *,
    gpu_model: str | None = None,
    edited: Mapping[str, Fact] | None = None,
) -> Assumptions:
    """The default assumptions for ``region`` (FR, DE, US, GB), money in ``currency``.

    ``gpu_model`` (a name or SKU) resolves the per-model defaults now; otherwise
    ``compute_tco`` resolves them from the configuration. ``edited`` holds the defaults staff
    changed for this region (value, currency, source), which replace the built-in facts.
    """
    code = _region(region)
    cur = _currency(currency)
    for name, fact in (edited or {}).items():
        _validated(name, fact.value, fact.currency or cur)
    return _assemble(code, cur, gpu_model_key(gpu_model), {}, MappingProxyType(dict(edited or {})))


def builtin_facts(region: str) -> Mapping[str, Fact]:
    """The built-in regional and common defaults (not per GPU model), as published."""
    return MappingProxyType({**COMMON, **REGIONAL[_region(region)], **RATES})


# --------------------------------------------------------------------------------------------
# Internals
# --------------------------------------------------------------------------------------------


def _region(region: str) -> str:
    code = (region or "").strip().upper()
    if code not in REGIONS:
        raise UnknownRegionError(
            _msg(
                gettext_noop("Unknown region %(region)s; use one of %(allowed)s."),
                region=region,
                allowed=", ".join(REGIONS),
            ),
            field="region",
        )
    return code


def _currency(currency: str) -> str:
    code = (currency or "").strip().upper()
    if code not in CURRENCIES:
        raise AssumptionError(
            _msg(
                gettext_noop("Unsupported currency %(currency)s; use one of %(allowed)s."),
                currency=currency,
                allowed=", ".join(CURRENCIES),
            ),
            field="currency",
        )
    return code


def _validated(name: str, raw: Decimal | int | str | Money, currency: str) -> Decimal:
    spec = SPECS.get(name)
    if spec is None:
        raise AssumptionError(
            _msg(
                gettext_noop("Unknown assumption %(name)s; known: %(known)s."),
                name=name,
                known=", ".join(SPECS),
            ),
            field=name,
        )
    if isinstance(raw, Money):
        if not spec.money or raw.currency != currency:
            raise AssumptionError(
                _msg(
                    gettext_noop("%(name)s must be given in %(currency)s."),
                    name=name,
                    currency=currency,
                ),
                field=name,
            )
        value = raw.amount
    elif isinstance(raw, bool) or not isinstance(raw, Decimal | int | str):
        raise AssumptionError(
            _msg(gettext_noop("%(name)s must be a decimal number, not a float."), name=name),
            field=name,
        )
    else:
        try:
            value = Decimal(raw)
        except InvalidOperation:
            value = Decimal("NaN")
    if (
        not value.is_finite()
        or value < spec.minimum
        or (spec.maximum is not None and value > spec.maximum)
    ):
        raise AssumptionError(
            _msg(
                gettext_noop("%(name)s must be between %(minimum)s and %(maximum)s."),
                name=name,
                minimum=spec.minimum,
                maximum="any" if spec.maximum is None else spec.maximum,
            ),
            field=name,
        )
    if spec.integral and value != value.to_integral_value():
        raise AssumptionError(_msg(gettext_noop("%(name)s must be 0 or 1."), name=name), field=name)
    return value


class _Converter:
    """Converts a published figure into the target currency and says how in its source."""

    def __init__(self, currency: str, usd_per_eur: Decimal, gbp_per_eur: Decimal) -> None:
        self.currency = currency
        self.per_eur = {"EUR": ONE, "USD": usd_per_eur, "GBP": gbp_per_eur}

    def __call__(self, fact: Fact) -> tuple[Decimal, str]:
        if fact.currency is None or fact.currency == self.currency or not fact.value:
            return fact.value, fact.source
        rate_from = self.per_eur[fact.currency]
        rate_to = self.per_eur[self.currency]
        value = fact.value / rate_from * rate_to
        how = []
        if fact.currency != "EUR":
            how.append(str(rate_from) + " " + fact.currency + "/EUR")
        if self.currency != "EUR":
            how.append(str(rate_to) + " " + self.currency + "/EUR")
        note = "; published in " + fact.currency + ", converted at " + " and ".join(how)
        return value, fact.source + note


def _label(name: str, gpu_model: str | None) -> Message:
    if name == "cloud_price_per_gpu_hour" and gpu_model:
        return _msg(gettext_noop("Cloud price per GPU-hour, on demand (%(gpu)s)"), gpu=gpu_model)
    if name == "managed_monthly_price" and gpu_model:
        return _msg(gettext_noop("Managed-hosting fee per GPU per month (%(gpu)s)"), gpu=gpu_model)
    return Message(SPECS[name].label)


def _assemble(
    region: str,
    currency: str,
    gpu_model: str | None,
    overrides: Mapping[str, Decimal],
    edited: Mapping[str, Fact] = MappingProxyType({}),
) -> Assumptions:
    rate_facts = {name: edited.get(name, fact) for name, fact in RATES.items()}
    rates = {name: overrides.get(name, fact.value) for name, fact in rate_facts.items()}
    convert = _Converter(currency, rates["usd_per_eur"], rates["gbp_per_eur"])

    facts: dict[str, Fact] = {**COMMON, **REGIONAL[region]}
    if gpu_model is not None:
        cloud = CLOUD_ON_DEMAND_BY_REGION.get(region, {}).get(gpu_model) or CLOUD_ON_DEMAND.get(
            gpu_model
        )
        if cloud is not None:
            facts["cloud_price_per_gpu_hour"] = cloud
        managed = MANAGED_MONTHLY_PER_GPU.get(gpu_model)
        if managed is not None:
            facts["managed_monthly_price"] = managed
    facts.update(RATES)
    facts.update(edited)

    items: list[Assumption] = []
    for name, spec in SPECS.items():
        unit = spec.unit.replace("{cur}", currency)
        label = _label(name, gpu_model)
        if name in overrides:
            items.append(Assumption(name, overrides[name], unit, OVERRIDE_SOURCE, label, True))
        elif name in facts:
            value, source = convert(facts[name])
            items.append(Assumption(name, value, unit, source, label))
    return Assumptions(
        region=region, currency=currency, items=tuple(items), gpu_model=gpu_model, edited=edited
    )


def assumption_validate(name: str, value: Decimal, currency: str) -> Decimal:
    """Check one value against its assumption's range; raises ``AssumptionError``."""
    return _validated(name, value, currency)


def is_money(name: str) -> bool:
    return SPECS[name].money
