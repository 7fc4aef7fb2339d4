"""The kept translations of the engine's templates answer what Django's gettext answers, in the
language active at each call."""

from __future__ import annotations

from django.utils import translation

from gpuquote.core import translated

TEMPLATE = "Production needs a datacenter GPU with ECC; the %(gpu)s is a %(gpu_class)s GPU."
SINGULAR = "buying does not become cheaper than managed hosting within %(years)s year"
PLURAL = "buying does not become cheaper than managed hosting within %(years)s years"


def test_gettext_follows_the_active_language_on_every_call() -> None:
    with translation.override("fr"):
        french = translated.gettext(TEMPLATE)
        assert french == translation.gettext(TEMPLATE)
        assert french.startswith("La production exige")
    with translation.override("en"):
        assert translated.gettext(TEMPLATE) == TEMPLATE
    with translation.override("fr"):
        assert translated.gettext(TEMPLATE) == french


def test_ngettext_picks_the_form_for_each_count() -> None:
    with translation.override("fr"):
        one = translated.ngettext(SINGULAR, PLURAL, 1)
        many = translated.ngettext(SINGULAR, PLURAL, 3)
        assert one == translation.ngettext(SINGULAR, PLURAL, 1)
        assert many == translation.ngettext(SINGULAR, PLURAL, 3)
        assert one.endswith("an")
        assert many.endswith("ans")
    with translation.override("en"):
        assert translated.ngettext(SINGULAR, PLURAL, 3) == PLURAL


def test_a_template_without_translation_stays_as_written() -> None:
    with translation.override("fr"):
        assert translated.gettext("A source a staff member wrote.") == (
            "A source a staff member wrote."
        )


def test_changing_the_languages_setting_empties_the_cache(settings) -> None:
    with translation.override("fr"):
        translated.gettext(TEMPLATE)
    assert translated._gettext_in.cache_info().currsize > 0
    settings.LOCALE_PATHS = list(settings.LOCALE_PATHS)
    assert translated._gettext_in.cache_info().currsize == 0
