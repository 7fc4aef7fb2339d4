"""The engine's message templates in the active language, cached per language: an API answer
renders some 150 sentences, and Django's ``gettext`` walks its catalog chain for each (about a
tenth of a new TCO answer's time). A template's translation does not change while a process
runs; a test that changes the languages or the catalogs' paths empties the cache."""

from __future__ import annotations

from functools import lru_cache

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation

# Templates x languages: a few thousand strings; counted forms add one entry per count seen.
_CACHE_SIZE = 8192


@lru_cache(maxsize=_CACHE_SIZE)
def _gettext_in(language: str | None, template: str) -> str:
    if language is None:
        return translation.gettext(template)
    with translation.override(language):
        return translation.gettext(template)


@lru_cache(maxsize=_CACHE_SIZE)
def _ngettext_in(language: str | None, singular: str, plural: str, count: int) -> str:
    if language is None:
        return translation.ngettext(singular, plural, count)
    with translation.override(language):
        return translation.ngettext(singular, plural, count)


def gettext(template: str) -> str:
    """Django's ``gettext`` of ``template`` in the active language, cached."""
    return _gettext_in(translation.get_language(), template)


def ngettext(singular: str, plural: str, count: int) -> str:
    """Django's ``ngettext`` in the active language, cached."""
    return _ngettext_in(translation.get_language(), singular, plural, count)


@receiver(setting_changed)
def _forget(*, setting: str, **_kwargs: object) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "USE_I18N"}:
        _gettext_in.cache_clear()
        _ngettext_in.cache_clear()
