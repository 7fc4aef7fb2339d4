"""The partner side of the quotes app: API keys, idempotent quotes, webhooks and their relay.

``admin`` (imported by ``quotes.admin``), ``keys``, ``idempotency``, ``quotes`` (quotes created
over the API), ``webhooks/`` (URL policy, registration, events, delivery) and ``relay`` (announced
events to webhooks, connected by ``QuotesConfig.ready``); the models are in
``quotes.models.partners`` (same app, same migration history). Nothing is re-exported here:
import the module that holds the name.
"""
