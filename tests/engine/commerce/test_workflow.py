"""The quote status workflow: every transition allowed or refused, roles, validity dates, and the
discount-approval threshold."""

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from engine.commerce.pricing import LineKind, QuoteLine, Recurrence, price_quote
from engine.commerce.workflow import (
    DEFAULT_APPROVAL_THRESHOLD_PCT,
    DEFAULT_VALIDITY_DAYS,
    PERMISSIONS,
    Action,
    QuoteContext,
    QuoteStatus,
    Role,
    TransitionError,
    TransitionResult,
    allowed_actions,
    approval_required,
    context_for,
    rate_deviation_pct,
    transition,
    validity_end,
)
from engine.money import Money

DRAFT, SENT, ACCEPTED, DECLINED, EXPIRED = (
    QuoteStatus.DRAFT,
    QuoteStatus.SENT,
    QuoteStatus.ACCEPTED,
    QuoteStatus.DECLINED,
    QuoteStatus.EXPIRED,
)
VALID_UNTIL = date(2026, 3, 31)
ON_THE_DAY = VALID_UNTIL
DAY_AFTER = VALID_UNTIL + timedelta(days=1)


def context(**changes):
    fields: dict[str, Any] = {
        "role": Role.SALES_MANAGER,
        "today": date(2026, 3, 15),
        "valid_until": VALID_UNTIL,
        "line_count": 3,
        "effective_discount_pct": Decimal(5),
        "approval_threshold_pct": Decimal(10),
        "approved_discount_pct": None,
        "is_latest_revision": True,
    }
    fields.update(changes)
    return QuoteContext(**fields)


def ready_for(action, **changes):
    """A context in which nothing but the status and the role can stop ``action``."""
    if action is Action.EXPIRE:
        changes.setdefault("today", DAY_AFTER)
    if action is Action.APPROVE_DISCOUNT:
        changes.setdefault("effective_discount_pct", Decimal(15))
    return context(**changes)


def refusal(status, action, ctx):
    with pytest.raises(TransitionError) as refused:
        transition(status, action, context=ctx)
    return refused.value.message.render()


# --- Every status x action ----------------------------------------------------------------------

NOT = None  # refused
# fmt: off
TABLE = {
    #          send  accept    decline   expire   revise  approve_discount
    DRAFT:    (SENT, NOT,      NOT,      EXPIRED, NOT,    DRAFT),
    SENT:     (NOT,  ACCEPTED, DECLINED, EXPIRED, DRAFT,  NOT),
    ACCEPTED: (NOT,  NOT,      NOT,      NOT,     NOT,    NOT),
    DECLINED: (NOT,  NOT,      NOT,      NOT,     DRAFT,  NOT),
    EXPIRED:  (NOT,  NOT,      NOT,      NOT,     DRAFT,  NOT),
}
# fmt: on
COLUMNS = (
    Action.SEND,
    Action.ACCEPT,
    Action.DECLINE,
    Action.EXPIRE,
    Action.REVISE,
    Action.APPROVE_DISCOUNT,
)
CASES = [
    (status, action, target)
    for status, targets in TABLE.items()
    for action, target in zip(COLUMNS, targets, strict=True)
]


@pytest.mark.parametrize(
    ("status", "action", "target"), CASES, ids=[f"{s}-{a}" for s, a, _ in CASES]
)
def test_every_transition_is_allowed_or_refused_as_the_table_says(status, action, target):
    ctx = ready_for(action)
    if target is NOT:
        assert "this quote is" in refusal(status, action, ctx)
        assert str(action) not in allowed_actions(status, Role.SALES_MANAGER, ctx)
        return
    result = transition(status, action, context=ctx)
    assert result.status == target
    assert result.new_revision is (action is Action.REVISE)
    assert str(action) in allowed_actions(status, Role.SALES_MANAGER, ctx)


