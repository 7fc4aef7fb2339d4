"""Number fields that read numbers as people type them, within bounds that name what is allowed.

Numbers are typed as people write them: ``1 000 000`` or ``0,19`` in French, ``1,000,000`` or
``0.19`` in English. Bounds come from the engine (the workload's ``LIMITS``, given by ``path``) or
are passed in; a field's error names them with the numbers in the reader's locale. Text is checked
by the shared rules of ``gpuquote.core.numbers`` before any conversion.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.formats import get_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.workload import LIMITS
from gpuquote.core.formatting import number_localized
from gpuquote.core.numbers import (
    NumberRejected,
    decimal_from_text,
    decimal_in_range,
    int_bounded,
    number_text_check,
)
from gpuquote.core.validators import number_message

_SPACES = re.compile(r"[\s\u00a0\u202f_']")
_EN_GROUPED = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")


def number_parse(raw: str) -> Decimal | None:
    """``"1 234,5"`` (fr) or ``"1,234.5"`` (en) -> Decimal; ``None`` when it is not a number
    (an exponent or overlong text included: the shared rules of ``gpuquote.core.numbers``)."""
    value = _SPACES.sub("", raw.strip())
    if not value:
        return None
    if get_format("DECIMAL_SEPARATOR") == ",":
        value = value.replace(",", ".")
    elif _EN_GROUPED.match(value):
        value = value.replace(",", "")
    if value.count(".") > 1 or "," in value:
        return None
    try:
        return decimal_from_text(value)
    except NumberRejected:
        return None


def _plain(bound: float | Decimal | None) -> Decimal | None:
    """A bound as an exact Decimal, whole numbers without a fractional part (5, not 5.00)."""
    if bound is None:
        return None
    number = Decimal(str(bound))
    return number.quantize(Decimal(1)) if number == number.to_integral_value() else number


class RangedNumberField(forms.Field):
    """A number within ``[minimum, maximum]`` (``maximum`` None: no upper bound)."""

    default_error_messages = {
        "invalid": _("Enter a number."),
        "range": _("Enter a number from %(min)s to %(max)s."),
        "at_least": _("Enter a number of at least %(min)s."),
    }
    inputmode = "decimal"

    def __init__(
        self,
        *,
        path: str | None = None,
        minimum: float | Decimal | None = None,
        maximum: float | Decimal | None = None,
        unit: str = "",
        **kwargs: Any,
    ) -> None:
        if path is not None:
            minimum, maximum = LIMITS[path]
        self.minimum = _plain(minimum)
        self.maximum = _plain(maximum)
        self.unit = unit
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        attrs.update({"inputmode": self.inputmode, "autocomplete": "off", "spellcheck": "false"})
        return attrs

    def to_python(self, value: Any) -> Decimal | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int | float | Decimal):
            return Decimal(str(value))
        try:
            number_text_check(str(value))  # before any conversion, with a message that says why
        except NumberRejected as exc:
            raise ValidationError(number_message(exc.code), code=exc.code) from exc
        number = number_parse(str(value))
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number

    def range_text(self) -> str:
        """What is allowed, for the help text: "1 to 65 536"."""
        low = number_localized(self.minimum)
        if self.maximum is None:
            return gettext("at least %(min)s") % {"min": low}
        return gettext("%(min)s to %(max)s") % {"min": low, "max": number_localized(self.maximum)}

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value in self.empty_values:
            return
        low, high = self.minimum, self.maximum
        try:
            decimal_in_range(value, minimum=low, maximum=high)
        except NumberRejected as exc:
            if high is None:
                raise ValidationError(
                    self.error_messages["at_least"],
                    code="range",
                    params={"min": number_localized(low)},
                ) from exc
            raise ValidationError(
                self.error_messages["range"],
                code="range",
                params={"min": number_localized(low), "max": number_localized(high)},
            ) from exc


class DecimalNumberField(RangedNumberField):
    pass


class WholeNumberField(RangedNumberField):
    default_error_messages = {"whole": _("Enter a whole number.")}
    inputmode = "numeric"

    def validate(self, value: Any) -> None:
        super().validate(value)  # the range first: comparing a huge Decimal costs nothing
        if value not in self.empty_values and value != value.to_integral_value():
            raise ValidationError(self.error_messages["whole"], code="whole")

    def clean(self, value: Any) -> int | None:
        number = super().clean(value)
        if number is None:
            return None
        return int_bounded(number, minimum=self.minimum, maximum=self.maximum)
