"""The catalog in the admin: parts and prices (``parts``), price feeds (``feeds``), managed
hosting's service tiers (``services``)."""

from catalog.admin import cloud_offers as cloud_offers
from catalog.admin import exchange_rates as exchange_rates
from catalog.admin import feeds, parts, services
from catalog.admin import hosting_offers as hosting_offers

__all__ = ["feeds", "parts", "services"]