def test_revising_asks_for_a_new_revision_and_approving_records_the_discount():
    assert transition(SENT, Action.REVISE, context=context()) == TransitionResult(
        DRAFT, new_revision=True
    )
    approve = transition(
        DRAFT, Action.APPROVE_DISCOUNT, context=context(effective_discount_pct=Decimal("12.5"))
    )
    assert approve == TransitionResult(DRAFT, approved_discount_pct=Decimal("12.5"))


def test_a_refusal_names_the_status():
    assert refusal(ACCEPTED, Action.REVISE, context()) == (
        "Only a sent, declined or expired quote can be revised; this quote is accepted."
    )


def test_plain_strings_work_and_unknown_ones_are_refused():
    assert transition("draft", "send", context=context()).status == SENT
    assert refusal("archived", "send", context()) == "Unknown quote status archived."
    assert refusal("draft", "publish", context()) == "Unknown action publish."


# --- Roles --------------------------------------------------------------------------------------

START = {
    Action.SEND: DRAFT,
    Action.ACCEPT: SENT,
    Action.DECLINE: SENT,
    Action.EXPIRE: SENT,
    Action.REVISE: DECLINED,
    Action.APPROVE_DISCOUNT: DRAFT,
}
# fmt: off
ROLE_TABLE = {
    #                   send   accept decline expire revise approve_discount
    Role.SALES_REP:     (True,  True,  True,   True,  True,  False),
    Role.SALES_MANAGER: (True,  True,  True,   True,  True,  True),
    Role.SYSTEM:        (False, False, False,  True,  False, False),
}
# fmt: on
ROLE_CASES = [
    (role, action, allowed)
    for role, row in ROLE_TABLE.items()
    for action, allowed in zip(COLUMNS, row, strict=True)
]


@pytest.mark.parametrize(
    ("role", "action", "allowed"), ROLE_CASES, ids=[f"{r}-{a}" for r, a, _ in ROLE_CASES]
)
def test_who_may_do_what(role, action, allowed):
    ctx = ready_for(action, role=role)
    if allowed:
        transition(START[action], action, context=ctx)
    else:
        with pytest.raises(TransitionError):
            transition(START[action], action, context=ctx)


def test_a_manager_can_do_everything_a_rep_can():
    assert PERMISSIONS[Role.SALES_REP] < PERMISSIONS[Role.SALES_MANAGER]


def test_a_rep_is_told_a_manager_must_approve():
    ctx = ready_for(Action.APPROVE_DISCOUNT, role=Role.SALES_REP)
    assert refusal(DRAFT, Action.APPROVE_DISCOUNT, ctx) == (
        "Only a sales manager can approve a discount; you are a sales rep."
    )


def test_the_scheduled_task_may_only_expire():
    assert refusal(DRAFT, Action.SEND, context(role=Role.SYSTEM)) == (
        "A scheduled task cannot send a quote."
    )


# --- Sending ------------------------------------------------------------------------------------


def test_a_quote_without_lines_cannot_be_sent():
    assert refusal(DRAFT, Action.SEND, context(line_count=0)) == (
        "A quote without lines cannot be sent."
    )


def test_a_discount_above_the_threshold_waits_for_a_managers_approval():
    pending = context(role=Role.SALES_REP, effective_discount_pct=Decimal("12.50"))
    assert refusal(DRAFT, Action.SEND, pending) == (
        "The effective discount of 12.50% is above the 10% a sales rep may grant: a sales "
        "manager must approve it before the quote is sent."
    )
    # A manager is held to the same rule: the approval is recorded first, then the quote goes.
    as_manager = context(effective_discount_pct=Decimal("12.50"))
    with pytest.raises(TransitionError):
        transition(DRAFT, Action.SEND, context=as_manager)
    approved = transition(DRAFT, Action.APPROVE_DISCOUNT, context=as_manager)
    after = context(
        role=Role.SALES_REP,
        effective_discount_pct=Decimal("12.50"),
        approved_discount_pct=approved.approved_discount_pct,
    )
    assert transition(DRAFT, Action.SEND, context=after).status == SENT


