"""A sales quote's figures: lines, discounts, VAT and totals that always add up.

Per line (``PricedLine``; a monthly line's figures are per month)
    gross     quantity x unit price, rounded to cents
    net       quantity x unit price x (1 - line discount), rounded to cents
    discount  gross - net

Per recurrence (``Amounts``: the one-off lines, the monthly lines)
    gross - line_discounts = lines_net          (sums of the line figures)
    quote_discount = lines_net x quote discount, rounded to cents
    net = lines_net - quote_discount            the subtotal, VAT's base
    vat = net x VAT rate, rounded to cents      computed on the rounded net
    total = net + vat

Combined
    first_invoice = one_off + monthly                   (figure by figure)
    contract      = one_off + contract_months x monthly (figure by figure)

Rounding is ``round_money`` (half up), applied to each line and to each quote discount and VAT
amount; every other figure is a sum or a whole multiple of rounded figures, so every figure is a
``Decimal`` in cents and the identities above hold exactly. The combined figures add the VAT of
each part rather than recomputing it on the combined net: that is the VAT of the one-off invoice
and of each monthly invoice, which is what the customer will pay.

Currency: one per quote (``CURRENCIES``). A line whose catalog price was in the other currency
carries its ``unit_price`` already converted, with the ``exchange_rate`` and ``source_currency``
used recorded next to it; this module never converts.

The effective discount (what the discount-approval rule looks at) is over the whole contract:
1 - contract net / contract gross list price, in percent, rounded *up* to 0.01 so that the figure
shown never understates the discount and the rule compares exactly the figure shown. The list
price is the catalog's: a line may carry ``list_unit_price`` (its catalog price converted at the
day's reference rate) when its own unit price was reached another way (a rate typed by staff);
the measure is then the larger of the discount against the quote's own gross and the discount
against the catalog, so no price path lowers a price past the rule unseen. A part priced by hand
(no SKU: goods with no catalog price to measure against) is counted in ``hand_priced_parts``;
the approval rule (``workflow``) sends such a quote to a manager whatever its discount.

A line may also carry ``floor_unit_price``, the lowest price it may be billed at without a
manager (a managed server's fee never goes below the payback of its hardware over the term,
``engine.tco.hosting.TermFee.floor``), and ``cost_unit_price``, what one unit costs the seller
(the host's monthly cost of that server, ``ProviderCost``). A line whose net, after its own and
the quote's discount, is below its floor is counted in ``below_floor_lines`` (a manager approves
it, whatever the discount); the lines with a cost give the quote's margin over cost,
``cost_margin_pct``, shown to the manager who approves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from enum import StrEnum
from types import MappingProxyType

from ..i18n import Message, gettext_noop
from ..money import CURRENCIES, Money, round_money
from .vat import VatError, VatRegime, vat_treatment

MIN_PCT = Decimal(0)
MAX_PCT = Decimal(100)
PCT_STEP = Decimal("0.01")  # discounts are percentages with at most two decimals
MAX_CONTRACT_MONTHS = 120
# Guards against absurd input, far above any real quote, so that Decimal arithmetic (28
# significant digits) stays exact to the cent.
MAX_QUANTITY = Decimal(1_000_000)
MAX_UNIT_PRICE = Decimal(1_000_000_000)

_ZERO = Decimal("0.00")
_HUNDRED = Decimal(100)


class LineKind(StrEnum):
    PART = "part"  # goods
    SERVICE = "service"


class Recurrence(StrEnum):
    ONE_OFF = "one_off"
    MONTHLY = "monthly"


_KINDS = frozenset(LineKind)
_RECURRENCES = frozenset(Recurrence)


class PricingError(ValueError):
    """Input the quote cannot be priced with: ``field`` names it (``lines[2].quantity``),
    ``message`` says what is allowed."""

    def __init__(self, field: str, message: Message) -> None:
        super().__init__(f"{field}: {message.render()}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class QuoteLine:
    """One line as quoted. ``unit_price`` is in the quote's currency; when the catalog price was
    in the other currency, ``source_currency`` names it and ``exchange_rate`` is the rate used
    (quote currency per unit of the source currency: unit price = catalog price x rate)."""

    kind: LineKind
    description: str
    quantity: Decimal
    unit_price: Money
    discount_pct: Decimal = Decimal(0)
    recurrence: Recurrence = Recurrence.ONE_OFF
    sku: str | None = None
    exchange_rate: Decimal | None = None
    source_currency: str | None = None
    list_unit_price: Money | None = None  # the catalog's price, when unit_price departs from it
    floor_unit_price: Money | None = None  # the lowest unit price billed without a manager
    cost_unit_price: Money | None = None  # what one unit costs the seller, when known


@dataclass(frozen=True, slots=True)
class PricedLine:
    line: QuoteLine
    gross: Money
    discount: Money
    net: Money

    @property
    def list_gross(self) -> Decimal:
        """Quantity x the catalog's unit price (the line's own when it carries none)."""
        if self.line.list_unit_price is None:
            return self.gross.amount
        return round_money(Decimal(self.line.quantity) * self.line.list_unit_price.amount)


@dataclass(frozen=True, slots=True)
class Amounts:
    """One set of figures; see the module docstring for how they relate."""

    gross: Money
    line_discounts: Money
    lines_net: Money
    quote_discount: Money
    net: Money
    vat: Money
    total: Money

    def plus(self, other: Amounts, times: int = 1) -> Amounts:
        """``self + times x other``, figure by figure."""
        pairs = zip(_figures(self), _figures(other), strict=True)
        return Amounts(*(mine + theirs * times for mine, theirs in pairs))


@dataclass(frozen=True, slots=True)
class QuoteTotals:
    currency: str
    lines: tuple[PricedLine, ...]
    one_off: Amounts
    monthly: Amounts  # per month
    contract_months: int
    first_invoice: Amounts  # one-off + first month
    contract: Amounts  # one-off + contract_months x monthly
    quote_discount_pct: Decimal
    effective_discount_pct: Decimal  # over the contract, rounded up to 0.01
    vat_regime: VatRegime
    vat_rate_pct: Decimal
    vat_note: Message | None
    hand_priced_parts: int = 0  # part lines without a SKU: no catalog price to measure against
    below_floor_lines: int = 0  # lines billed, after every discount, under their floor
    cost_margin_pct: Decimal | None = None  # (net - cost) / net over the lines with a cost

    @property
    def has_monthly_lines(self) -> bool:
        return any(p.line.recurrence == Recurrence.MONTHLY for p in self.lines)


def price_quote(
    lines: Sequence[QuoteLine],
    *,
    currency: str,
    quote_discount_pct: Decimal = Decimal(0),
    customer_country: str,
    vat_number: str | None = None,
    is_business: bool,
    contract_months: int = 0,
) -> QuoteTotals:
    """Price a quote. ``contract_months`` (1 to ``MAX_CONTRACT_MONTHS``) is required as soon as
    one line is monthly; without monthly lines it may be 0 and the contract is the one-off part.
    Raises ``PricingError`` naming the first offending input."""
    _check_currency("currency", currency)
    quote_discount_pct = _check_pct("quote_discount_pct", quote_discount_pct)
    _check_months(contract_months, needed=any(_is_monthly(line) for line in lines))
    for index, line in enumerate(lines):
        _check_line(f"lines[{index}]", line, currency)
    try:
        treatment = vat_treatment(
            customer_country=customer_country,
            is_business=is_business,
            vat_number=vat_number,
            supplies_goods=any(line.kind == LineKind.PART for line in lines),
            supplies_services=any(line.kind == LineKind.SERVICE for line in lines),
        )
    except VatError as error:
        raise PricingError(error.field, error.message) from error

    priced = tuple(_price_line(line) for line in lines)

    def group(recurrence: Recurrence) -> Amounts:
        members = [p for p in priced if p.line.recurrence == recurrence]
        return _amounts(members, currency, quote_discount_pct, treatment.rate_pct)

    one_off = group(Recurrence.ONE_OFF)
    monthly = group(Recurrence.MONTHLY)
    contract = one_off.plus(monthly, contract_months)
    below_floor, cost_margin = _cost_figures(priced, quote_discount_pct)
    list_gross = sum(
        (p.list_gross * (contract_months if _is_monthly(p.line) else 1) for p in priced), _ZERO
    )
    return QuoteTotals(
        currency=currency,
        lines=priced,
        one_off=one_off,
        monthly=monthly,
        contract_months=contract_months,
        first_invoice=one_off.plus(monthly),
        contract=contract,
        quote_discount_pct=quote_discount_pct,
        effective_discount_pct=max(
            effective_discount_pct(contract), _discount_pct(contract.net.amount, list_gross)
        ),
        vat_regime=treatment.regime,
        vat_rate_pct=treatment.rate_pct,
        vat_note=treatment.note,
        hand_priced_parts=sum(1 for line in lines if line.kind == LineKind.PART and not line.sku),
        below_floor_lines=below_floor,
        cost_margin_pct=cost_margin,
    )


def _cost_figures(
    priced: Sequence[PricedLine], quote_discount_pct: Decimal
) -> tuple[int, Decimal | None]:
    """``below_floor_lines`` and ``cost_margin_pct`` (per month for monthly lines: a monthly
    line's net and cost are both per month, so the margin is the same over any number)."""
    keep = (_HUNDRED - quote_discount_pct) / _HUNDRED

    def billed(p: PricedLine) -> Decimal:
        return p.net.amount * keep

    def total(p: PricedLine, price: Money | None) -> Decimal:
        return Decimal(p.line.quantity) * (_ZERO if price is None else price.amount)

    floored = [p for p in priced if p.line.floor_unit_price is not None]
    below = sum(1 for p in floored if billed(p) < total(p, p.line.floor_unit_price))
    costed = [p for p in priced if p.line.cost_unit_price is not None]
    net_sum = sum((billed(p) for p in costed), _ZERO)
    cost_sum = sum((total(p, p.line.cost_unit_price) for p in costed), _ZERO)
    margin = None
    if costed and net_sum:
        margin = ((net_sum - cost_sum) * _HUNDRED / net_sum).quantize(PCT_STEP)
    return below, margin


def effective_discount_pct(amounts: Amounts) -> Decimal:
    """1 - net / gross in percent, rounded up to 0.01; 0 when there is no list price."""
    return _discount_pct(amounts.net.amount, amounts.gross.amount)


def _discount_pct(net: Decimal, gross: Decimal) -> Decimal:
    if not gross:
        return _ZERO
    return ((gross - net) * _HUNDRED / gross).quantize(PCT_STEP, rounding=ROUND_CEILING)


# --- Computation -----------------------------------------------------------------------------


def _price_line(line: QuoteLine) -> PricedLine:
    exact = Decimal(line.quantity) * line.unit_price.amount
    gross = round_money(exact)
    net = round_money(exact * (_HUNDRED - Decimal(line.discount_pct)) / _HUNDRED)
    currency = line.unit_price.currency
    return PricedLine(
        line=line,
        gross=Money(gross, currency),
        discount=Money(gross - net, currency),
        net=Money(net, currency),
    )


def _amounts(
    priced: Sequence[PricedLine], currency: str, quote_discount_pct: Decimal, vat_rate_pct: Decimal
) -> Amounts:
    gross = sum((p.gross.amount for p in priced), _ZERO)
    lines_net = sum((p.net.amount for p in priced), _ZERO)
    quote_discount = round_money(lines_net * quote_discount_pct / _HUNDRED)
    net = lines_net - quote_discount
    vat = round_money(net * vat_rate_pct / _HUNDRED)
    figures = (gross, gross - lines_net, lines_net, quote_discount, net, vat, net + vat)
    return Amounts(*(Money(figure, currency) for figure in figures))


def _figures(amounts: Amounts) -> tuple[Money, ...]:
    return (
        amounts.gross,
        amounts.line_discounts,
        amounts.lines_net,
        amounts.quote_discount,
        amounts.net,
        amounts.vat,
        amounts.total,
    )


# --- Validation ------------------------------------------------------------------------------


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


def _is_monthly(line: QuoteLine) -> bool:
    return line.recurrence == Recurrence.MONTHLY


def _number(field: str, value: object) -> Decimal:
    """A Decimal (or int) that is finite; floats are a programming error, never rounded here."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int):
        raise TypeError(f"{field} must be a Decimal, not {type(value).__name__}")
    number = Decimal(value)
    if not number.is_finite():
        raise PricingError(field, _msg(gettext_noop("Enter a number.")))
    return number


def _check_pct(field: str, value: object) -> Decimal:
    pct = _number(field, value)
    if not MIN_PCT <= pct <= MAX_PCT or pct != pct.quantize(PCT_STEP):
        raise PricingError(
            field,
            _msg(
                gettext_noop(
                    "A discount is a percentage from %(min)s to %(max)s with at most two decimals."
                ),
                min=MIN_PCT,
                max=MAX_PCT,
            ),
        )
    return pct


def _check_currency(field: str, currency: object) -> None:
    if currency not in CURRENCIES:
        raise PricingError(
            field,
            _msg(
                gettext_noop("The currency must be one of %(currencies)s."),
                currencies=", ".join(CURRENCIES),
            ),
        )


def _check_months(months: object, *, needed: bool) -> None:
    if isinstance(months, bool) or not isinstance(months, int):
        raise TypeError(f"contract_months must be an int, not {type(months).__name__}")
    low = 1 if needed else 0
    if not low <= months <= MAX_CONTRACT_MONTHS:
        template = (
            gettext_noop(
                "A quote with monthly lines needs a contract length from %(min)s to %(max)s months."
            )
            if needed
            else gettext_noop("The contract length must be from %(min)s to %(max)s months.")
        )
        raise PricingError("contract_months", _msg(template, min=low, max=MAX_CONTRACT_MONTHS))


def _check_line(field: str, line: QuoteLine, currency: str) -> None:
    if line.kind not in _KINDS:
        raise PricingError(
            f"{field}.kind",
            _msg(gettext_noop("A line is a part or a service.")),
        )
    if line.recurrence not in _RECURRENCES:
        raise PricingError(
            f"{field}.recurrence",
            _msg(gettext_noop("A line is one-off or monthly.")),
        )
    if not isinstance(line.description, str) or not line.description.strip():
        raise PricingError(
            f"{field}.description", _msg(gettext_noop("Describe what the line sells."))
        )
    if line.sku is not None and (not isinstance(line.sku, str) or not line.sku.strip()):
        raise PricingError(
            f"{field}.sku", _msg(gettext_noop("Leave the SKU empty or give a non-blank one."))
        )
    quantity = _number(f"{field}.quantity", line.quantity)
    if not Decimal(0) < quantity <= MAX_QUANTITY:
        raise PricingError(
            f"{field}.quantity",
            _msg(
                gettext_noop("The quantity must be above 0 and at most %(max)s."),
                max=MAX_QUANTITY,
            ),
        )
    _check_unit_price(f"{field}.unit_price", line.unit_price, currency)
    if line.list_unit_price is not None:
        _check_unit_price(f"{field}.list_unit_price", line.list_unit_price, currency)
    for name in ("floor_unit_price", "cost_unit_price"):
        if getattr(line, name) is not None:
            _check_unit_price(f"{field}.{name}", getattr(line, name), currency)
    _check_pct(f"{field}.discount_pct", line.discount_pct)
    _check_conversion(field, line, currency)


def _check_unit_price(field: str, price: Money, currency: str) -> None:
    if not isinstance(price, Money):
        raise TypeError(f"{field} must be Money, not {type(price).__name__}")
    if price.currency != currency:
        raise PricingError(
            field,
            _msg(
                gettext_noop(
                    "The unit price must be in the quote's currency, %(currency)s; convert it "
                    "and record the exchange rate."
                ),
                currency=currency,
            ),
        )
    amount = _number(field, price.amount)
    if not Decimal(0) <= amount <= MAX_UNIT_PRICE:
        raise PricingError(
            field,
            _msg(
                gettext_noop("The unit price must be from 0 to %(max)s %(currency)s."),
                max=MAX_UNIT_PRICE,
                currency=currency,
            ),
        )


def _check_conversion(field: str, line: QuoteLine, currency: str) -> None:
    rate, source = line.exchange_rate, line.source_currency
    if rate is None and source is None:
        return
    if source is None or source not in CURRENCIES or source == currency:
        others = ", ".join(c for c in CURRENCIES if c != currency)
        raise PricingError(
            f"{field}.source_currency",
            _msg(
                gettext_noop(
                    "A converted price records the catalog currency it came from: one of "
                    "%(currencies)s."
                ),
                currencies=others,
            ),
        )
    if rate is None or not _number(f"{field}.exchange_rate", rate) > 0:
        raise PricingError(
            f"{field}.exchange_rate",
            _msg(
                gettext_noop(
                    "A converted price records the exchange rate used, a number above 0 "
                    "(%(currency)s per %(source)s)."
                ),
                currency=currency,
                source=source,
            ),
        )
