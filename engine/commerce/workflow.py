"""A quote's life: statuses, who may move it, and the discount-approval rule.

::

    draft ---send---> sent ---accept---> accepted (final)
      |                 |  ---decline--> declined
      |                 |
      +---expire---> expired <---expire--+

    sent, declined or expired ---revise---> a new revision, in draft

- **send** (draft -> sent): refused without lines, after the validity date, and while the
  discount needs a sales manager's approval that was not given.
- **accept / decline** (sent -> accepted / declined): refused after the validity date; the quote
  stays valid through ``valid_until`` itself.
- **expire** (draft or sent -> expired): only once today is after ``valid_until``. The
  scheduled expiry runs as ``Role.SYSTEM``, which may do nothing else.
- **revise** (sent, declined or expired -> draft): the quote is not changed; a new revision is
  created as a draft (``TransitionResult.new_revision``). Accepted quotes are final.
- **approve_discount** (draft, status unchanged): a sales manager approves the current
  effective discount (``TransitionResult.approved_discount_pct`` is what to record). An
  approval covers discounts up to the approved figure: raising the discount afterwards needs a
  new approval.

Only the latest revision of a quote moves, except for expiry, so that an older revision
still marked sent cannot be accepted once a newer one exists.

Discount approval: a sales rep may grant an effective discount (``pricing.effective_discount_pct``,
over the whole contract) up to a threshold, 10 % by default; the threshold itself is a setting
of the web application and is passed in. Exactly the threshold needs no approval; anything
above it does. An exchange rate staff typed more than a tolerance (also a setting, passed in)
away from the day's reference rate needs approval too, whichever way it departs, and so does
a part priced by hand (``QuoteTotals.hand_priced_parts``: no catalog price to measure it by).
So does a validity beyond policy (``validity_needs_approval``): a quote still open more than
``validity_max_days`` (a setting, passed in) after today holds its frozen prices and exchange
rates that long.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import ROUND_CEILING, Decimal
from enum import StrEnum
from types import MappingProxyType
from typing import TypeVar

from ..i18n import Message, gettext_noop
from .pricing import QuoteTotals

DEFAULT_VALIDITY_DAYS = 30
DEFAULT_APPROVAL_THRESHOLD_PCT = Decimal(10)
DEFAULT_RATE_TOLERANCE_PCT = Decimal(2)


class QuoteStatus(StrEnum):
    DRAFT = "draft"
    SENT = "sent"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"


class Action(StrEnum):
    SEND = "send"
    ACCEPT = "accept"
    DECLINE = "decline"
    EXPIRE = "expire"
    REVISE = "revise"
    APPROVE_DISCOUNT = "approve_discount"


class Role(StrEnum):
    SALES_REP = "sales_rep"
    SALES_MANAGER = "sales_manager"
    SYSTEM = "system"  # the scheduled expiry task


# --- The rules, as data ------------------------------------------------------------------------

# Which statuses an action starts from, and the status it leads to (approve_discount: unchanged).
SOURCES: Mapping[Action, frozenset[QuoteStatus]] = MappingProxyType(
    {
        Action.SEND: frozenset({QuoteStatus.DRAFT}),
        Action.ACCEPT: frozenset({QuoteStatus.SENT}),
        Action.DECLINE: frozenset({QuoteStatus.SENT}),
        Action.EXPIRE: frozenset({QuoteStatus.DRAFT, QuoteStatus.SENT}),
        Action.REVISE: frozenset({QuoteStatus.SENT, QuoteStatus.DECLINED, QuoteStatus.EXPIRED}),
        Action.APPROVE_DISCOUNT: frozenset({QuoteStatus.DRAFT}),
    }
)
TARGETS: Mapping[Action, QuoteStatus] = MappingProxyType(
    {
        Action.SEND: QuoteStatus.SENT,
        Action.ACCEPT: QuoteStatus.ACCEPTED,
        Action.DECLINE: QuoteStatus.DECLINED,
        Action.EXPIRE: QuoteStatus.EXPIRED,
        Action.REVISE: QuoteStatus.DRAFT,  # the new revision's status
    }
)
_REP_ACTIONS = frozenset({Action.SEND, Action.ACCEPT, Action.DECLINE, Action.EXPIRE, Action.REVISE})
PERMISSIONS: Mapping[Role, frozenset[Action]] = MappingProxyType(
    {
        Role.SALES_REP: _REP_ACTIONS,
        Role.SALES_MANAGER: _REP_ACTIONS | {Action.APPROVE_DISCOUNT},
        Role.SYSTEM: frozenset({Action.EXPIRE}),
    }
)
# The order the UI lists the actions in.
ACTION_ORDER = (
    Action.APPROVE_DISCOUNT,
    Action.SEND,
    Action.ACCEPT,
    Action.DECLINE,
    Action.REVISE,
    Action.EXPIRE,
)

STATUS_LABELS: Mapping[QuoteStatus, Message] = MappingProxyType(
    {
        QuoteStatus.DRAFT: Message(gettext_noop("draft")),
        QuoteStatus.SENT: Message(gettext_noop("sent")),
        QuoteStatus.ACCEPTED: Message(gettext_noop("accepted")),
        QuoteStatus.DECLINED: Message(gettext_noop("declined")),
        QuoteStatus.EXPIRED: Message(gettext_noop("expired")),
    }
)
ROLE_LABELS: Mapping[Role, Message] = MappingProxyType(
    {
        Role.SALES_REP: Message(gettext_noop("sales rep")),
        Role.SALES_MANAGER: Message(gettext_noop("sales manager")),
        Role.SYSTEM: Message(gettext_noop("scheduled task")),
    }
)
# Why an action is refused from a status it does not start from.
_WRONG_STATUS: Mapping[Action, str] = MappingProxyType(
    {
        Action.SEND: gettext_noop("Only a draft can be sent; this quote is %(status)s."),
        Action.ACCEPT: gettext_noop("Only a sent quote can be accepted; this quote is %(status)s."),
        Action.DECLINE: gettext_noop(
            "Only a sent quote can be declined; this quote is %(status)s."
        ),
        Action.EXPIRE: gettext_noop(
            "Only a draft or a sent quote can expire; this quote is %(status)s."
        ),
        Action.REVISE: gettext_noop(
            "Only a sent, declined or expired quote can be revised; this quote is %(status)s."
        ),
        Action.APPROVE_DISCOUNT: gettext_noop(
            "A discount is approved before the quote is sent; this quote is %(status)s."
        ),
    }
)
ACTION_LABELS: Mapping[Action, Message] = MappingProxyType(
    {
        Action.SEND: Message(gettext_noop("send")),
        Action.ACCEPT: Message(gettext_noop("accept")),
        Action.DECLINE: Message(gettext_noop("decline")),
        Action.EXPIRE: Message(gettext_noop("expire")),
        Action.REVISE: Message(gettext_noop("revise")),
        Action.APPROVE_DISCOUNT: Message(gettext_noop("approve the discount")),
    }
)
_NOT_PERMITTED: Mapping[Action, str] = MappingProxyType(
    {
        Action.APPROVE_DISCOUNT: gettext_noop(
            "Only a sales manager can approve a discount; you are a %(role)s."
        ),
    }
)
_NOT_PERMITTED_DEFAULT = gettext_noop("A %(role)s cannot %(action)s a quote.")
_UNKNOWN_STATUS = gettext_noop("Unknown quote status %(value)s.")
_UNKNOWN_ACTION = gettext_noop("Unknown action %(value)s.")
_UNKNOWN_ROLE = gettext_noop("Unknown role %(value)s.")


class TransitionError(ValueError):
    """An action the quote or the user cannot take; ``message`` says why."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.render())
        self.message = message