def test_an_approval_covers_only_the_discount_it_was_given_for():
    lower = context(effective_discount_pct=Decimal(12), approved_discount_pct=Decimal("12.50"))
    higher = context(effective_discount_pct=Decimal(15), approved_discount_pct=Decimal("12.50"))
    assert transition(DRAFT, Action.SEND, context=lower).status == SENT
    assert "must approve it" in refusal(DRAFT, Action.SEND, higher)
    assert transition(DRAFT, Action.APPROVE_DISCOUNT, context=higher).approved_discount_pct == (
        Decimal(15)
    )


def test_nothing_to_approve_and_already_approved_are_refused():
    assert refusal(DRAFT, Action.APPROVE_DISCOUNT, context(effective_discount_pct=Decimal(10))) == (
        "The effective discount of 10% is within the 10% a sales rep may grant: there is "
        "nothing to approve."
    )
    done = context(effective_discount_pct=Decimal(12), approved_discount_pct=Decimal(12))
    assert refusal(DRAFT, Action.APPROVE_DISCOUNT, done) == "A discount of 12% is already approved."


def test_a_draft_past_its_validity_cannot_be_sent():
    assert transition(DRAFT, Action.SEND, context=context(today=ON_THE_DAY)).status == SENT
    assert refusal(DRAFT, Action.SEND, context(today=DAY_AFTER)) == (
        "The quote was valid until 2026-03-31; revise it to make a new one."
    )


# --- Validity -----------------------------------------------------------------------------------


def test_a_quote_is_valid_30_days_by_default():
    assert DEFAULT_VALIDITY_DAYS == 30
    assert validity_end(date(2026, 3, 1)) == VALID_UNTIL
    assert validity_end(date(2026, 3, 1), 45) == date(2026, 4, 15)
    with pytest.raises(ValueError, match="at least 1"):
        validity_end(date(2026, 3, 1), 0)


@pytest.mark.parametrize("action", [Action.ACCEPT, Action.DECLINE])
def test_the_customer_can_answer_on_the_last_valid_day_but_not_after(action):
    assert transition(SENT, action, context=context(today=ON_THE_DAY)).status in {
        ACCEPTED,
        DECLINED,
    }
    assert refusal(SENT, action, context(today=DAY_AFTER)) == (
        "The quote was valid until 2026-03-31; revise it to make a new one."
    )


@pytest.mark.parametrize("status", [DRAFT, SENT])
def test_a_quote_expires_the_day_after_its_validity_date(status):
    assert refusal(status, Action.EXPIRE, context(today=ON_THE_DAY)) == (
        "The quote is valid until 2026-03-31; it cannot expire before."
    )
    ctx = context(today=DAY_AFTER, role=Role.SYSTEM)
    assert transition(status, Action.EXPIRE, context=ctx).status == EXPIRED


# --- Revisions ----------------------------------------------------------------------------------


def test_only_the_latest_revision_moves_but_an_old_one_still_expires():
    old = context(is_latest_revision=False)
    assert refusal(SENT, Action.ACCEPT, old) == (
        "A newer revision of this quote exists; work on that one."
    )
    lapsed = context(is_latest_revision=False, today=DAY_AFTER)
    assert transition(SENT, Action.EXPIRE, context=lapsed).status == EXPIRED


# --- What the UI offers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "role", "changes", "expected"),
    [
        (DRAFT, Role.SALES_REP, {}, ("send",)),
        (DRAFT, Role.SALES_REP, {"effective_discount_pct": Decimal(15)}, ()),
        (DRAFT, Role.SALES_MANAGER, {"effective_discount_pct": Decimal(15)}, ("approve_discount",)),
        (
            DRAFT,
            Role.SALES_REP,
            {"effective_discount_pct": Decimal(15), "approved_discount_pct": Decimal(15)},
            ("send",),
        ),
        (DRAFT, Role.SALES_REP, {"line_count": 0}, ()),
        (DRAFT, Role.SALES_REP, {"today": DAY_AFTER}, ("expire",)),
        (SENT, Role.SALES_REP, {}, ("accept", "decline", "revise")),
        (SENT, Role.SALES_REP, {"today": DAY_AFTER}, ("revise", "expire")),
        (SENT, Role.SYSTEM, {"today": DAY_AFTER}, ("expire",)),
        (SENT, Role.SALES_REP, {"is_latest_revision": False}, ()),
        (ACCEPTED, Role.SALES_MANAGER, {"today": DAY_AFTER}, ()),
        (DECLINED, Role.SALES_REP, {}, ("revise",)),
        (EXPIRED, Role.SALES_MANAGER, {"today": DAY_AFTER}, ("revise",)),
    ],
)
def test_allowed_actions(status, role, changes, expected):
    assert allowed_actions(status, role, context(**changes)) == expected


