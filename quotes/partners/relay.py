"""The one relay from announced events to partner webhooks.

The sales services announce status changes (``quotes.signals.quote_status_changed``) and the
catalog's price services announce price changes (``catalog.signals.prices_changed``: feeds,
prices approved out of quarantine, prices added in the admin); neither imports webhook code.
The receivers below, connected once in ``QuotesConfig.ready``, turn each announcement into
webhook deliveries in the sender's transaction; each delivery is queued after commit through the
outbox (``gpuquote.core.outbox``).
"""

from __future__ import annotations

from typing import Any

from catalog.signals import prices_changed
from quotes.partners.webhooks.events import webhooks_prices_changed, webhooks_quote_status_changed
from quotes.signals import quote_status_changed


def quote_status_changed_relay(
    sender: Any, *, quote: Any, from_status: str, to_status: str, **_kwargs: Any
) -> None:
    webhooks_quote_status_changed(quote=quote, from_status=from_status, to_status=to_status)


def prices_changed_relay(
    sender: Any,
    *,
    source_name: str,
    changed: list[dict[str, Any]],
    changed_total: int | None = None,
    **_kwargs: Any,
) -> None:
    webhooks_prices_changed(source_name=source_name, changed=changed, changed_total=changed_total)


def webhook_relay_connect() -> None:
    """Subscribe the relay (idempotent: each receiver is connected once)."""
    quote_status_changed.connect(
        quote_status_changed_relay, dispatch_uid="quotes.partners.relay.quote_status_changed"
    )
    prices_changed.connect(
        prices_changed_relay, dispatch_uid="quotes.partners.relay.prices_changed"
    )
