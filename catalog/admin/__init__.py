"""The catalog in the admin: parts and prices (``parts``), price feeds (``feeds``)."""

from catalog.admin import feeds, parts

__all__ = ["feeds", "parts"]