@dataclass(frozen=True, slots=True)
class QuoteContext:
    """What the rules need to know besides the status, fetched by the caller.

    ``effective_discount_pct`` comes from ``QuoteTotals`` (see ``context_for``);
    ``approved_discount_pct`` is the discount a manager approved, ``None`` when none was.
    """

    role: Role
    today: date
    valid_until: date
    line_count: int
    effective_discount_pct: Decimal
    approval_threshold_pct: Decimal = DEFAULT_APPROVAL_THRESHOLD_PCT
    approved_discount_pct: Decimal | None = None
    is_latest_revision: bool = True
    rate_deviation_pct: Decimal = Decimal(0)  # the typed rate's distance from the reference
    rate_tolerance_pct: Decimal = DEFAULT_RATE_TOLERANCE_PCT
    hand_priced_parts: int = 0
    below_floor_lines: int = 0
    validity_max_days: int | None = None  # None: no validity policy

    @property
    def is_past_validity(self) -> bool:
        return self.today > self.valid_until

    @property
    def rate_needs_approval(self) -> bool:
        return self.rate_deviation_pct > self.rate_tolerance_pct

    @property
    def approval_required(self) -> bool:
        return (
            self.rate_needs_approval
            or self.hand_priced_parts > 0
            or self.below_floor_lines > 0
            or validity_needs_approval(self.valid_until, self.today, self.validity_max_days)
            or discount_needs_approval(self.effective_discount_pct, self.approval_threshold_pct)
        )

    @property
    def approval_pending(self) -> bool:
        """Approval is required and no approval covers the current discount."""
        return self.approval_required and (
            self.approved_discount_pct is None
            or self.effective_discount_pct > self.approved_discount_pct
        )


