"""The quote document: one context for the PDF, the staff preview and the customer's page.

Everything comes from the revision's frozen lines (priced by ``price_quote``) and the quote's
snapshot; the TCO chart is drawn from the snapshot by ``quotes.pdf.charts``, the same SVG as on
the wizard's result page. Render inside ``translation.override(quote.language)`` for the PDF.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, cast

from django.conf import settings
from django.utils.translation import gettext, ngettext
from stdnum import iban
from stdnum.fr import siren, siret

from engine.commerce.numbering import display_number
from engine.commerce.pricing import QuoteTotals
from gpuquote.core.formatting import money_format
from quotes.advice.presenters import localized_text
from quotes.models import Quote, QuoteLine, QuoteRevision
from quotes.pdf import charts
from quotes.pdf.render import render_pdf
from quotes.sales.selectors import revision_lines_get, revision_totals_get
from quotes.sales.services.common import SERVICE_TIER_ROLE


def _chart(tco: dict[str, Any] | None, currency: str) -> str:
    if not tco:
        return ""
    years = tco["horizon_months"] // 12
    labels = {
        "on_premises": gettext("Buy"),
        "managed": gettext("Managed"),
        "cloud": gettext("Cloud"),
    }
    totals = "; ".join(
        f"{labels[name]}: {money_format(tco['options'][name]['total'], currency, places=0)}"
        for name in charts.SERIES
        if name in tco["options"]
    )
    return charts.cumulative_cost_svg(
        tco,
        text=charts.ChartText(
            title=ngettext(
                "Cumulative cost per month over %(years)s year",
                "Cumulative cost per month over %(years)s years",
                years,
            )
            % {"years": years},
            description=totals,
            series=labels,
            month_axis=gettext("Month"),
            break_even=lambda month: gettext("Break-even: month %(month)s") % {"month": month},
        ),
        money=lambda amount: money_format(amount, currency, places=0),
        element_id="quote-tco-chart",
    )


def seller_details() -> dict[str, Any]:
    """The seller's legal details as a quote prints them (settings ``SELLER_*``, checked at
    start-up), numbers grouped the way people read them; ``sample`` when they are the embedded
    demo company's."""
    return {
        "name": settings.SELLER_NAME,
        "address": settings.SELLER_ADDRESS,
        "siren": siren.format(settings.SELLER_SIREN) if settings.SELLER_SIREN else "",
        "siret": siret.format(settings.SELLER_SIRET) if settings.SELLER_SIRET else "",
        "vat_number": settings.SELLER_VAT_NUMBER,
        "iban": iban.format(settings.SELLER_IBAN) if settings.SELLER_IBAN else "",
        "bic": settings.SELLER_BIC,
        "sample": settings.SELLER_IS_SAMPLE,
        "payment_days": settings.QUOTE_PAYMENT_TERMS_DAYS,
    }


def quote_document_context(
    *, quote: Quote, revision: QuoteRevision | None = None, totals: QuoteTotals | None = None
) -> dict[str, Any]:
    """What the quote document shows (in the active language)."""
    revision = revision or quote.revision
    lines = revision_lines_get(revision=revision)
    if totals is None:
        totals = revision_totals_get(quote=quote, revision=revision, lines=lines)
    rows = [
        {"line": line, "priced": priced} for line, priced in zip(lines, totals.lines, strict=True)
    ]
    snapshot = quote.snapshot or {}
    tco = snapshot.get("tco")
    return {
        "quote": quote,
        "revision": revision,
        "display_number": display_number(quote.number, revision.index),
        "rows": rows,
        "totals": totals,
        "currency": quote.currency,
        "vat_note": localized_text(totals.vat_note) if totals.vat_note else "",
        "vat_rate_pct": totals.vat_rate_pct,
        "has_discount": totals.contract.gross.amount > totals.contract.net.amount,
        "snapshot": snapshot,
        "tco": tco,
        "tco_totals": [
            {"key": name, "total": tco["options"][name]["total"]}
            for name in charts.SERIES
            if tco and name in tco["options"]
        ],
        "chart": _chart(tco, quote.currency),
        "managed_split": _managed_split(tco),
        "service_tier": _service_tier(tco, snapshot, lines),
        "seller": seller_details(),
    }


def _service_tier(
    tco: dict[str, Any] | None, snapshot: dict[str, Any], lines: Sequence[QuoteLine]
) -> dict[str, Any] | None:
    """The support level the quote bills, with what the host does under it, in the quote's
    language as the quote kept it: the one the sales team set on the quote, else the one of the
    customer's result; None when no line bills a tier."""
    billed = next((line for line in lines if line.role == SERVICE_TIER_ROLE), None)
    if billed is None:
        return None
    kept = [snapshot.get("service_tier"), None if not tco else tco.get("service_tier")]
    return next(
        (cast(dict[str, Any], tier) for tier in kept if tier and tier["code"] == billed.sku),
        None,
    )


def _managed_split(tco: dict[str, Any] | None) -> dict[str, Any] | None:
    """The managed-hosting total of the chart, split into the host's fees (what a managed quote
    bills) and the customer's own staff and software, so that the chart and the quote agree."""
    if not tco or not tco["options"].get("managed"):
        return None
    managed = tco["options"]["managed"]
    categories = managed["by_category"]
    fees = sum(
        (
            Decimal(categories[name])
            for name in ("setup", "hosting_fees", "support")  # support: the service tier
            if name in categories
        ),
        Decimal(0),
    )
    total = Decimal(managed["total"])
    return {
        "years": tco["horizon_months"] // 12,
        "fees": fees,
        "own": total - fees,
        "total": total,
    }


def quote_pdf_render(*, quote: Quote, revision: QuoteRevision | None = None) -> bytes:
    """The quote as an A4 PDF, in the active language."""
    return render_pdf("pdf/quote.html", quote_document_context(quote=quote, revision=revision))


def quote_pdf_filename(*, quote: Quote, revision: QuoteRevision) -> str:
    return f"{display_number(quote.number, revision.index)}.pdf"
