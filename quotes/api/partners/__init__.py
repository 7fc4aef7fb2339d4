"""The partner endpoints: quotes created, read and downloaded with an API key (``quotes``, their
request and answer shapes in ``quote_payloads``) and the partner's webhooks (``webhooks``)."""
