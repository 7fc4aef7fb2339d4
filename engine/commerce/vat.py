"""VAT on a quote: the rate and the legal mention, from the customer's country and status.

The seller is established in France (``SELLER_COUNTRY``). The rule, deliberately simple:

=====================================================  =========  ==============================
Customer                                               Rate       Mention on the quote
=====================================================  =========  ==============================
in France or Monaco (business or consumer)             FR 20      none
in another member state, business, valid VAT number    0          reverse charge (services,
of that country (check digits included)                           article 196) / exempt
                                                                  intra-Community supply (goods,
                                                                  article 138)
in another member state, consumer, or business         FR 20      for a business: why the reverse
without a valid VAT number of that country                        charge does not apply
outside the European Union                             0          export: outside the scope of
                                                                  EU VAT / exempt export
=====================================================  =========  ==============================

Articles are those of Council Directive 2006/112/EC (the VAT Directive).

Simplifications, stated so that nobody mistakes this table for tax advice:

- **EU consumers pay French VAT.** Hosting and cloud services are electronically supplied
  services, and distance sales of parts to consumers are taxed where the consumer is once the
  seller's EU-wide cross-border B2C sales exceed EUR 10,000 a year (article 59c); above that the
  customer's country's rate applies (declared through the One-Stop Shop). The quote charges
  French VAT in every case; ``EU_STANDARD_VAT_RATES_PCT`` holds the other rates for the day the
  threshold is crossed.
- **A VAT number is valid** when it has the customer country's prefix and a national part of
  that country's format with right check digits (python-stdnum's ``stdnum.eu.vat``);
  registration is not verified. Before invoicing without VAT the number must be confirmed in
  VIES (the Commission's VAT Information Exchange System).
- **Goods are assumed to leave France.** Parts delivered in France (for example servers racked
  in the seller's own datacentre for a managed-hosting contract) are a domestic supply and bear
  French VAT whoever the customer is; the quote does not model where parts are delivered.
- **Outside the EU is 0 for everyone.** Services to consumers outside the EU are not all outside
  the scope of EU VAT (article 45 is the general B2C rule; article 59 moves the place of supply
  outside the EU for electronically supplied services, among others), and an export of goods is
  exempt only with proof that they left the EU.
- **Territories follow articles 6 and 7, where they have an ISO code.** Monaco is taxed as France
  (article 7(2)); the Isle of Man as the United Kingdom, outside the EU (article 7(2)); the French
  overseas departments and Saint-Martin, and Åland, are in the EU but outside the territory of
  EU VAT (article 6(1)): an export, with its own mention (their local taxes, such as the DOM's
  VAT and dock dues, are the customer's to account for). Territories without an ISO 3166-1 code
  (Mount Athos, the Canary Islands, Ceuta, Melilla, Heligoland, Büsingen, Livigno, Campione
  d'Italia; Northern Ireland for goods) are not modelled: a customer there is entered under its
  member state and taxed as that state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from stdnum.eu import vat as eu_vat
from stdnum.mc import tva as mc_tva

from ..i18n import Message, gettext_noop

SELLER_COUNTRY = "FR"

# --- Standard VAT rates of the 27 member states, in percent, keyed by ISO 3166-1 alpha-2 code -----
#
# Source: European Commission, DG Taxation and Customs Union, "VAT rates applied in the Member
# States of the European Union", situation at 1 January 2026 (the "VAT rates" page of
# taxation-customs.ec.europa.eu). The changes since the January 2024 edition are in force at that
# date: Finland 25.5 from 1 September 2024, Slovakia 23 from 1 January 2025, Estonia 24 from
# 1 July 2025, Romania 21 from 1 August 2025 (Law 141/2025). Greece is "EL" in EU VAT documents
# and GR in ISO 3166; the table uses ISO codes.
VAT_RATES_AS_OF = date(2026, 1, 1)
VAT_RATES_SOURCE = (
    "European Commission, VAT rates applied in the Member States of the European Union, "
    "situation at 1 January 2026"
)
EU_STANDARD_VAT_RATES_PCT: Mapping[str, Decimal] = MappingProxyType(
    {
        "AT": Decimal(20),
        "BE": Decimal(21),
        "BG": Decimal(20),
        "CY": Decimal(19),
        "CZ": Decimal(21),
        "DE": Decimal(19),
        "DK": Decimal(25),
        "EE": Decimal(24),
        "ES": Decimal(21),
        "FI": Decimal("25.5"),
        "FR": Decimal(20),
        "GR": Decimal(24),
        "HR": Decimal(25),
        "HU": Decimal(27),
        "IE": Decimal(23),
        "IT": Decimal(22),
        "LT": Decimal(21),
        "LU": Decimal(17),
        "LV": Decimal(21),
        "MT": Decimal(18),
        "NL": Decimal(21),
        "PL": Decimal(23),
        "PT": Decimal(23),
        "RO": Decimal(21),
        "SE": Decimal(25),
        "SI": Decimal(22),
        "SK": Decimal(23),
    }
)
EU_MEMBER_STATES = frozenset(EU_STANDARD_VAT_RATES_PCT)
ZERO_RATE_PCT = Decimal(0)

# --- VAT identification numbers ----------------------------------------------------------------
#
# A number is the prefix (the ISO code, but "EL" for Greece) then the national part, whose format
# and check digits python-stdnum knows for every member state (``stdnum.eu.vat``, one module per
# country, each citing its source).
VAT_NUMBER_PREFIXES: Mapping[str, str] = MappingProxyType(
    {country: ("EL" if country == "GR" else country) for country in EU_MEMBER_STATES}
)
# Separators people type inside a VAT number (VIES itself shows Danish numbers in blocks).
_SEPARATORS = re.compile(r"[\s.\-]")
_COUNTRY_CODE = re.compile(r"[A-Z]{2}")
# Codes that look like countries but are not ISO 3166-1: EU VAT prefixes, a common slip.
_NOT_ISO_CODES: Mapping[str, str] = MappingProxyType({"EL": "GR", "UK": "GB"})


# --- Territories whose VAT is not their ISO code's -------------------------------------------
#
# Council Directive 2006/112/EC, article 7(2): transactions with the Principality of Monaco are
# treated as transactions with France, and those with the Isle of Man as with the United Kingdom
# (outside the EU since 2020, so an export; the Sovereign Base Areas, treated as Cyprus, have no
# ISO code). python-stdnum validates Monaco's VAT numbers as French ones (``stdnum.mc.tva``:
# prefix FR, a national part starting 000).
TREATED_AS: Mapping[str, str] = MappingProxyType({"MC": "FR", "IM": "GB"})
# Article 6(1): territories of a member state excluded from the territory of EU VAT (although in
# the EU's customs territory). With an ISO code of their own: the French territories of article
# 349 TFEU (Guadeloupe, French Guiana, Martinique, Réunion, Mayotte, Saint-Martin; Directive
# 2013/61/EU added Mayotte) and the Åland Islands (Finland). A supply there from France is an
# export. (The Channel Islands and Saint-Barthélemy are outside the EU altogether.)
OUTSIDE_VAT_TERRITORY: Mapping[str, str] = MappingProxyType(
    {
        "GP": "FR",
        "GF": "FR",
        "MQ": "FR",
        "RE": "FR",
        "YT": "FR",
        "MF": "FR",
        "AX": "FI",
    }
)


class VatRegime(StrEnum):
    DOMESTIC = "domestic"  # customer in France, or in Monaco (treated as France, article 7)
    EU_FRENCH_VAT = "eu_french_vat"  # other member state, French VAT charged (see module notes)
    REVERSE_CHARGE = "reverse_charge"  # other member state, business with a VAT number
    EXPORT = "export"  # outside the European Union


@dataclass(frozen=True, slots=True)
class VatTreatment:
    """How a quote is taxed: ``rate_pct`` in percent, ``note`` the mention the quote carries."""

    regime: VatRegime
    rate_pct: Decimal
    note: Message | None


class VatError(ValueError):
    """A country code the rule cannot place; ``field`` names the input, ``message`` explains."""

    def __init__(self, field: str, message: Message) -> None:
        super().__init__(message.render())
        self.field = field
        self.message = message


# --- The mentions, by regime and by what the quote supplies --------------------------------------

_REVERSE_CHARGE_NOTES: Mapping[tuple[bool, bool], str] = MappingProxyType(
    {
        # (goods, services)
        (False, True): gettext_noop(
            "Autoliquidation / Reverse charge: the VAT is due by the customer (article 196 of "
            "Council Directive 2006/112/EC)."
        ),
        (True, False): gettext_noop(
            "VAT-exempt intra-Community supply of goods (article 138 of Council Directive "
            "2006/112/EC): the customer accounts for the VAT on the acquisition."
        ),
        (True, True): gettext_noop(
            "Autoliquidation / Reverse charge: the VAT is due by the customer (services: "
            "article 196 of Council Directive 2006/112/EC; goods: VAT-exempt intra-Community "
            "supply, article 138)."
        ),
    }
)
_EXPORT_NOTES: Mapping[tuple[bool, bool], str] = MappingProxyType(
    {
        (False, True): gettext_noop(
            "Export: customer established outside the European Union, services outside the "
            "scope of EU VAT. No VAT charged."
        ),
        (True, False): gettext_noop(
            "Export: goods shipped outside the European Union, exempt from VAT (article 146 of "
            "Council Directive 2006/112/EC). No VAT charged."
        ),
        (True, True): gettext_noop(
            "Export: customer outside the European Union. Services are outside the scope of EU "
            "VAT; goods shipped outside the EU are exempt (article 146 of Council Directive "
            "2006/112/EC). No VAT charged."
        ),
    }
)
_OUTSIDE_VAT_TERRITORY_NOTE = gettext_noop(
    "Export: the customer's territory is part of the European Union but outside the territory "
    "of EU VAT (article 6 of Council Directive 2006/112/EC); goods shipped there are exempt "
    "(article 146). No French VAT charged; local taxes are the customer's."
)
_NO_VALID_NUMBER_NOTE = gettext_noop(
    "French VAT is charged: the reverse charge needs the customer's VAT number of %(country)s "
    "(prefix %(prefix)s followed by the national number)."
)


def is_eu_member(country: str) -> bool:
    return country in EU_MEMBER_STATES


def vat_country(country: str) -> str:
    """The country whose VAT applies in ``country`` (Monaco: France; article 7(2))."""
    return TREATED_AS.get(country, country)


def standard_rate_pct(country: str) -> Decimal:
    """The standard rate in percent of the member state whose VAT applies in ``country``; 0
    outside the territory of EU VAT (no EU VAT)."""
    _check_country(country)
    if country in OUTSIDE_VAT_TERRITORY:
        return ZERO_RATE_PCT
    return EU_STANDARD_VAT_RATES_PCT.get(vat_country(country), ZERO_RATE_PCT)


def vat_number_prefix(country: str) -> str | None:
    """The prefix of a VAT number of ``country`` this module checks: a member state's, and
    France's for Monaco; ``None`` for any other country (numbers kept as typed)."""
    return VAT_NUMBER_PREFIXES.get(vat_country(country))


