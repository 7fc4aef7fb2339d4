"""What the catalog announces to the apps built on it (they subscribe; the catalog imports none).

``prices_changed`` is sent by the price services inside the transaction that records the prices
(a feed refresh, a price approved out of quarantine, a price added in the admin), so a receiver
writing rows (the partners' ``price.changed`` webhook deliveries, ``quotes.partners.relay``)
commits or rolls back with them. Arguments:

- ``source_name``: the price source's name (``ADMIN_SOURCE_NAME`` for prices added in the admin);
- ``changed``: the first ``PRICE_CHANGES_PER_EVENT`` changed part prices, each a dict with sku,
  kind, price_kind, currency, old_amount (None for a first price), new_amount, observed_on;
- ``changed_total``: how many changed in all (``changed`` may hold only the first ones).
"""

from __future__ import annotations

from django.dispatch import Signal

PRICE_CHANGES_PER_EVENT = 500  # a refresh changing more prices announces the first ones
ADMIN_SOURCE_NAME = "admin"  # the source_name of prices added by hand in the admin

prices_changed = Signal()
