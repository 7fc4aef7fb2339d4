"""Writes for sales quotes, split by concern: ``numbering``, ``create``, ``lines`` (editing and
revisions), ``workflow`` (approval, sending, answers, expiry), ``notify`` (e-mail) and ``build``
(a staff quote made from a workload). ``common`` holds what they share.

The public services are re-exported here, so callers write ``from quotes.sales import services``
and ``services.quote_send(...)``.
"""

from gpuquote.core.roles import MANAGER_GROUP, REP_GROUP, user_role
from quotes.sales.services.common import (
    NOTIFY_APPROVAL_WAITING_TASK,
    NOTIFY_QUOTE_ANSWER_TASK,
    NOTIFY_QUOTE_REQUEST_TASK,
    SEND_QUOTE_EMAIL_TASK,
    LineInput,
    User,
)
from quotes.sales.services.create import (
    quote_create,
    quote_create_from_request,
    quote_create_from_result,
)
from quotes.sales.services.lines import (
    quote_customer_update,
    quote_line_add,
    quote_line_add_part,
    quote_line_remove,
    quote_line_update,
    quote_reprice,
    quote_terms_update,
)
from quotes.sales.services.notify import (
    approval_waiting_notify,
    quote_answer_notify,
    quote_customer_link,
    quote_email_send,
    quote_public_url,
    quote_request_notify,
)
from quotes.sales.services.numbering import quote_sequence_next
from quotes.sales.services.workflow import (
    quote_answer_record,
    quote_approval_request,
    quote_customer_answer,
    quote_discount_approve,
    quote_expire_due,
    quote_send,
    totals_to_dict,
)

__all__ = [
    "MANAGER_GROUP",
    "NOTIFY_APPROVAL_WAITING_TASK",
    "NOTIFY_QUOTE_ANSWER_TASK",
    "NOTIFY_QUOTE_REQUEST_TASK",
    "REP_GROUP",
    "SEND_QUOTE_EMAIL_TASK",
    "LineInput",
    "User",
    "approval_waiting_notify",
    "quote_answer_notify",
    "quote_answer_record",
    "quote_approval_request",
    "quote_create",
    "quote_create_from_request",
    "quote_create_from_result",
    "quote_customer_answer",
    "quote_customer_link",
    "quote_customer_update",
    "quote_discount_approve",
    "quote_email_send",
    "quote_expire_due",
    "quote_line_add",
    "quote_line_add_part",
    "quote_line_remove",
    "quote_line_update",
    "quote_public_url",
    "quote_reprice",
    "quote_request_notify",
    "quote_send",
    "quote_sequence_next",
    "quote_terms_update",
    "totals_to_dict",
    "user_role",
]
