"""Serializer fields that apply the shared input rules (``gpuquote.core.numbers`` and
``gpuquote.core.text``) before DRF converts anything: a number given as text has no exponent and
at most ``MAX_NUMBER_CHARS`` characters, a typed number (from JSON) is compared with the field's
range before ``int()`` or ``quantize()``; single-line text holds no control character."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from gpuquote.core.countries import country_code_normalize, country_code_validator
from gpuquote.core.numbers import NumberRejected, decimal_in_range, decimal_of, number_text_check
from gpuquote.core.validators import multi_line_validator, number_message, single_line_validator


class _BoundedNumber:
    """Mixin for DRF's number fields: the shared checks run first, DRF's own conversion after."""

    min_value: Any
    max_value: Any
    fail: Any  # serializers.Field.fail

    def to_internal_value(self, data: Any) -> Any:
        try:
            if isinstance(data, str):
                number_text_check(data)
            elif isinstance(data, int | float) and not isinstance(data, bool):
                decimal_in_range(decimal_of(data), minimum=self.min_value, maximum=self.max_value)
        except NumberRejected as exc:
            if exc.code == "below":
                self.fail("min_value", min_value=self.min_value)
            if exc.code == "above":
                self.fail("max_value", max_value=self.max_value)
            if exc.code == "invalid":
                self.fail("invalid")
            raise serializers.ValidationError(number_message(exc.code), code=exc.code) from exc
        return super().to_internal_value(data)  # type: ignore[misc]


class BoundedIntegerField(_BoundedNumber, serializers.IntegerField):
    pass


class BoundedDecimalField(_BoundedNumber, serializers.DecimalField):
    pass


class BoundedFloatField(_BoundedNumber, serializers.FloatField):
    pass


class SingleLineCharField(serializers.CharField):
    """One line of text: no line break, tab or other control character."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(single_line_validator)


class MultiLineCharField(serializers.CharField):
    """Line breaks and tabs allowed, no other control character."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(multi_line_validator)


class CountryCodeField(serializers.CharField):
    """An ISO 3166-1 alpha-2 country code, in any case on input, upper case on output
    (``gpuquote.core.countries``: the rule the forms and the models share)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 60)
        kwargs.setdefault("help_text", "ISO 3166-1 alpha-2 code, such as FR or DE.")
        super().__init__(**kwargs)
        self.validators.append(country_code_validator)

    def to_internal_value(self, data: Any) -> str:
        return country_code_normalize(super().to_internal_value(data))
