"""Partner webhooks: registration, events, signed deliveries with recorded attempts.

- ``url_policy``: which receiver URLs are accepted (https only in production, public addresses
  only, checked again at each delivery);
- ``registration``: create, change and delete a partner's webhooks; ``selectors``: reads;
- ``events``: an event (``quote.status_changed``, ``price.changed``, ``webhook.ping``) becomes one
  ``WebhookDelivery`` per subscribed, active webhook, created in the caller's transaction; the
  Celery task ``quotes.deliver_webhook`` is queued after commit (outbox);
- ``delivery``: each try POSTs the same JSON bytes it signs (``GPUQuote-Signature: t=<unix
  time>,v1=<HMAC-SHA256 hex>``, see ``gpuquote.api.signing``) and is recorded as a
  ``WebhookAttempt``. A 2xx answer settles the delivery; anything else raises
  ``WebhookDeliveryError`` for the task to retry with backoff, and the last try marks it failed.

Delivery is at least once: two copies of a task running at the same moment could both send, so
receivers deduplicate on ``GPUQuote-Delivery`` (the event id). A delivery that succeeded is
never sent again. Nothing is re-exported here: import the module that holds the name.
"""
