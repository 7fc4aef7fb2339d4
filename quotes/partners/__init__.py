"""The partner side of the quotes app: API keys, idempotent quotes, webhooks and their relay.

``models`` (imported by ``quotes.models``: same app, same migration history), ``admin``
(imported by ``quotes.admin``), ``keys``, ``idempotency``, ``quotes`` (quotes created over the
API), ``webhooks/`` (URL policy, registration, events, delivery) and ``relay`` (announced events
to webhooks, connected by ``QuotesConfig.ready``). Nothing is re-exported here: import the module
that holds the name.
"""
