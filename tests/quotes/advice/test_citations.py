"""An assumption's citation in the reader's language: translated when the catalog has it,
as written (and marked English) when a staff member wrote it."""

from __future__ import annotations

from decimal import Decimal

from django.utils import translation

from engine.assumptions import Fact, region_defaults
from quotes.advice.presenters import assumption_words, localized_text


def test_a_builtin_citation_is_translated_and_not_marked_english():
    price = region_defaults("DE", "EUR")["electricity_price_per_kwh"]

    with translation.override("fr"):
        words = assumption_words(price, "EUR", localized_text)

    assert words["citation"].startswith(
        "Eurostat nrg_pc_205, consommateurs non résidentiels, tranche IC (500-1\u00a0999 MWh/an)"
    )
    assert words["citation_lang"] == ""
    assert words["source"] == price.source  # the English source, for the API


def test_an_english_reader_gets_the_source_as_written_marked_english():
    pue = region_defaults("DE", "EUR")["pue"]

    with translation.override("en"):
        words = assumption_words(pue, "EUR", localized_text)

    assert (words["citation"], words["citation_lang"]) == (pue.source, "en")


def test_a_source_written_by_staff_stays_as_written_marked_english():
    edited = {"pue": Fact(Decimal("1.35"), None, "Our Paris site, measured 2026")}
    pue = region_defaults("FR", "EUR", edited=edited)["pue"]

    with translation.override("fr"):
        words = assumption_words(pue, "EUR", localized_text)

    assert (words["citation"], words["citation_lang"]) == ("Our Paris site, measured 2026", "en")