def test_allowed_actions_takes_the_role_argument_over_the_contexts():
    ctx = context(role=Role.SALES_MANAGER, effective_discount_pct=Decimal(15))
    assert allowed_actions(DRAFT, "sales_rep", ctx) == ()


# --- The approval threshold on priced quotes ----------------------------------------------------


def priced(discount_pct="0", quote_discount_pct="0"):
    line = QuoteLine(
        kind=LineKind.PART,
        description="GPU server",
        sku="GPU-SERVER",  # a catalog part: a part priced by hand always needs approval
        quantity=Decimal(1),
        unit_price=Money(Decimal("10000.00"), "EUR"),
        discount_pct=Decimal(discount_pct),
    )
    return price_quote(
        [line],
        currency="EUR",
        quote_discount_pct=Decimal(quote_discount_pct),
        customer_country="FR",
        is_business=True,
    )


@pytest.mark.parametrize(
    ("line_pct", "quote_pct", "effective", "required"),
    [
        ("10", "0", "10.00", False),  # 10,000.00 -> 9,000.00: exactly the threshold
        ("10.01", "0", "10.01", True),  # 10,000.00 -> 8,999.00
        ("0", "10", "10.00", False),
        ("0", "10.01", "10.01", True),
        # 10 % then 0.01 %: 9,000.00 - 0.90 = 8,999.10, 10.009 % -> shown 10.01: approval
        ("10", "0.01", "10.01", True),
        ("5", "5", "9.75", False),  # 10,000 -> 9,500 -> 9,025
    ],
)
def test_the_threshold_boundary(line_pct, quote_pct, effective, required):
    totals = priced(line_pct, quote_pct)
    assert totals.effective_discount_pct == Decimal(effective)
    assert approval_required(totals, Decimal(10)) is required
    assert approval_required(totals) is required  # the default threshold is 10
    ctx = context_for(totals, role=Role.SALES_REP, today=ON_THE_DAY, valid_until=VALID_UNTIL)
    assert (Action.SEND in allowed_actions(DRAFT, Role.SALES_REP, ctx)) is not required


def test_the_threshold_is_a_parameter():
    assert Decimal(10) == DEFAULT_APPROVAL_THRESHOLD_PCT
    totals = priced("15")
    assert approval_required(totals, Decimal(15)) is False
    assert approval_required(totals, Decimal("14.99")) is True
    with pytest.raises(ValueError, match="0 to 100"):
        approval_required(totals, Decimal(101))


# --- A typed exchange rate away from the day's reference rate ----------------------------------


def test_rate_deviation_is_in_percent_of_the_reference_rounded_up():
    assert rate_deviation_pct(Decimal("0.95"), Decimal("1")) == Decimal("5.00")
    assert rate_deviation_pct(Decimal("1.000001"), Decimal("1")) == Decimal("0.01")
    assert rate_deviation_pct(Decimal("1"), Decimal("1")) == Decimal("0.00")


def test_a_rate_beyond_the_tolerance_needs_approval_even_without_a_discount():
    off = context(
        role=Role.SALES_REP,
        effective_discount_pct=Decimal(0),
        rate_deviation_pct=Decimal("2.01"),
        rate_tolerance_pct=Decimal(2),
    )
    with pytest.raises(TransitionError, match="away from the day's reference rate"):
        transition(QuoteStatus.DRAFT, Action.SEND, context=off)
    approved = context(
        effective_discount_pct=Decimal(0),
        rate_deviation_pct=Decimal("2.01"),
        rate_tolerance_pct=Decimal(2),
    )
    assert transition(QuoteStatus.DRAFT, Action.APPROVE_DISCOUNT, context=approved) == (
        TransitionResult(QuoteStatus.DRAFT, approved_discount_pct=Decimal(0))
    )


