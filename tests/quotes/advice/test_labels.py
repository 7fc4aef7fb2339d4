"""Every engine enum a page names has a label for each of its members, in English and in French:
a new member (a TCO cost category, a way to pay...) cannot vanish from the result page or a PDF
for want of a word."""

from __future__ import annotations

import dataclasses
import gettext as gnu_gettext
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation
from django.utils.functional import Promise

from engine.i18n import Message
from engine.sizing import MemoryBreakdown
from engine.tco import Category
from quotes.advice import labels
from quotes.advice.presenters import localized_text

MO = Path(__file__).resolve().parents[3] / "locale" / "fr" / "LC_MESSAGES" / "django.mo"


def _french_catalog() -> dict[str, str]:
    with MO.open("rb") as found:
        catalog: dict[str, str] = gnu_gettext.GNUTranslations(found)._catalog  # type: ignore[attr-defined]
    return catalog


def _translated(english: str, catalog: dict[str, str]) -> bool:
    """Whether the French catalog translates ``english`` (with or without a context)."""
    return bool(catalog.get(english)) or any(
        isinstance(key, str) and key.endswith("\x04" + english) and value
        for key, value in catalog.items()
    )


def _missing(enum: type[Enum], table: Any) -> set[Enum]:
    return {member for member in enum if member not in table}


def _shown(label: Any) -> str:
    return localized_text(label) if isinstance(label, Message) else str(label)


def _english(label: Any) -> str:
    with translation.override("en"):
        return _shown(label)


@pytest.mark.parametrize(
    ("enum", "table"),
    labels.ENUM_LABELS,
    ids=[f"{enum.__name__}-{i}" for i, (enum, _) in enumerate(labels.ENUM_LABELS)],
)
def test_every_member_has_a_label_in_english_and_french(enum: type[Enum], table: Any):
    catalog = _french_catalog()

    assert _missing(enum, table) == set(), f"{enum.__name__}: members without a label"
    assert set(table) <= set(enum), f"{enum.__name__}: labels of no member"
    for member in enum:
        label = table[member]
        english = _english(label)
        with translation.override("fr"):
            french = _shown(label)
        assert english, member
        assert french, member
        if isinstance(label, str) and not isinstance(label, Promise):
            continue  # a name written the same in every language (BF16)
        template = label.template if isinstance(label, Message) else english
        assert _translated(template, catalog), f"{enum.__name__}.{member.name}: {english!r}"


def test_a_member_without_a_label_is_found():
    class Grown(StrEnum):
        CAPITAL = "capital"
        NEW_COST = "new_cost"

    assert _missing(Grown, labels.CATEGORY_LABELS) == {Grown.NEW_COST}


def test_an_untranslated_label_is_found():
    assert not _translated("A label nobody translated", _french_catalog())
    assert _translated("Purchase of the servers", _french_catalog())
    assert _translated("Running", _french_catalog())  # a label with a context


def test_every_part_of_the_memory_has_a_label():
    parts = {field.name for field in dataclasses.fields(MemoryBreakdown)} - {"total"}

    assert set(labels.MEMORY_LABELS) == parts


def test_labels_read_the_same_by_member_and_by_value():
    assert labels.CATEGORY_LABELS["hosting_fees"] is labels.CATEGORY_LABELS[Category.HOSTING_FEES]
    with translation.override("fr"):
        assert str(labels.CATEGORY_LABELS[Category.CAPITAL]) == "Achat des serveurs"
