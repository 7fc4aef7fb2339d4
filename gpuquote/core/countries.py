"""A customer's country and VAT number: the one rule every input uses (the wizard's quote request,
the staff screens, the partner API, and the model the VAT computation reads from).

- A country is an ISO 3166-1 alpha-2 code that django-countries knows (upper case; "ZZ", "UK" or
  "EL" are refused, so nothing unknown is ever taxed as an export).
- A VAT number of a member state has that state's prefix ("EL" for Greece) and a national part
  of the right format with right check digits (python-stdnum, through the engine's
  ``vat_number_is_valid``); so has a number of Monaco, taxed as France (prefix FR,
  ``stdnum.mc.tva``). Anywhere else a number is kept as typed, unchecked.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.deconstruct import deconstructible
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from engine.commerce.vat import (
    normalize_vat_number,
    vat_number_is_valid,
    vat_number_prefix,
)
from gpuquote.core.process_cache import ProcessCache

# "value": the parameter Django's own "invalid_choice" message gets (the model field uses this).
COUNTRY_MESSAGE = _("“%(value)s” is not an ISO 3166-1 country code (such as FR or DE).")
VAT_NUMBER_MESSAGE = _(
    "This VAT number is not valid for %(country)s: it must start with %(prefix)s and its check "
    "digits must be right."
)


def country_code_normalize(value: Any) -> Any:
    """Upper case without surrounding spaces; anything but text unchanged (a validator says no)."""
    return value.strip().upper() if isinstance(value, str) else value


@deconstructible
class CountryCodeValidator:
    """Refuses anything but an ISO 3166-1 alpha-2 code that django-countries knows."""

    def __call__(self, value: object) -> None:
        if not isinstance(value, str) or value not in countries:
            raise ValidationError(COUNTRY_MESSAGE, code="invalid_country", params={"value": value})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CountryCodeValidator)

    def __hash__(self) -> int:
        return hash(CountryCodeValidator)


country_code_validator = CountryCodeValidator()


def country_choices() -> list[tuple[str, str]]:
    """Every country, named in the current language and sorted by that name."""
    return [("", "—"), *((country.code, str(country.name)) for country in countries)]


class CountrySelect(forms.Select):
    """The country select, its HTML rendered once per language, field name, value and
    attributes: the list never changes while the process runs, and its ~250 options took a
    fifth of the result page's time to render each time."""

    def render(
        self,
        name: str,
        value: Any,
        attrs: dict[str, Any] | None = None,
        renderer: Any = None,
    ) -> SafeString:
        key = (
            translation.get_language(),
            name,
            repr(value),
            repr(sorted((self.attrs | (attrs or {})).items())),
            id(renderer),
        )
        return _country_selects.get_or_make(
            key, lambda: super(CountrySelect, self).render(name, value, attrs, renderer)
        )


# Per process: the rendered selects (language x field x value x attributes: a few dozen).
_country_selects: ProcessCache[tuple[Any, ...], SafeString] = ProcessCache(256)


class CountryFormField(forms.ChoiceField):
    """A select of every country (translated names, alpha-2 codes as values). A typed code is
    accepted in any case; the refusal is the shared message, not "select a valid choice"."""

    default_validators = [country_code_validator]
    widget = CountrySelect

    def __init__(self, **kwargs: Any) -> None:
        if "choices" in kwargs:  # a list of its own: rendered each time, not cached
            kwargs.setdefault("widget", forms.Select)
        kwargs.setdefault("choices", country_choices)
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> str:
        return country_code_normalize(super().to_python(value))

    def validate(self, value: Any) -> None:
        forms.Field.validate(self, value)  # required only: the validator checks the code


def vat_number_clean(vat_number: str, country: str) -> str:
    """The number to store for a customer of ``country``: a number of an EU member state (or of
    Monaco) normalised and checked (``ValidationError`` on ``vat_number`` otherwise), any other
    kept as typed. An empty number is allowed (no reverse charge)."""
    vat_number = vat_number.strip()
    prefix = vat_number_prefix(country)
    if not vat_number or prefix is None:
        return vat_number
    if not vat_number_is_valid(vat_number, country):
        params = {"country": countries.name(country), "prefix": prefix}
        raise ValidationError(
            {"vat_number": ValidationError(VAT_NUMBER_MESSAGE, code="invalid", params=params)}
        )
    return normalize_vat_number(vat_number)


class VatNumberMatchesCountry:
    """A form mixin: its ``vat_number`` is checked against its ``country`` (check digits
    included) and stored normalised; the error is the field's."""

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}  # type: ignore[misc]
        country, vat_number = cleaned.get("country"), cleaned.get("vat_number")
        if country and vat_number:
            try:
                cleaned["vat_number"] = vat_number_clean(vat_number, country)
            except ValidationError as error:
                self.add_error(None, error)  # type: ignore[attr-defined]  # {"vat_number": ...}
        return cleaned
