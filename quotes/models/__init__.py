"""The quotes app's models, one module per domain (one app, one migration history):
``advice`` (regional assumptions, wizard results, quote requests), ``sales`` (quotes, revisions,
lines, events, numbering), ``partners`` (the partner API: keys, webhooks, idempotency) and
``outbox`` (after-commit jobs). Every model and public name is re-exported here, so
``from quotes.models import Quote`` works whatever module holds it.
"""

from quotes.models.advice import (
    QuoteRequest,
    QuoteRequestStatus,
    RegionAssumption,
    WizardResult,
    country_iso2_condition,
    result_token_new,
)
from quotes.models.outbox import OutboxJob
from quotes.models.partners import (
    WEBHOOK_EVENTS,
    ApiKey,
    DeliveryStatus,
    IdempotencyRecord,
    Partner,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
    webhook_events_default,
    webhook_secret_new,
)
from quotes.models.sales import (
    LINE_KIND_CHOICES,
    QUOTE_STATUS_CHOICES,
    RECURRENCE_CHOICES,
    Quote,
    QuoteCounter,
    QuoteEvent,
    QuoteEventKind,
    QuoteLine,
    QuoteOrigin,
    QuoteRevision,
    quote_token_new,
)

__all__ = [
    "LINE_KIND_CHOICES",
    "QUOTE_STATUS_CHOICES",
    "RECURRENCE_CHOICES",
    "WEBHOOK_EVENTS",
    "ApiKey",
    "DeliveryStatus",
    "IdempotencyRecord",
    "OutboxJob",
    "Partner",
    "Quote",
    "QuoteCounter",
    "QuoteEvent",
    "QuoteEventKind",
    "QuoteLine",
    "QuoteOrigin",
    "QuoteRequest",
    "QuoteRequestStatus",
    "QuoteRevision",
    "RegionAssumption",
    "Webhook",
    "WebhookAttempt",
    "WebhookDelivery",
    "WizardResult",
    "country_iso2_condition",
    "quote_token_new",
    "result_token_new",
    "webhook_events_default",
    "webhook_secret_new",
]
