"""The Django side of the input rules in ``numbers`` and ``text``: the messages people read, and
the validators that form fields, serializer fields (DRF runs Django validators) and services
share. Model fields do not carry them: that would need a migration, and every write goes
through a form or a serializer first."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

from gpuquote.core.numbers import MAX_NUMBER_CHARS
from gpuquote.core.text import control_characters_find, format_characters_find

# NumberRejected.code -> message; range codes keep each field's own message (it names the range).
NUMBER_MESSAGES = {
    "exponent": _("Write the number in full, without an exponent (such as 1e6)."),
    "too_long": _("Enter a number of at most %(max)s characters."),
    "digits": _("Write the number with the digits 0 to 9 only."),
}


def number_message(code: str) -> str:
    """The message for a ``NumberRejected`` code of the text rules, in the current language."""
    return str(NUMBER_MESSAGES[code]) % {"max": MAX_NUMBER_CHARS}


SINGLE_LINE_MESSAGE = _(
    "Enter a single line of text, without line breaks, tabs or other control characters."
)
MULTI_LINE_MESSAGE = _("Remove the control characters: only line breaks and tabs are allowed.")
FORMAT_CHARACTERS_MESSAGE = _(
    "Remove the invisible formatting characters (such as a right-to-left override or a "
    "zero-width space)."
)


@deconstructible
class ControlCharacterValidator:
    """Refuses control characters: all of them on one line, all but line breaks and tabs in a
    multi-line text; on one line, invisible format characters too (``text.FORMAT_CATEGORY``)."""

    def __init__(self, *, multiline: bool = False) -> None:
        self.multiline = multiline

    def __call__(self, value: object) -> None:
        if isinstance(value, str) and control_characters_find(value, multiline=self.multiline):
            message = MULTI_LINE_MESSAGE if self.multiline else SINGLE_LINE_MESSAGE
            raise ValidationError(message, code="control_characters")
        if isinstance(value, str) and not self.multiline and format_characters_find(value):
            raise ValidationError(FORMAT_CHARACTERS_MESSAGE, code="format_characters")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ControlCharacterValidator) and other.multiline == self.multiline

    def __hash__(self) -> int:
        return hash(self.multiline)


single_line_validator = ControlCharacterValidator()
multi_line_validator = ControlCharacterValidator(multiline=True)
