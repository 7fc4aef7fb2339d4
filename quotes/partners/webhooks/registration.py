"""A partner's webhooks: register (the signing secret is generated), change, delete."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from quotes.models import WEBHOOK_EVENTS, Partner, Webhook
from quotes.partners.webhooks.url_policy import webhook_url_clean

WEBHOOKS_PER_PARTNER_MAX = 10


def _events_clean(events: Iterable[str] | None) -> list[str]:
    if events is None:
        return list(WEBHOOK_EVENTS)
    chosen = list(dict.fromkeys(events))  # de-duplicated, order kept
    unknown = [event for event in chosen if event not in WEBHOOK_EVENTS]
    if unknown:
        raise ValidationError(
            {
                "events": [
                    _("Unknown events %(unknown)s; choose among %(known)s.")
                    % {"unknown": ", ".join(unknown), "known": ", ".join(WEBHOOK_EVENTS)}
                ]
            }
        )
    if not chosen:
        raise ValidationError({"events": [_("Choose at least one event.")]})
    return chosen


@transaction.atomic
def webhook_create(*, partner: Partner, url: str, events: Iterable[str] | None = None) -> Webhook:
    """Register a receiver; its signing secret is generated (show it to the partner once)."""
    url, chosen = webhook_url_clean(url), _events_clean(events)
    Partner.objects.select_for_update().filter(pk=partner.pk).first()  # serialise the count
    if Webhook.objects.filter(partner=partner).count() >= WEBHOOKS_PER_PARTNER_MAX:
        raise ValidationError(
            {
                "non_field_errors": [
                    _("A partner may register at most %(max)d webhooks; delete one first.")
                    % {"max": WEBHOOKS_PER_PARTNER_MAX}
                ]
            }
        )
    return Webhook.objects.create(partner=partner, url=url, events=chosen)


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    url: str | None = None,
    events: Iterable[str] | None = None,
    is_active: bool | None = None,
) -> Webhook:
    """Change what is given (None: unchanged). The secret never changes."""
    changed: list[str] = []
    if url is not None:
        webhook.url = webhook_url_clean(url)
        changed.append("url")
    if events is not None:
        webhook.events = _events_clean(events)
        changed.append("events")
    if is_active is not None:
        webhook.is_active = is_active
        changed.append("is_active")
    if changed:
        webhook.save(update_fields=changed)
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete the webhook with its deliveries and their attempts."""
    webhook.delete()
