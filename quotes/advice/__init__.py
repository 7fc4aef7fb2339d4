"""Advice: what the wizard, the API, partner quotes and the staff builder share before and after
the engine runs (``inputs``: every default and derivation, once).

This package sits under every edge (wizard, sales, partners, API): it imports the engine and
``django.conf`` only, never forms, views or the API.
"""