@dataclass(frozen=True, slots=True)
class TransitionResult:
    """``status``: the quote's status afterwards, or for ``revise`` the new revision's.
    ``new_revision``: create revision n + 1 (as a draft) and leave this one as it is.
    ``approved_discount_pct``: for ``approve_discount``, the approval to record."""

    status: QuoteStatus
    new_revision: bool = False
    approved_discount_pct: Decimal | None = None


def validity_end(issued_on: date, days: int = DEFAULT_VALIDITY_DAYS) -> date:
    """The last day a quote issued on ``issued_on`` can be accepted."""
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ValueError("the validity is a whole number of days, at least 1")
    return issued_on + timedelta(days=days)


def rate_deviation_pct(rate: Decimal, reference: Decimal) -> Decimal:
    """How far ``rate`` is from ``reference``, in percent of it, rounded up to 0.01."""
    if reference <= 0:
        raise ValueError("a reference rate is positive")
    return (abs(rate - reference) * 100 / reference).quantize(
        Decimal("0.01"), rounding=ROUND_CEILING
    )


def validity_needs_approval(valid_until: date, today: date, max_days: int | None) -> bool:
    """Whether a quote valid until ``valid_until`` stays open longer than a sales rep may grant:
    more than ``max_days`` after ``today`` (``None``: no limit)."""
    return max_days is not None and (valid_until - today).days > max_days


def discount_needs_approval(effective_discount_pct: Decimal, threshold_pct: Decimal) -> bool:
    if not Decimal(0) <= threshold_pct <= Decimal(100):
        raise ValueError("the approval threshold is a percentage from 0 to 100")
    return effective_discount_pct > threshold_pct


def approval_required(
    quote_totals: QuoteTotals, threshold: Decimal = DEFAULT_APPROVAL_THRESHOLD_PCT
) -> bool:
    """Whether the quote's effective discount is above what a sales rep may grant."""
    return discount_needs_approval(quote_totals.effective_discount_pct, threshold)


def context_for(
    quote_totals: QuoteTotals,
    *,
    role: Role,
    today: date,
    valid_until: date,
    approval_threshold_pct: Decimal = DEFAULT_APPROVAL_THRESHOLD_PCT,
    approved_discount_pct: Decimal | None = None,
    is_latest_revision: bool = True,
    rate_deviation_pct: Decimal = Decimal(0),
    rate_tolerance_pct: Decimal = DEFAULT_RATE_TOLERANCE_PCT,
    validity_max_days: int | None = None,
) -> QuoteContext:
    return QuoteContext(
        role=role,
        today=today,
        valid_until=valid_until,
        line_count=len(quote_totals.lines),
        effective_discount_pct=quote_totals.effective_discount_pct,
        approval_threshold_pct=approval_threshold_pct,
        approved_discount_pct=approved_discount_pct,
        is_latest_revision=is_latest_revision,
        rate_deviation_pct=rate_deviation_pct,
        rate_tolerance_pct=rate_tolerance_pct,
        hand_priced_parts=quote_totals.hand_priced_parts,
        below_floor_lines=quote_totals.below_floor_lines,
        validity_max_days=validity_max_days,
    )


def transition(
    current: QuoteStatus | str, action: Action | str, *, context: QuoteContext
) -> TransitionResult:
    """Take ``action`` on a quote in status ``current``, or raise ``TransitionError``."""
    status = _parse(QuoteStatus, current, _UNKNOWN_STATUS)
    act = _parse(Action, action, _UNKNOWN_ACTION)
    refusal = _refusal(status, act, context)
    if refusal is not None:
        raise TransitionError(refusal)
    if act is Action.APPROVE_DISCOUNT:
        return TransitionResult(status, approved_discount_pct=context.effective_discount_pct)
    return TransitionResult(TARGETS[act], new_revision=act is Action.REVISE)


def allowed_actions(
    status: QuoteStatus | str, role: Role | str, context: QuoteContext
) -> tuple[str, ...]:
    """The actions ``role`` can take now, in display order (``ACTION_ORDER``).

    ``role`` overrides ``context.role``, so one context serves every role."""
    parsed = _parse(QuoteStatus, status, _UNKNOWN_STATUS)
    who = _parse(Role, role, _UNKNOWN_ROLE)
    as_role = replace(context, role=who)
    return tuple(str(act) for act in ACTION_ORDER if _refusal(parsed, act, as_role) is None)


# --- The checks, in the order a user is told about them ----------------------------------------


