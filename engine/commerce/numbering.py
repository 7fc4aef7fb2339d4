"""Quote numbers and revision letters: formatting and parsing only.

A quote number is ``Q-<year>-<sequence>``: the year in four digits and the sequence within the
year padded to five digits (``Q-2026-00042``). A year with more than 99,999 quotes simply gets
wider numbers (``Q-2026-100000``); the canonical form never has more padding than five digits,
so each number has exactly one spelling. Handing out the sequence (per year, never reused, safe
under concurrency) is the database's job, not this module's.

Revisions are lettered like spreadsheet columns: 0 -> A, 25 -> Z, 26 -> AA, 27 -> AB, ...

Display: the first revision (A) is shown **without** a suffix, later ones with it
(``Q-2026-00042``, ``Q-2026-00042-B``, ...). Most quotes are never revised, and the number the
customer first received stays exactly the number of that first document; a suffix appears only
once there is something to tell apart. ``parse_display_number`` also reads an explicit ``-A``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

from ..i18n import Message, gettext_noop

PREFIX = "Q"
MIN_YEAR = 1000
MAX_YEAR = 9999
SEQUENCE_DIGITS = 5
_LETTERS = 26
_A = ord("A")

# Five digits, or more without a leading zero (so that only the canonical spelling parses).
_SEQUENCE = r"(\d{5}|[1-9]\d{5,})"
_NUMBER = re.compile(rf"{PREFIX}-(\d{{4}})-{_SEQUENCE}")
_DISPLAY = re.compile(rf"{PREFIX}-(\d{{4}})-{_SEQUENCE}(?:-([A-Z]+))?")


class NumberingError(ValueError):
    """Text that is not a quote number, or a number or revision out of range."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.render())
        self.message = message


@dataclass(frozen=True, slots=True, order=True)
class QuoteNumber:
    year: int
    sequence: int

    def __post_init__(self) -> None:
        _check_int("year", self.year, MIN_YEAR, MAX_YEAR)
        _check_int("sequence", self.sequence, 1, None)

    def __str__(self) -> str:
        return f"{PREFIX}-{self.year:04d}-{self.sequence:0{SEQUENCE_DIGITS}d}"


def quote_number(year: int, sequence: int) -> str:
    """``quote_number(2026, 42) == "Q-2026-00042"``."""
    return str(QuoteNumber(year, sequence))


def parse_quote_number(text: str) -> QuoteNumber:
    """The year and sequence of ``Q-2026-00042`` (surrounding spaces and lower case accepted)."""
    match = _NUMBER.fullmatch(_clean(text))
    if match is None:
        raise _not_a_number(text)
    return QuoteNumber(int(match[1]), int(match[2]))


def revision_label(n: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA", 701 -> "ZZ", 702 -> "AAA"."""
    _check_int("revision", n, 0, None)
    letters = []
    n += 1
    while n:
        n, rest = divmod(n - 1, _LETTERS)
        letters.append(chr(_A + rest))
    return "".join(reversed(letters))


def revision_index(label: str) -> int:
    """The inverse of ``revision_label``: "A" -> 0, "AA" -> 26."""
    if not isinstance(label, str) or re.fullmatch(r"[A-Z]+", label) is None:
        raise NumberingError(
            _msg(gettext_noop("A revision is one or more capital letters (A, B, ... Z, AA, ...)."))
        )
    n = 0
    for letter in label:
        n = n * _LETTERS + (ord(letter) - _A + 1)
    return n - 1


def display_number(number: QuoteNumber | str, revision: int) -> str:
    """``Q-2026-00042`` for revision 0 (A), ``Q-2026-00042-B`` for revision 1, and so on."""
    base = number if isinstance(number, QuoteNumber) else parse_quote_number(number)
    label = revision_label(revision)
    return str(base) if revision == 0 else f"{base}-{label}"


def parse_display_number(text: str) -> tuple[QuoteNumber, int]:
    """The number and revision index of ``Q-2026-00042-B`` (no suffix or ``-A``: revision 0)."""
    match = _DISPLAY.fullmatch(_clean(text))
    if match is None:
        raise _not_a_number(text)
    revision = revision_index(match[3]) if match[3] else 0
    return QuoteNumber(int(match[1]), int(match[2])), revision


def _clean(text: object) -> str:
    return text.strip().upper() if isinstance(text, str) else ""


def _not_a_number(text: object) -> NumberingError:
    return NumberingError(
        _msg(
            gettext_noop(
                "%(text)s is not a quote number; quote numbers look like %(example)s, with an "
                "optional revision letter (%(example)s-B)."
            ),
            text=text,
            example=quote_number(2026, 42),
        )
    )


_RANGE_MESSAGES = MappingProxyType(
    {
        "year": gettext_noop("The year must be from %(min)s to %(max)s."),
        "sequence": gettext_noop("The sequence number must be at least %(min)s."),
        "revision": gettext_noop("The revision number must be at least %(min)s (A)."),
    }
)


def _check_int(name: str, value: object, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        raise NumberingError(_msg(_RANGE_MESSAGES[name], min=low, max=high))


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))
