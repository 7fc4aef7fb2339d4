"""The catalog in the admin: parts and prices (``parts``), price feeds (``feeds``), managed
hosting's service tiers (``services``)."""

from catalog.admin import feeds, parts, services

__all__ = ["feeds", "parts", "services"]