def test_a_rate_exactly_at_the_tolerance_needs_no_approval():
    at = context(role=Role.SALES_REP, rate_deviation_pct=Decimal(2), rate_tolerance_pct=Decimal(2))
    assert transition(QuoteStatus.DRAFT, Action.SEND, context=at).status == QuoteStatus.SENT


def test_a_part_priced_by_hand_needs_approval_whatever_its_discount():
    by_hand = price_quote(
        [
            QuoteLine(
                kind=LineKind.PART,
                description="H100",
                quantity=Decimal(8),
                unit_price=Money(Decimal("1.00"), "EUR"),
            )
        ],
        currency="EUR",
        customer_country="FR",
        is_business=True,
    )
    assert (by_hand.effective_discount_pct, by_hand.hand_priced_parts) == (Decimal(0), 1)
    ctx = context_for(by_hand, role=Role.SALES_REP, today=ON_THE_DAY, valid_until=VALID_UNTIL)
    with pytest.raises(TransitionError, match="A part priced by hand"):
        transition(DRAFT, Action.SEND, context=ctx)


def _hosting(*, fee: str, cost: str, discount_pct: str = "0", quote_discount_pct: str = "0"):
    """Two managed servers for 36 months at ``fee`` a month each, whose floor (the hardware's
    payback) is ``cost`` and which cost the host 900 each."""
    return price_quote(
        [
            QuoteLine(
                kind=LineKind.SERVICE,
                description="Managed hosting",
                quantity=Decimal(2),
                unit_price=Money(Decimal(fee), "EUR"),
                discount_pct=Decimal(discount_pct),
                recurrence=Recurrence.MONTHLY,
                floor_unit_price=Money(Decimal(cost), "EUR"),
                cost_unit_price=Money(Decimal("900.00"), "EUR"),
            )
        ],
        currency="EUR",
        quote_discount_pct=Decimal(quote_discount_pct),
        customer_country="FR",
        is_business=True,
        contract_months=36,
    )


@pytest.mark.parametrize(
    ("discount_pct", "quote_discount_pct", "below", "margin"),
    [
        ("0", "0", 0, "10.00"),  # 1,000 billed, a floor of 950, 900 of cost
        ("5", "0", 0, "5.26"),  # 950: exactly the floor
        ("8", "0", 1, "2.17"),  # 920 < 950, under the 10 % discount threshold
        ("3", "3", 1, "4.35"),  # the quote's discount counts too: 940.90 < 950
    ],
)
def test_a_fee_discounted_below_its_floor_needs_approval_under_the_threshold(
    discount_pct, quote_discount_pct, below, margin
):
    totals = _hosting(
        fee="1000.00",
        cost="950.00",
        discount_pct=discount_pct,
        quote_discount_pct=quote_discount_pct,
    )

    assert (totals.below_floor_lines, totals.cost_margin_pct) == (below, Decimal(margin))
    assert totals.effective_discount_pct < Decimal(10)
    ctx = context_for(totals, role=Role.SALES_REP, today=ON_THE_DAY, valid_until=VALID_UNTIL)
    assert ctx.approval_required is bool(below)
    if below:
        with pytest.raises(TransitionError, match="below their floor"):
            transition(DRAFT, Action.SEND, context=ctx)


def test_lines_without_a_cost_have_no_margin():
    plain = price_quote(
        [
            QuoteLine(
                kind=LineKind.SERVICE,
                description="Installation",
                quantity=Decimal(1),
                unit_price=Money(Decimal("500.00"), "EUR"),
            )
        ],
        currency="EUR",
        customer_country="FR",
        is_business=True,
    )
    assert (plain.below_floor_lines, plain.cost_margin_pct) == (0, None)
