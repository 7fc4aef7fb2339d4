"""Reads for sales quotes: the staff dashboard, one quote with its figures, the customer's link.

Totals are never read from the database: ``revision_totals_get`` prices a revision's frozen
lines with ``engine.commerce.pricing.price_quote``, the one place quote figures come from.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from catalog.selectors import catalog_snapshot_get
from engine.advice.pipeline import build_needs
from engine.build.cluster.lines import CLUSTER_ROLES
from engine.build.configuration import BuildNeeds, Environment
from engine.build.hand_build import QuotedPart, ServerReview, server_review
from engine.commerce.pricing import (
    LineKind,
    PricingError,
    QuoteTotals,
    Recurrence,
    price_quote,
)
from engine.commerce.pricing import QuoteLine as EngineLine
from engine.commerce.workflow import QuoteStatus, Role, context_for, rate_deviation_pct
from engine.money import Money, round_money
from engine.workload import WorkloadError, workload_from_dict
from gpuquote.core.choices import values_of
from quotes.models import (
    Quote,
    QuoteEvent,
    QuoteLine,
    QuoteRequest,
    QuoteRequestStatus,
    QuoteRevision,
)


def approval_threshold_pct() -> Decimal:
    """``QUOTE_DISCOUNT_APPROVAL_THRESHOLD_PCT`` as a Decimal."""
    return Decimal(str(settings.QUOTE_DISCOUNT_APPROVAL_THRESHOLD_PCT))


def rate_tolerance_pct() -> Decimal:
    """``QUOTE_EXCHANGE_RATE_TOLERANCE_PCT`` as a Decimal."""
    return Decimal(str(settings.QUOTE_EXCHANGE_RATE_TOLERANCE_PCT))


def validity_max_days() -> int:
    """``QUOTE_VALIDITY_MAX_DAYS``: longer, a quote needs a sales manager's approval."""
    return int(settings.QUOTE_VALIDITY_MAX_DAYS)


def quote_rate_deviation_pct(*, quote: Quote, revision: QuoteRevision) -> Decimal:
    """How far a rate staff typed is from the reference rate of the revision's day (0 for the
    reference rate itself)."""
    list_rate = _list_rate(quote, revision)
    return Decimal(0) if list_rate is None else rate_deviation_pct(*list_rate)


def quote_list(
    *,
    search: str = "",
    status: str = "",
    origin: str = "",
    created_from: dt.date | None = None,
    created_to: dt.date | None = None,
) -> QuerySet[Quote]:
    """The dashboard's list: one query per page (current revision joined, lines counted)."""
    quotes = Quote.objects.select_related("current_revision").annotate(
        line_count=Count("current_revision__lines")
    )
    search = search.strip()
    if search:
        quotes = quotes.filter(
            Q(number__icontains=search)
            | Q(company__icontains=search)
            | Q(contact_name__icontains=search)
            | Q(email__icontains=search)
        )
    if status:
        quotes = quotes.filter(status=status)
    if origin:
        quotes = quotes.filter(origin=origin)
    if created_from:
        quotes = quotes.filter(created_at__date__gte=created_from)
    if created_to:
        quotes = quotes.filter(created_at__date__lte=created_to)
    return quotes.order_by("-created_at", "-id")


def quote_status_counts() -> dict[str, int]:
    """How many quotes are in each status (every status listed, zeros included), one query."""
    counts = dict.fromkeys(values_of(QuoteStatus), 0)
    rows = Quote.objects.values("status").order_by().annotate(n=Count("id"))
    for row in rows:
        counts[row["status"]] = row["n"]
    return counts


def quote_requests_new() -> QuerySet[QuoteRequest]:
    """Wizard quote requests nobody turned into a quote yet, newest first."""
    return QuoteRequest.objects.filter(status=QuoteRequestStatus.NEW).order_by("-created_at")


@dataclass(frozen=True, slots=True)
class ApprovalWaiting:
    """A draft whose effective discount is over the threshold and not covered by an approval."""

    quote: Quote
    effective_discount_pct: Decimal
    approved_discount_pct: Decimal | None
    digest: str = ""  # the content shown, carried by the approve form (revision_digest)
    at_stake: Money | None = None  # contract gross - contract net: what the discount gives away
    cost_margin_pct: Decimal | None = None  # over the lines whose cost we know (hosting)


