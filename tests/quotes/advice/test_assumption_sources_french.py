"""The engine's built-in assumption sources read in French. The engine marks them
for translation; the translating happens here, at the edge, with Django's catalog."""

from __future__ import annotations

from django.utils import translation

from engine.assumptions import REGIONS, region_defaults
from engine.assumptions.facts import COMMON


def test_every_builtin_source_has_a_french_translation():
    # Each built-in source is one literal marked for translation (never built by
    # concatenation), so the French catalog has it: GPUQuote's words in French, its figures
    # with a decimal comma, what it cites kept as published.
    sources = {
        assumption.source
        for region in REGIONS
        for assumption in region_defaults(region, "EUR").values()
    }
    with translation.override("fr"):
        french = {source: translation.gettext(source) for source in sources}
        managed = translation.gettext(COMMON["managed_staff_fte_per_server"].source)

    assert [source for source, text in french.items() if text == source] == []
    assert managed.startswith("Choix de GPUQuote\u00a0: l'hébergeur prend en charge")
    assert "estimé à 40\u00a0% de l'effort sur site (0,05 × 0,4)." in managed
