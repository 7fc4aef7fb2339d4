"""Text fields and control characters, defined once: a single-line field (a name, a company, a
URL) holds no control character at all, since a line break there ends up in an e-mail header or
a log line; a multi-line field (a message, notes) keeps line breaks and tabs only. Pure Python:
the Django validators are in ``gpuquote.core.validators``.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators.
_SINGLE_LINE_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MULTI_LINE_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Lone UTF-16 surrogates (from JSON "\ud800" escapes): no encoding can store them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def control_characters_find(text: str, *, multiline: bool) -> bool:
    """Whether ``text`` holds a control character its kind of field does not allow
    (``multiline``: line breaks ``\\r\\n`` and tabs are allowed)."""
    pattern = _MULTI_LINE_FORBIDDEN if multiline else _SINGLE_LINE_FORBIDDEN
    return pattern.search(text) is not None


def surrogate_find(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def single_line(text: str) -> str:
    """``text`` on one line: every run of whitespace and control characters becomes a space
    (for e-mail subjects made from stored values)."""
    return " ".join(_SINGLE_LINE_FORBIDDEN.sub(" ", text).split())
