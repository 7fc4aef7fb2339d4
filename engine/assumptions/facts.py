"""Sourced figures as records: one ``Fact`` per default, with the currency it was published in
and its citation. Exchange rates, per-region and common defaults.

Each source is one English literal marked with ``gettext_noop`` (never built by concatenation,
which ``makemessages`` cannot extract), so a French reader gets it translated: GPUQuote's own
words in French, the titles, codes and figures it cites as published.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..i18n import gettext_noop
from ..money import round_money

ZERO = Decimal(0)
ONE = Decimal(1)


# --------------------------------------------------------------------------------------------
# Facts: figures with the currency they were published in and their citation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fact:
    value: Decimal
    currency: str | None  # None: not money
    source: str


def f(value: str | Decimal, source: str, currency: str | None = None) -> Fact:
    return Fact(Decimal(value), currency, source)


# Where the dated prices come from: each figure's own text then names the page and the date.
EPOCH = (
    "Epoch AI, machine learning hardware prices (https://github.com/epoch-research/"
    "training-cost-trends, data/Hardware prices.csv; each row cites its dated page)"
)
OFFERS = "Public price list"

RATES: Mapping[str, Fact] = MappingProxyType(
    {
        "usd_per_eur": f(
            "1.0824",
            gettext_noop(
                "ECB euro reference exchange rate, 2024 annual average, series "
                "EXR.A.USD.EUR.SP00.A (https://data.ecb.europa.eu/data/datasets/EXR)"
            ),
        ),
        "gbp_per_eur": f(
            "0.84662",
            gettext_noop(
                "ECB euro reference exchange rate, 2024 annual average, series "
                "EXR.A.GBP.EUR.SP00.A (https://data.ecb.europa.eu/data/datasets/EXR)"
            ),
        ),
    }
)

# The currency each rate assumption is the price of, in units per euro.
RATE_CURRENCIES: Mapping[str, str] = MappingProxyType({"usd_per_eur": "USD", "gbp_per_eur": "GBP"})
# The day the built-in annual averages are dated with where a conversion needs a day: the last
# day of the year they average (every price converted with them then says "2024 annual average").
RATES_AS_OF = (2024, 12, 31)

_CBRE = gettext_noop(
    "CBRE, North America Data Center Trends H2 2024 (26 Feb 2025): average monthly asking rate "
    "184.06 USD per kW for a 250-500 kW requirement in primary markets (https://www.cbre.com/"
    "insights/reports/north-america-data-center-trends-h2-2024)"
)
_CBRE_ELSEWHERE = gettext_noop(
    "CBRE, North America Data Center Trends H2 2024 (26 Feb 2025): average monthly asking rate "
    "184.06 USD per kW for a 250-500 kW requirement in primary markets (https://www.cbre.com/"
    "insights/reports/north-america-data-center-trends-h2-2024); no comparable published European "
    "rate found, North American rate used"
)

_UPTIME = gettext_noop(
    "Uptime Institute Global Data Center Survey 2024: average annual PUE 1.56 (1.58 in 2023); used "
    "for every region"
)

REGIONAL: Mapping[str, Mapping[str, Fact]] = MappingProxyType(
    {
        "FR": MappingProxyType(
            {
                "host_electricity_price_per_kwh": f(
                    "0.087",
                    gettext_noop(
                        "SDES, 'Prix du gaz et de l'électricité au premier semestre 2024' "
                        "(France's compiler of Eurostat nrg_pc_205): businesses consuming over "
                        "150 GWh a year paid 87 EUR/MWh excl. VAT in H1 2024, a GPU host's "
                        "consumption band"
                    ),
                    "EUR",
                ),
                "electricity_price_per_kwh": f(
                    "0.172",
                    gettext_noop(
                        "SDES (French ministry statistics, compiler of France's Eurostat "
                        "non-household series nrg_pc_205), 'Prix du gaz et de l'électricité au "
                        "premier semestre 2024': businesses paid 172 EUR/MWh on average excl. VAT, "
                        "H1 2024 (https://www.statistiques.developpement-durable.gouv.fr/"
                        "prix-du-gaz-et-de-lelectricite-au-premier-semestre-2024)"
                    ),
                    "EUR",
                ),
                "grid_carbon_kg_per_kwh": f(
                    "0.032",
                    gettext_noop(
                        "RTE, Bilan électrique 2023: carbon intensity of French electricity "
                        "production 32 gCO2eq/kWh in 2023 (https://"
                        "analysesetdonnees.rte-france.com)"
                    ),
                ),
                "staff_cost_per_year": f(
                    round_money(Decimal(51000) / (ONE - Decimal("0.322"))),
                    gettext_noop(
                        # xgettext:no-python-format
                        "APEC 2022 salary study: median gross pay (fixed + variable) 51,000 EUR in "
                        "'Infrastructures et systèmes d'information' (reported by silicon.fr, Nov "
                        "2022); employer non-wage costs 32.2% of French labour costs (Eurostat "
                        "lc_lci_lev, 2024): 51,000 / (1 - 0.322)"
                    ),
                    "EUR",
                ),
                "colocation_per_kw_month": f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
        "DE": MappingProxyType(
            {
                "host_electricity_price_per_kwh": f(
                    "0.1012",
                    gettext_noop(
                        "GPUQuote estimate: this region's business price 0.2001 x 87/172, "
                        "the ratio of the large-consumer to the average business price in France "
                        "(SDES, H1 2024); no large-consumer band found for this region"
                    ),
                    "EUR",
                ),
                "electricity_price_per_kwh": f(
                    "0.2001",
                    gettext_noop(
                        "Eurostat nrg_pc_205, non-household consumers, band IC (500-1,999 MWh/yr), "
                        "H2 2024, excl. VAT and recoverable taxes: 20.01 ct/kWh (as reported by "
                        "Statista, https://de.statista.com/statistik/daten/studie/160309/)"
                    ),
                    "EUR",
                ),
                "grid_carbon_kg_per_kwh": f(
                    "0.380",
                    gettext_noop(
                        "Umweltbundesamt, CO2 emission factor of the German electricity mix, 2023 "
                        "estimate: 380 g/kWh (as reported by Statista, https://de.statista.com/"
                        "statistik/daten/studie/38897/)"
                    ),
                ),
                "staff_cost_per_year": f(
                    round_money(Decimal(5331) * 12 * Decimal("1.27")),
                    gettext_noop(
                        "Bundesagentur für Arbeit, Entgeltatlas 2024: median gross pay of IT "
                        "administrators 5,331 EUR/month (reported by heise, 2025); employers pay "
                        "27 EUR of non-wage costs per 100 EUR of gross earnings (Destatis, 2019): "
                        "5,331 x 12 x 1.27"
                    ),
                    "EUR",
                ),
                "colocation_per_kw_month": f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
        "US": MappingProxyType(
            {
                "host_electricity_price_per_kwh": f(
                    "0.0658",
                    gettext_noop(
                        "GPUQuote estimate: this region's business price 0.13 x 87/172, "
                        "the ratio of the large-consumer to the average business price in France "
                        "(SDES, H1 2024); no large-consumer band found for this region"
                    ),
                    "USD",
                ),
                "electricity_price_per_kwh": f(
                    "0.13",
                    gettext_noop(
                        "EIA Electric Power Monthly: US commercial-sector average retail price "
                        "12.52 ct/kWh (March 2023) to 13.10 ct/kWh (October 2023), rounded to 13 "
                        "ct (https://www.eia.gov/electricity/monthly/)"
                    ),
                    "USD",
                ),
                "grid_carbon_kg_per_kwh": f(
                    Decimal("0.86") * Decimal("0.45359237"),
                    gettext_noop(
                        "EIA FAQ 'How much carbon dioxide is produced per kilowatthour of U.S. "
                        "electricity generation?': 0.86 lb CO2/kWh in 2022, x 0.45359237 kg/lb "
                        "(https://www.eia.gov/tools/faqs/faq.php?id=74)"
                    ),
                ),
                "staff_cost_per_year": f(
                    round_money(Decimal(96800) / Decimal("0.705")),
                    gettext_noop(
                        # xgettext:no-python-format
                        "BLS OEWS May 2024: median annual wage 96,800 USD for network and computer "
                        "systems administrators (15-1244); wages are 70.5% of private-industry "
                        "compensation (BLS Employer Costs for Employee Compensation, Dec 2024): "
                        "96,800 / 0.705"
                    ),
                    "USD",
                ),
                "colocation_per_kw_month": f("184.06", _CBRE, "USD"),
            }
        ),
        "GB": MappingProxyType(
            {
                "host_electricity_price_per_kwh": f(
                    "0.1051",
                    gettext_noop(
                        "GPUQuote estimate: this region's business price 0.2077 x 87/172, "
                        "the ratio of the large-consumer to the average business price in France "
                        "(SDES, H1 2024); no large-consumer band found for this region"
                    ),
                    "GBP",
                ),
                "electricity_price_per_kwh": f(
                    "0.2077",
                    gettext_noop(
                        "AquaSwitch, 2024 average one-year fixed business electricity rate for "
                        "100,000+ kWh/yr: 20.77 p/kWh excl. VAT (https://www.aquaswitch.co.uk/"
                        "business-electricity-prices/); broker data, the DESNZ non-domestic series "
                        "was not available to us"
                    ),
                    "GBP",
                ),
                "grid_carbon_kg_per_kwh": f(
                    "0.20705",
                    gettext_noop(
                        "DESNZ, UK Government GHG conversion factors for company reporting 2024: "
                        "UK electricity generated 0.20705 kg CO2e/kWh"
                    ),
                ),
                "staff_cost_per_year": f(
                    Decimal("50670") + Decimal("0.15") * (Decimal("50670") - Decimal("5000")),
                    gettext_noop(
                        # xgettext:no-python-format
                        "WageIndicator UK 2025: most systems administrators earn 2,527-5,918 "
                        "GBP/month (midpoint 4,222.50 x 12 = 50,670 GBP/yr) (https://"
                        "wageindicator.co.uk/career/role-pay/systems-administrators); plus "
                        "employer National Insurance of 15% above 5,000 GBP (HMRC, from 6 April "
                        "2025)"
                    ),
                    "GBP",
                ),
                "colocation_per_kw_month": f("184.06", _CBRE_ELSEWHERE, "USD"),
            }
        ),
    }
)

COMMON: Mapping[str, Fact] = MappingProxyType(
    {
        "pue": f("1.56", _UPTIME),
        "idle_power_fraction": f(
            "0.25",
            gettext_noop(
                "GPUQuote estimate: no public measurement of a whole GPU node's idle draw found; "
                "GPUs idle far below their rating while CPUs, memory, fans and NICs keep drawing. "
                "For scale: an 8-GPU H100 node peaked at 8.4 kW of its 10.2 kW rating (Latif et "
                "al., IEEE Access 13, 2025)"
            ),
        ),
        "staff_fte_per_server": f(
            "0.05",
            gettext_noop(
                "META Group (2002): 10 to 20 application servers per systems administrator; "
                "GPUQuote takes 20 servers per engineer"
            ),
        ),
        "managed_staff_fte_per_server": f(
            "0.02",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote decision: the host runs power, cooling, parts and OS/driver upkeep; the "
                "customer keeps the application-level work, taken as 40% of the on-premises effort "
                "(0.05 x 0.4). Also applied to cloud GPUs"
            ),
        ),
        "installation_cost": f(
            "0",
            gettext_noop(
                "Not included by default: integration is often bundled in the server price; enter "
                "your integrator's quote"
            ),
            "EUR",
        ),
        "support_pct_per_year": f(
            "0.10",
            gettext_noop(
                # xgettext:no-python-format
                "Hardware maintenance contracts cost 10-12% of the purchase price a year (Library "
                "Technology Reports, https://librarytechnology.org/document/7428) and 10-30% "
                "(TechTarget, 'How to make the most of hardware service contracts'); GPUQuote "
                "takes the low end"
            ),
        ),
        "spares_pct_per_year": f(
            "0",
            gettext_noop(
                "Not included by default: parts replacement is covered by the support contract; "
                "set it if you keep your own spares"
            ),
        ),
        "insurance_pct_per_year": f(
            "0",
            gettext_noop(
                "Not included by default: no public benchmark found; enter your insurer's rate"
            ),
        ),
        "network_per_server_month": f(
            "0",
            gettext_noop(
                "Not included by default: uplink, cross-connects and transit depend on the "
                "colocation contract"
            ),
            "EUR",
        ),
        "software_per_gpu_year": f(
            "0",
            gettext_noop(
                "Open-source stack by default; NVIDIA AI Enterprise lists at 4,500 USD per GPU and "
                "year (NVIDIA, Q3 FY2024 earnings call) and comes with H100 PCIe cards for 5 years"
            ),
            "EUR",
        ),
        "depreciation_years": f(
            "5",
            gettext_noop(
                "IRS Publication 946: computers are 5-year property (MACRS). Used in every region "
                "as the book-value convention; depreciation is reported, not a cash cost"
            ),
        ),
        "residual_value_pct": f("0", gettext_noop("GPUQuote convention: no resale value assumed")),
        "discount_rate": f(
            "0",
            gettext_noop(
                "GPUQuote convention: no discounting unless you set your cost of capital; the net "
                "present value is then shown next to the cash total"
            ),
        ),
        "provider_margin_pct": f(
            "0.20",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote's managed-hosting terms (2026-12-03; staff set them per region in the "
                "admin): 20 % of the fee above the host's cost; each fee it gives is placed in the "
                "band of dated public offers for its GPU class"
            ),
        ),
        "provider_cost_of_capital": f(
            "0.08",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote's managed-hosting terms (2026-12-03; staff set them per region in the "
                "admin): 8 % a year, a planning figure for a hosting business financing its "
                "hardware; compare with the costs of capital by industry A. Damodaran publishes "
                "each January (https://pages.stern.nyu.edu/~adamodar/New_Home_Page/datafile/"
                "wacc.html)"
            ),
        ),
        # The host's own cost base (its halls, power contract and fleet), apart from the
        # customer's: what a GPU host pays, at fleet scale, for the server it rents out.
        "host_pue": f(
            "1.3",
            gettext_noop(
                "Uptime Institute Global Data Center Survey 2024 (reported by cloudnews.tech, "
                "July 2024): the industry average PUE stays flat while new and larger facilities "
                "reach 1.3 or better; a GPU host runs such halls"
            ),
        ),
        "host_space_per_kw_month": f(
            "110",
            gettext_noop(
                # xgettext:no-python-format
                "Cushman & Wakefield, Data Center Development Cost Guide 2025: building one MW of "
                "critical load cost 11.7 million USD on average over 19 US markets; 11,700 USD per "
                "kW paid back over a 15-year facility life (GPUQuote estimate) at the host's 8 % "
                "cost of capital: 109.93 USD per kW and month, rounded"
            ),
            "USD",
        ),
        "host_support_pct_per_year": f(
            "0.04",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote estimate: a fleet keeps its own spares and swaps parts itself instead of "
                "buying a retail contract. Meta's Llama 3 run ('The Llama 3 Herd of Models', July "
                "2024) saw 148 faulty-GPU and 72 HBM3 interruptions in 54 days on 16,384 H100s, "
                "about 9 % of GPUs a year; half of those fall in the vendor's 3-year warranty: "
                "about 4 % of the price a year"
            ),
        ),
        "host_staff_fte_per_server": f(
            "0.01",
            gettext_noop(
                "GPUQuote estimate: at fleet scale one engineer runs about 100 servers with "
                "automated provisioning and monitoring, five times the 20 of an in-house team "
                "(META Group, 2002)"
            ),
        ),
        "host_network_per_server_month": f(
            "30",
            gettext_noop(
                "GPUQuote estimate: the server's share of the host's uplinks, transit and "
                "top-of-rack switch, no public per-server figure found"
            ),
            "EUR",
        ),
        "host_hardware_life_years": f(
            "5",
            gettext_noop(
                "GPU clouds depreciate GPU servers over 4 (Nebius) to 6 years (CoreWeave S-1), "
                "reported by Bizety, 'GPU depreciation: CoreWeave vs Nebius' (23 Sep 2025); "
                "GPUQuote takes the middle, 5 years"
            ),
        ),
        "host_residual_value_pct": f(
            "0.10",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote estimate: a retired GPU server is sold as used hardware; no public "
                "resale series found, 10 % of its price taken"
            ),
        ),
        "host_fleet_occupancy": f(
            "0.80",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote estimate: no public occupancy figure for a GPU hosting fleet found; "
                "TechInsights (The Register, 15 Jan 2024) finds cloud accelerators mostly "
                "under-used, while a host renting whole servers keeps most of them let: 80 % "
                "taken as the planning figure"
            ),
        ),
        "host_setup_cost_per_server": f(
            "200",
            gettext_noop(
                "GPUQuote estimate: racking, cabling and operating-system install, about 4 "
                "technician hours at a fully loaded 50 EUR an hour (French staff cost 75,221 EUR "
                "over about 1,600 working hours a year)"
            ),
            "EUR",
        ),
        "host_setup_cost_per_gpu": f(
            "50",
            gettext_noop(
                "GPUQuote estimate: burn-in and validation at full load, about one technician "
                "hour per GPU at 50 EUR"
            ),
            "EUR",
        ),
        "managed_discount_12m_pct": f(
            "0",
            gettext_noop(
                "GPUQuote's managed-hosting terms (2026-12-03; staff set them per region in the "
                "admin): no discount for a 12-month contract"
            ),
        ),
        "managed_discount_24m_pct": f(
            "0.05",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote's managed-hosting terms (2026-12-03; staff set them per region in the "
                "admin): 5 % off for 24 months, as hosts reward commitment (OVHcloud's SCALE-GPU "
                "bare-metal servers offer 12- and 24-month commitment prices: https://"
                "www.ovhcloud.com/en/bare-metal/scale/, seen 2026-05)"
            ),
        ),
        "managed_discount_36m_pct": f(
            "0.10",
            gettext_noop(
                # xgettext:no-python-format
                "GPUQuote's managed-hosting terms (2026-12-03; staff set them per region in the "
                "admin): 10 % off for 36 months"
            ),
        ),
        "managed_power_included": f(
            "1",
            gettext_noop(
                "Public price list: European bare-metal GPU offers include power, cooling, rack "
                "space and uplink in the monthly fee (Hetzner GEX44: https://www.hetzner.com/"
                "dedicated-rootserver/gex44/, seen 2026-03-16; OVHcloud SCALE-GPU: https://"
                "www.ovhcloud.com/en/bare-metal/scale/, seen 2026-05)"
            ),
        ),
        "cloud_reserved_discount_pct": f(
            "0.30",
            gettext_noop(
                # xgettext:no-python-format
                "One-year commitment discounts: Google Cloud a3-highgpu-1g H100 11.06 -> 7.67 "
                "USD/GPU-hour (-30.6%), Epoch AI, machine learning hardware prices (https://"
                "github.com/epoch-research/training-cost-trends, data/Hardware prices.csv; each "
                "row cites its dated page), https://web.archive.org/web/20250317151647/https://"
                "cloud.google.com/compute/all-pricing, 2025-03-17; Hyperstack H100 PCIe 2.50 -> "
                "1.75 USD (-30%), Public price list, https://www.hyperstack.cloud/gpu-pricing, "
                "2026-08-26"
            ),
        ),
    }
)