def quotes_awaiting_approval(*, today: dt.date) -> list[ApprovalWaiting]:
    """The managers' approval queue, oldest change first: drafts with a discount (on the quote
    or a line) whose figures need an approval no manager gave yet (the workflow's own rule,
    ``engine.commerce.workflow``). Two queries: the drafts with a discount, and their lines."""
    threshold = approval_threshold_pct()
    lines = QuoteLine.objects.order_by("position", "id")
    drafts = (
        Quote.objects.filter(status=QuoteStatus.DRAFT)
        .filter(
            Q(current_revision__discount_pct__gt=0)
            | Q(current_revision__lines__discount_pct__gt=0)
            | Q(exchange_rate__isnull=False, exchange_rate_date__isnull=True)  # a typed rate
            | Q(current_revision__lines__kind="part", current_revision__lines__sku="")  # by hand
            | Q(current_revision__lines__floor_unit_price__isnull=False)  # may be below its floor
            | Q(current_revision__valid_until__gt=today + dt.timedelta(days=validity_max_days()))
        )
        .distinct()
        .select_related("current_revision")
        .prefetch_related(Prefetch("current_revision__lines", queryset=lines))
        .order_by("updated_at", "id")
    )
    waiting = []
    for quote in drafts:
        revision = quote.revision
        try:
            totals = revision_totals_get(
                quote=quote, revision=revision, lines=list(revision.lines.all())
            )
        except PricingError:
            continue  # the quote page says what is wrong; nothing to approve until it prices
        context = context_for(
            totals,
            role=Role.SALES_MANAGER,
            today=today,
            valid_until=revision.valid_until,
            approval_threshold_pct=threshold,
            approved_discount_pct=approved_discount_get(
                quote=quote, revision=revision, totals=totals
            ),
            rate_deviation_pct=quote_rate_deviation_pct(quote=quote, revision=revision),
            rate_tolerance_pct=rate_tolerance_pct(),
            validity_max_days=validity_max_days(),
        )
        if context.approval_pending:
            waiting.append(
                ApprovalWaiting(
                    quote,
                    totals.effective_discount_pct,
                    revision.approved_discount_pct,
                    digest=revision_digest(quote=quote, revision=revision, totals=totals),
                    at_stake=Money(
                        totals.contract.gross.amount - totals.contract.net.amount, quote.currency
                    ),
                    cost_margin_pct=totals.cost_margin_pct,
                )
            )
    return waiting


def quote_get(*, pk: int) -> Quote:
    return Quote.objects.select_related("current_revision", "request").get(pk=pk)


def quote_by_token_get(*, token: str) -> Quote:
    return Quote.objects.select_related("current_revision").get(token=token)


def revision_lines_get(*, revision: QuoteRevision) -> list[QuoteLine]:
    return list(revision.lines.order_by("position", "id"))


def revision_digest(*, quote: Quote, revision: QuoteRevision, totals: QuoteTotals) -> str:
    """A digest of what an approval covers: the revision's lines, terms and totals."""
    content = {
        "currency": quote.currency,
        "exchange_rate": str(quote.exchange_rate),
        "customer": [quote.country.code, quote.vat_number, quote.is_business],
        "terms": [str(revision.discount_pct), revision.contract_months, str(revision.valid_until)],
        "lines": [
            [
                p.line.kind,
                p.line.sku,
                p.line.description,
                str(p.line.quantity),
                str(p.line.unit_price.amount),
                str(p.line.discount_pct),
                p.line.recurrence,
                str(p.line.exchange_rate),
            ]
            for p in totals.lines
        ],
        "totals": [str(totals.contract.net.amount), str(totals.effective_discount_pct)],
    }
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def approved_discount_get(
    *, quote: Quote, revision: QuoteRevision, totals: QuoteTotals
) -> Decimal | None:
    """The approval recorded on the revision, if it still covers the revision's content."""
    if revision.approved_discount_pct is None:
        return None
    if revision.approved_digest != revision_digest(quote=quote, revision=revision, totals=totals):
        return None  # the content changed since the manager approved it
    return revision.approved_discount_pct


def _list_rate(quote: Quote, revision: QuoteRevision) -> tuple[Decimal, Decimal] | None:
    """(typed rate, reference rate of the revision's day) when staff typed the quote's rate:
    lines converted at the typed rate are measured against the catalog at the reference."""
    if quote.exchange_rate is None or quote.exchange_rate_date is not None:
        return None
    from quotes.sales.services.exchange import quote_rate_default  # import here: a cycle

    day = timezone.localdate(revision.created_at) if revision.created_at else timezone.localdate()
    reference = quote_rate_default(currency=quote.currency, on=day).rate
    return (quote.exchange_rate, reference)


