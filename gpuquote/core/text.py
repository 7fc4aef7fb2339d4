"""Text fields and control characters, defined once: a single-line field (a name, a company, a
URL) holds no control character at all, since a line break there ends up in an e-mail header or
a log line, and no invisible format character; a multi-line field (a message, notes) keeps line
breaks and tabs only. Pure Python: the Django validators are in ``gpuquote.core.validators``.
"""

from __future__ import annotations

import re
import unicodedata

# C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators.
_SINGLE_LINE_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MULTI_LINE_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Lone UTF-16 surrogates (from JSON "\ud800" escapes): no encoding can store them.
_SURROGATE = re.compile("[\ud800-\udfff]")
# Unicode general category Cf, "format" (The Unicode Standard, section 4.5 and chapter 23):
# invisible characters that change how the text around them is shown. Among them the bidi
# embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069; Unicode Standard Annex #9),
# which reorder what a reader sees ("Trojan Source", CVE-2021-42574): a company named
# "\u202eAcme" is displayed "emcA" on the dashboard and in e-mail subjects; and the zero-width
# space and joiners (U+200B-U+200D), the word joiner U+2060 and the byte order mark U+FEFF, which
# make two names that look the same compare different. The category is read from the Python's
# Unicode database, so new format characters are refused as Unicode adds them.
FORMAT_CATEGORY = "Cf"


def control_characters_find(text: str, *, multiline: bool) -> bool:
    """Whether ``text`` holds a control character its kind of field does not allow
    (``multiline``: line breaks ``\\r\\n`` and tabs are allowed)."""
    pattern = _MULTI_LINE_FORBIDDEN if multiline else _SINGLE_LINE_FORBIDDEN
    return pattern.search(text) is not None


def format_characters_find(text: str) -> bool:
    """Whether ``text`` holds an invisible format character (category Cf; ASCII has none)."""
    return not text.isascii() and any(
        unicodedata.category(char) == FORMAT_CATEGORY for char in text
    )


def surrogate_find(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def single_line(text: str) -> str:
    """``text`` on one line: every run of whitespace and control characters becomes a space and
    format characters are dropped (for e-mail subjects made from stored values, some of them
    stored before format characters were refused)."""
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) != FORMAT_CATEGORY)
    return " ".join(_SINGLE_LINE_FORBIDDEN.sub(" ", text).split())
