"""The engine's own version: a digest of its code and data files.

What was computed and kept (a stored wizard result reused for the same question, a cached API
answer) was computed by one engine; after a deploy changes a formula, a rule or a sourced figure,
the same question must be computed again, in every process and from every shared cache. Nobody
has to remember to bump a number: the digest changes with the files. Pure: standard library.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parent
_KINDS = frozenset({".py", ".json", ".csv"})


def _digest(root: Path) -> str:
    found = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in _KINDS and "__pycache__" not in path.parts and path.is_file():
            found.update(path.relative_to(root).as_posix().encode())
            found.update(b"\0")
            found.update(path.read_bytes())
            found.update(b"\0")
    return found.hexdigest()[:16]


ENGINE_VERSION = _digest(_ROOT)
