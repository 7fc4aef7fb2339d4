"""What the sales code announces, for the partner side to relay (``quotes.partners.relay``): the
sales services send, they never import webhook code.

``quote_status_changed`` is sent by the service that records the quote's event, inside the
transaction that changes the status, with ``quote``, ``from_status`` and ``to_status``.
"""

from __future__ import annotations

from django.dispatch import Signal

quote_status_changed = Signal()
