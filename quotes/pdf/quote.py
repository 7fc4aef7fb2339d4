"""The quote document: one context for the PDF, the staff preview and the customer's page.

Everything comes from the revision's frozen lines (priced by ``price_quote``) and the quote's
snapshot; the TCO chart is drawn from the snapshot's ``TcoResult`` (decoded once, engine codec)
by ``quotes.pdf.charts``, the same SVG as on the wizard's result page.
Render inside ``translation.override(quote.language)`` for the PDF.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, cast

from django.conf import settings
from django.utils import translation
from stdnum import iban
from stdnum.fr import siren, siret

from engine.advice.codec import decode
from engine.commerce.numbering import display_number
from engine.commerce.pricing import QuoteTotals
from engine.tco import Category, TcoResult
from gpuquote.core.formatting import money_format
from quotes.advice.labels import WAY_SHORT_LABELS
from quotes.advice.presenters import cents, localized_text, service_tier_to_dict
from quotes.advice.store import result_from_json
from quotes.models import Quote, QuoteLine, QuoteRevision, WizardResult
from quotes.pdf import charts
from quotes.pdf.render import render_pdf
from quotes.sales.selectors import revision_lines_get, revision_totals_get
from quotes.sales.services.common import SERVICE_TIER_ROLE


def _chart(tco: TcoResult | None, currency: str) -> str:
    if tco is None:
        return ""
    options = tco.options
    totals = "; ".join(
        f"{WAY_SHORT_LABELS[way]}: {money_format(cents(options[way].total), currency, places=0)}"
        for way in charts.SERIES
        if way in options
    )
    return charts.cumulative_cost_svg(
        tco,
        text=charts.chart_text(tco, description=totals),
        money=lambda amount: money_format(amount, currency, places=0),
        element_id="quote-tco-chart",
    )


def snapshot_tco_get(snapshot: Mapping[str, Any]) -> TcoResult | None:
    """The TCO of the customer's result the quote was made from, as the engine computed it:
    decoded once from the snapshot (``tco_result``, written by the engine codec), or, for a
    quote made before the snapshot kept it, from the stored result its token names; None for a
    quote without one."""
    stored = snapshot.get("tco_result")
    if stored is not None:
        return decode(TcoResult, stored)
    token = snapshot.get("result_token")
    if not token or not snapshot.get("tco"):
        return None
    result = WizardResult.objects.filter(token=token).only("result").first()
    advice = None if result is None else result_from_json(result.result)
    return None if advice is None else advice.tco


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
    tco = snapshot_tco_get(snapshot)
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
            {"key": str(way), "total": cents(tco.options[way].total)}
            for way in charts.SERIES
            if tco and way in tco.options
        ],
        "chart": _chart(tco, quote.currency),
        "managed_split": _managed_split(tco),
        "service_tier": _service_tier(tco, snapshot, lines, language=quote.language),
        "seller": seller_details(),
    }


def _service_tier(
    tco: TcoResult | None,
    snapshot: Mapping[str, Any],
    lines: Sequence[QuoteLine],
    *,
    language: str,
) -> dict[str, Any] | None:
    """The support level the quote bills, with what the host does under it, in the quote's
    language: the one the sales team set on the quote (as they set it), else the one of the
    customer's result; None when no line bills a tier."""
    billed = next((line for line in lines if line.role == SERVICE_TIER_ROLE), None)
    if billed is None:
        return None
    set_by_sales = snapshot.get("service_tier")
    if set_by_sales and set_by_sales["code"] == billed.sku:
        return cast(dict[str, Any], set_by_sales)
    tier = None if tco is None else tco.service_tier
    if tier is None or tier.code != billed.sku:
        return None
    with translation.override(language):
        return service_tier_to_dict(tier)


def _managed_split(tco: TcoResult | None) -> dict[str, Any] | None:
    """The managed-hosting total of the chart, split into the host's fees (what a managed quote
    bills) and the customer's own staff and software, so that the chart and the quote agree."""
    managed = None if tco is None else tco.managed
    if tco is None or managed is None:
        return None
    categories = managed.by_category
    fees = sum(
        (
            cents(categories[name])
            for name in (Category.SETUP, Category.HOSTING_FEES, Category.SUPPORT)  # support: the
            if name in categories  # service tier
        ),
        Decimal(0),
    )
    total = cents(managed.total)
    return {
        "years": tco.horizon_months // 12,
        "fees": fees,
        "own": total - fees,
        "total": total,
    }


def quote_pdf_render(*, quote: Quote, revision: QuoteRevision | None = None) -> bytes:
    """The quote as an A4 PDF, in the active language."""
    return render_pdf("pdf/quote.html", quote_document_context(quote=quote, revision=revision))


def quote_pdf_filename(*, quote: Quote, revision: QuoteRevision) -> str:
    return f"{display_number(quote.number, revision.index)}.pdf"
