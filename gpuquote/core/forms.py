"""Form fields that apply the shared input rules: numbers checked as text before conversion,
text without control characters. The staff screens use them; the wizard's own number fields
(``quotes.wizard.forms.fields``) read localised numbers and apply the same rules."""

from __future__ import annotations

import io
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from gpuquote.core.numbers import NumberRejected, number_text_check
from gpuquote.core.validators import multi_line_validator, number_message, single_line_validator


def _number_text_checked(value: Any) -> None:
    if isinstance(value, str):
        try:
            number_text_check(value)
        except NumberRejected as exc:
            raise ValidationError(number_message(exc.code), code=exc.code) from exc


class BoundedDecimalField(forms.DecimalField):
    """A DecimalField that refuses exponents and overlong text before building the Decimal."""

    def to_python(self, value: Any) -> Any:
        _number_text_checked(value)
        return super().to_python(value)


class BoundedIntegerField(forms.IntegerField):
    """An IntegerField that refuses exponents and overlong text before ``int()``."""

    def to_python(self, value: Any) -> Any:
        _number_text_checked(value)
        return super().to_python(value)


class SingleLineField(forms.CharField):
    """One line of text: no line break, tab or other control character."""

    default_validators = [single_line_validator]


class MultiLineField(forms.CharField):
    """Text over several lines: line breaks and tabs, no other control character."""

    default_validators = [multi_line_validator]


# The browser's date picker, <input type="date">, reads and sends its value as YYYY-MM-DD
# whatever the page's language (HTML Living Standard, "Date state (type=date)": the
# value is a valid date string). Django's DateInput otherwise renders the first of the active
# language's DATE_INPUT_FORMATS ("04/01/2027" in French), which the browser discards: the field
# shows empty and, when required, blocks the form. Parsing still accepts ISO in every language
# (django.utils.formats adds the ISO input formats to each locale's).
ISO_DATE = "%Y-%m-%d"


class DatePickerInput(forms.DateInput):
    """``<input type="date">`` with its value always in ISO form."""

    input_type = "date"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, format=ISO_DATE)


class DatePickerField(forms.DateField):
    """A date typed with the browser's date picker, in any language."""

    widget = DatePickerInput


class BoundedJSONField(forms.JSONField):
    """JSON typed into a form, held to the API parser's limits (size, depth, keys, surrogates,
    huge integers): staff paste the API's workload JSON, and it must not exhaust the server."""

    def to_python(self, value: Any) -> Any:
        # An empty field renders as "null" (Django's JSONField): nothing was typed.
        if isinstance(value, str) and value.strip() == "null":
            return None
        if isinstance(value, str) and value.strip():
            from rest_framework.exceptions import APIException

            from gpuquote.api.parsers import LimitedJSONParser

            try:
                LimitedJSONParser().parse(io.BytesIO(value.encode("utf-8", "surrogatepass")))
            except APIException as exc:
                errors = getattr(exc, "errors", None) or {}
                messages = [str(exc.detail)] + [
                    f"{path}: {message}" for path, found in errors.items() for message in found
                ]
                raise ValidationError(messages, code="invalid") from None
        return super().to_python(value)
