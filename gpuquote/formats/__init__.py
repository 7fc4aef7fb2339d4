"""Locale formats that replace Django's defaults (``FORMAT_MODULE_PATH``)."""