def normalize_vat_number(vat_number: str) -> str:
    """Upper case, without the spaces, dots and hyphens people type inside the number."""
    return _SEPARATORS.sub("", vat_number).upper()


def vat_number_is_valid(vat_number: str | None, country: str) -> bool:
    """The number has member state ``country``'s prefix and a national part of its format with
    right check digits (python-stdnum; registration is not checked: no VIES). Monaco's numbers
    are French ones with a national part starting 000 (``stdnum.mc.tva``)."""
    prefix = vat_number_prefix(country)
    if not vat_number or prefix is None:
        return False
    number = normalize_vat_number(vat_number)
    if country == "MC":
        return number.startswith(prefix) and bool(mc_tva.is_valid(number))
    return number.startswith(prefix) and bool(eu_vat.is_valid(number))


def vat_treatment(
    *,
    customer_country: str,
    is_business: bool,
    vat_number: str | None,
    supplies_goods: bool,
    supplies_services: bool,
) -> VatTreatment:
    """Apply the module's rule. ``supplies_goods`` / ``supplies_services`` choose the wording of
    the mention (a quote with neither is worded as services)."""
    _check_country(customer_country)
    kinds = (supplies_goods, supplies_services or not supplies_goods)
    french_rate = EU_STANDARD_VAT_RATES_PCT[SELLER_COUNTRY]
    if vat_country(customer_country) == SELLER_COUNTRY:
        return VatTreatment(VatRegime.DOMESTIC, french_rate, None)
    if customer_country in OUTSIDE_VAT_TERRITORY:
        return VatTreatment(VatRegime.EXPORT, ZERO_RATE_PCT, Message(_OUTSIDE_VAT_TERRITORY_NOTE))
    if not is_eu_member(customer_country):
        return VatTreatment(VatRegime.EXPORT, ZERO_RATE_PCT, Message(_EXPORT_NOTES[kinds]))
    if is_business and vat_number_is_valid(vat_number, customer_country):
        reverse_charge_note = Message(_REVERSE_CHARGE_NOTES[kinds])
        return VatTreatment(VatRegime.REVERSE_CHARGE, ZERO_RATE_PCT, reverse_charge_note)
    note: Message | None = None
    if is_business:
        params = {"country": customer_country, "prefix": VAT_NUMBER_PREFIXES[customer_country]}
        note = Message(_NO_VALID_NUMBER_NOTE, MappingProxyType(params))
    return VatTreatment(VatRegime.EU_FRENCH_VAT, french_rate, note)


def _check_country(country: str) -> None:
    if not isinstance(country, str) or _COUNTRY_CODE.fullmatch(country) is None:
        raise VatError(
            "customer_country",
            Message(
                gettext_noop(
                    "The customer's country must be a two-letter ISO 3166-1 code in capitals, "
                    "such as FR or DE."
                )
            ),
        )
    if country in _NOT_ISO_CODES:
        raise VatError(
            "customer_country",
            Message(
                gettext_noop("%(code)s is not an ISO 3166-1 country code; use %(iso)s."),
                MappingProxyType({"code": country, "iso": _NOT_ISO_CODES[country]}),
            ),
        )