def _refusal(status: QuoteStatus, action: Action, ctx: QuoteContext) -> Message | None:
    if action not in PERMISSIONS[ctx.role]:
        template = _NOT_PERMITTED.get(action, _NOT_PERMITTED_DEFAULT)
        return _msg(template, role=ROLE_LABELS[ctx.role], action=ACTION_LABELS[action])
    if status not in SOURCES[action]:
        return _msg(_WRONG_STATUS[action], status=STATUS_LABELS[status])
    if not ctx.is_latest_revision and action is not Action.EXPIRE:
        return _msg(gettext_noop("A newer revision of this quote exists; work on that one."))
    return _RULES[action](ctx)


def _send(ctx: QuoteContext) -> Message | None:
    if ctx.line_count < 1:
        return _msg(gettext_noop("A quote without lines cannot be sent."))
    if ctx.is_past_validity:
        return _past_validity(ctx)
    if ctx.approval_pending and validity_needs_approval(
        ctx.valid_until, ctx.today, ctx.validity_max_days
    ):
        return _validity_over_policy(ctx)
    over_threshold = discount_needs_approval(ctx.effective_discount_pct, ctx.approval_threshold_pct)
    if ctx.approval_pending and not over_threshold and ctx.hand_priced_parts:
        return _msg(
            gettext_noop(
                "A part priced by hand has no catalog price to measure its discount against: a "
                "sales manager must approve it before the quote is sent."
            )
        )
    if ctx.approval_pending and not over_threshold and ctx.below_floor_lines:
        return _msg(
            gettext_noop(
                "%(count)s line(s) would be billed below their floor (a managed server's fee "
                "below the payback of its hardware over the contract): a sales manager must "
                "approve it before the quote is sent."
            ),
            count=ctx.below_floor_lines,
        )
    if ctx.approval_pending and not over_threshold:
        return _msg(
            gettext_noop(
                "The exchange rate is %(deviation)s%% away from the day's reference rate, more "
                "than the %(tolerance)s%% a sales rep may set: a sales manager must approve it "
                "before the quote is sent."
            ),
            deviation=ctx.rate_deviation_pct,
            tolerance=ctx.rate_tolerance_pct,
        )
    if ctx.approval_pending:
        return _msg(
            gettext_noop(
                "The effective discount of %(discount)s%% is above the %(threshold)s%% a sales "
                "rep may grant: a sales manager must approve it before the quote is sent."
            ),
            discount=ctx.effective_discount_pct,
            threshold=ctx.approval_threshold_pct,
        )
    return None


def _answer(ctx: QuoteContext) -> Message | None:
    return _past_validity(ctx) if ctx.is_past_validity else None


def _expire(ctx: QuoteContext) -> Message | None:
    if ctx.is_past_validity:
        return None
    return _msg(
        gettext_noop("The quote is valid until %(valid_until)s; it cannot expire before."),
        valid_until=ctx.valid_until,
    )


def _revise(ctx: QuoteContext) -> Message | None:
    return None


def _approve(ctx: QuoteContext) -> Message | None:
    if not ctx.approval_required:
        return _msg(
            gettext_noop(
                "The effective discount of %(discount)s%% is within the %(threshold)s%% a sales "
                "rep may grant: there is nothing to approve."
            ),
            discount=ctx.effective_discount_pct,
            threshold=ctx.approval_threshold_pct,
        )
    if not ctx.approval_pending:
        return _msg(
            gettext_noop("A discount of %(approved)s%% is already approved."),
            approved=ctx.approved_discount_pct,
        )
    return None


_RULES = MappingProxyType(
    {
        Action.SEND: _send,
        Action.ACCEPT: _answer,
        Action.DECLINE: _answer,
        Action.EXPIRE: _expire,
        Action.REVISE: _revise,
        Action.APPROVE_DISCOUNT: _approve,
    }
)


def _past_validity(ctx: QuoteContext) -> Message:
    return _msg(
        gettext_noop("The quote was valid until %(valid_until)s; revise it to make a new one."),
        valid_until=ctx.valid_until,
    )


def _validity_over_policy(ctx: QuoteContext) -> Message:
    return _msg(
        gettext_noop(
            "The quote is valid until %(valid_until)s, more than the %(days)s days a sales rep "
            "may grant: a sales manager must approve it before the quote is sent."
        ),
        valid_until=ctx.valid_until,
        days=ctx.validity_max_days,
    )


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


_E = TypeVar("_E", bound=StrEnum)


def _parse(kind: type[_E], value: object, template: str) -> _E:
    if not isinstance(value, str):  # an enum member is a str too
        raise TransitionError(_msg(template, value=value))
    try:
        return kind(value)
    except ValueError:
        raise TransitionError(_msg(template, value=value)) from None