def _list_unit_price(line: QuoteLine, list_rate: tuple[Decimal, Decimal] | None) -> Money | None:
    """A line converted at a typed rate: its catalog price at the reference rate instead."""
    if list_rate is None or not line.exchange_rate or not line.source_currency:
        return None
    typed, reference = list_rate
    if line.exchange_rate != typed or typed == reference:
        return None
    return Money(round_money(line.unit_price / typed * reference), line.currency)


def _money(amount: Decimal | None, currency: str) -> Money | None:
    return None if amount is None else Money(amount, currency)


def engine_lines(
    lines: list[QuoteLine], list_rate: tuple[Decimal, Decimal] | None = None
) -> tuple[EngineLine, ...]:
    """Stored lines as the pricing core's dataclasses; ``list_rate`` as ``_list_rate``."""
    return tuple(
        EngineLine(
            kind=LineKind(line.kind),
            description=line.description,
            quantity=line.quantity,
            unit_price=Money(line.unit_price, line.currency),
            discount_pct=line.discount_pct,
            recurrence=Recurrence(line.recurrence),
            sku=line.sku or None,
            exchange_rate=line.exchange_rate,
            source_currency=line.source_currency or None,
            list_unit_price=_list_unit_price(line, list_rate),
            floor_unit_price=_money(line.floor_unit_price, line.currency),
            cost_unit_price=_money(line.cost_unit_price, line.currency),
        )
        for line in lines
    )


def revision_totals_get(
    *, quote: Quote, revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> QuoteTotals:
    """The revision's figures, derived from its lines (raises ``PricingError`` on bad input)."""
    if lines is None:
        lines = revision_lines_get(revision=revision)
    return price_quote(
        engine_lines(lines, list_rate=_list_rate(quote, revision)),
        currency=quote.currency,
        quote_discount_pct=revision.discount_pct,
        customer_country=quote.country.code,
        vat_number=quote.vat_number or None,
        is_business=quote.is_business,
        contract_months=revision.contract_months,
    )


def quote_events_get(*, quote: Quote) -> QuerySet[QuoteEvent]:
    return quote.events.select_related("actor", "revision").order_by("created_at", "id")


def quote_revisions_get(*, quote: Quote) -> QuerySet[QuoteRevision]:
    return quote.revisions.order_by("index")


# --- The servers a quote describes, against the builder's rules ----------------------------------


def quote_workload_get(*, quote: Quote) -> tuple[dict | None, Environment]:
    """The workload the quote answers (the wizard's or the one staff chose) and its
    environment; without one, the stricter production environment."""
    inputs = (quote.snapshot or {}).get("inputs") or {}
    workload = inputs.get("workload")
    try:
        environment = Environment(inputs.get("environment") or Environment.PRODUCTION)
    except ValueError:
        environment = Environment.PRODUCTION
    return (workload if isinstance(workload, dict) else None), environment


def _needs(quote: Quote) -> tuple[BuildNeeds | None, Environment]:
    workload, environment = quote_workload_get(quote=quote)
    if workload is None:
        return None, environment
    try:
        parsed = workload_from_dict(workload)
    except WorkloadError:
        return None, environment  # a snapshot from an older engine: general rules only
    inputs = quote.snapshot.get("inputs") or {}
    _sizing, needs = build_needs(
        parsed,
        environment=environment,
        currency=quote.currency,
        growth_gpus=int(inputs.get("growth_gpus") or 0),
    )
    return needs, environment


def quote_server_review_get(
    *, quote: Quote, lines: list[QuoteLine] | None = None
) -> ServerReview | None:
    """The current revision's catalog parts read as servers and checked by the builder's rules
    (``engine.build.hand_build``); None for a quote with no catalog part."""
    if lines is None:
        lines = revision_lines_get(revision=quote.revision)
    snapshot = catalog_snapshot_get(currency=quote.currency)
    specs = {
        spec.sku: spec
        for group in (
            snapshot.chassis,
            snapshot.gpus,
            snapshot.cpus,
            snapshot.memory,
            snapshot.drives,
            snapshot.nics,
        )
        for spec in group
    }
    # Switches, cables and storage servers serve the whole cluster: not parts of a server; nor
    # are the lines a cluster design added (the storage adapters: NICs, but not the server's).
    cluster = {
        spec.sku
        for group in (snapshot.switches, snapshot.cables, snapshot.storage_servers)
        for spec in group
    }
    parts = [
        QuotedPart(sku=line.sku, spec=specs.get(line.sku), quantity=line.quantity, role=line.role)
        for line in lines
        if line.kind == "part"
        and line.sku
        and line.sku not in cluster
        and line.role not in CLUSTER_ROLES
    ]
    needs, environment = _needs(quote)
    return server_review(parts, needs=needs, environment=environment, currency=quote.currency)
