"""E-mail: the sent quote to the customer, the customer's answer and each new quote request to
the sales team. Each message goes out once: an event (a flag, for a request, which has no quote
yet) records it and a retried task finds it."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from gpuquote.core.text import single_line
from quotes.models import (
    Quote,
    QuoteEvent,
    QuoteEventKind,
    QuoteRequest,
    QuoteRevision,
)
from quotes.sales.request_summary import quote_request_summary_get
from quotes.sales.services.common import event_record


def quote_email_send(*, quote_id: int, revision_id: int) -> bool:
    """E-mail a sent revision's PDF to the customer, once: a second run (a retried task) finds
    the ``email_sent`` event and sends nothing. Returns whether a message went out."""
    from quotes.pdf.quote import quote_pdf_filename, quote_pdf_render

    with transaction.atomic():
        revision = (
            QuoteRevision.objects.select_for_update().select_related("quote").get(pk=revision_id)
        )
        quote = revision.quote
        if quote.pk != quote_id:
            raise ValueError("the revision belongs to another quote")
        already = QuoteEvent.objects.filter(
            quote=quote, revision=revision, kind=QuoteEventKind.EMAIL_SENT
        ).exists()
        if already:
            return False
        with translation.override(quote.language):
            document = quote_pdf_render(quote=quote, revision=revision)
            link = quote_customer_link(quote)
            context = {"quote": quote, "revision": revision, "link": link}
            # One line whatever a stored name holds: a line break would be a BadHeaderError.
            subject = single_line(render_to_string("email/quote_subject.txt", context))
            body = render_to_string("email/quote_sent.txt", context)
            filename = quote_pdf_filename(quote=quote, revision=revision)
        message = EmailMessage(subject=subject, body=body, to=[quote.email])
        message.attach(filename, document, "application/pdf")
        message.send()
        event_record(
            quote,
            QuoteEventKind.EMAIL_SENT,
            revision=revision,
            data={"to": quote.email, "attachment": filename},
        )
    return True


def quote_answer_notify(*, event_id: int) -> bool:
    """Tell the sales team (``SALES_NOTIFICATION_EMAIL``) what a customer answered, once: the
    answer's row is locked and a ``staff_notified`` event records the message, so a retried or
    duplicated task finds it and sends nothing. Returns whether a message went out."""
    with transaction.atomic():
        event = (
            QuoteEvent.objects.select_for_update(of=("self",))
            .select_related("quote")
            .filter(pk=event_id)
            .first()
        )
        if event is None:
            return False
        quote = event.quote
        already = QuoteEvent.objects.filter(
            quote=quote, kind=QuoteEventKind.STAFF_NOTIFIED, data__answer_event=event.pk
        ).exists()
        if already:
            return False
        context = {"quote": quote, "event": event, "accepted": event.to_status == "accepted"}
        subject = single_line(render_to_string("email/answer_subject.txt", context))
        body = render_to_string("email/answer_notification.txt", context)
        EmailMessage(subject=subject, body=body, to=[settings.SALES_NOTIFICATION_EMAIL]).send()
        event_record(
            quote,
            QuoteEventKind.STAFF_NOTIFIED,
            revision=event.revision,
            data={"answer_event": event.pk, "to": settings.SALES_NOTIFICATION_EMAIL},
        )
    return True


def approval_waiting_notify(*, event_id: int) -> bool:
    """E-mail the sales managers (every active member of the managers' group with an address;
    ``SALES_NOTIFICATION_EMAIL`` when none has one) that a quote waits for their approval, with
    what they will be asked to approve: the effective discount, the amount at stake and the
    margin over our cost. Once per request: a ``staff_notified`` event records the message."""
    from quotes.sales.selectors import revision_totals_get

    with transaction.atomic():
        event = (
            QuoteEvent.objects.select_for_update(of=("self",))
            .select_related("quote", "revision")
            .filter(pk=event_id, kind=QuoteEventKind.APPROVAL_REQUESTED)
            .first()
        )
        if event is None:
            return False
        quote, revision = event.quote, event.revision
        already = QuoteEvent.objects.filter(
            quote=quote, kind=QuoteEventKind.STAFF_NOTIFIED, data__approval_event=event.pk
        ).exists()
        if already or revision is None:
            return False
        totals = revision_totals_get(quote=quote, revision=revision)
        recipients = _managers_emails() or [settings.SALES_NOTIFICATION_EMAIL]
        link = settings.SITE_URL.rstrip("/") + reverse("sales:dashboard")
        context = {
            "quote": quote,
            "revision": revision,
            "totals": totals,
            "at_stake": totals.contract.gross.amount - totals.contract.net.amount,
            "link": f"{link}#approval-{quote.pk}",
        }
        subject = single_line(render_to_string("email/approval_subject.txt", context))
        body = render_to_string("email/approval_waiting.txt", context)
        EmailMessage(subject=subject, body=body, to=recipients).send()
        event_record(
            quote,
            QuoteEventKind.STAFF_NOTIFIED,
            revision=revision,
            data={"approval_event": event.pk, "to": recipients},
        )
    return True


def _managers_emails() -> list[str]:
    from django.contrib.auth import get_user_model

    from gpuquote.core.roles import MANAGER_GROUP

    users = get_user_model().objects.filter(is_active=True, groups__name=MANAGER_GROUP)
    return sorted(set(users.exclude(email="").values_list("email", flat=True)))


def quote_request_notify(*, request_id: int) -> bool:
    """E-mail the sales team (``SALES_NOTIFICATION_EMAIL``) about a new quote request: who asks,
    the configuration and amount of their result, and the link to the dashboard. Once: the
    request's row is locked and ``staff_notified_at`` set in the same transaction, so a retried
    or duplicated task sends nothing. Returns whether a message went out."""
    with transaction.atomic():
        request = (
            QuoteRequest.objects.select_for_update(of=("self",))
            .select_related("result")
            .filter(pk=request_id)
            .first()
        )
        if request is None or request.staff_notified_at is not None:
            return False
        link = settings.SITE_URL.rstrip("/") + reverse("sales:dashboard")
        context = {
            "request": request,
            "summary": quote_request_summary_get(quote_request=request),
            "link": f"{link}#request-{request.pk}",
        }
        # One line whatever a stored name holds: a line break would be a BadHeaderError.
        subject = single_line(render_to_string("email/request_subject.txt", context))
        body = render_to_string("email/request_notification.txt", context)
        message = EmailMessage(subject=subject, body=body, to=[settings.SALES_NOTIFICATION_EMAIL])
        message.reply_to = [request.email]
        message.send()
        request.staff_notified_at = timezone.now()
        request.save(update_fields=["staff_notified_at"])
    return True


def quote_customer_link(quote: Quote) -> str:
    """The customer's private link as the e-mail gives it and staff paste it: ``SITE_URL`` and
    the quote's path (it opens once a revision was sent)."""
    return settings.SITE_URL.rstrip("/") + quote_public_url(quote)


def quote_public_url(quote: Quote) -> str:
    """The path of the customer's private link (the e-mail prefixes ``settings.SITE_URL``)."""
    from django.urls import reverse

    return reverse("sales:quote_public", kwargs={"token": quote.token})
