"""The French catalog is complete: every message translated, none fuzzy, every format checked.

``msgfmt --check`` (GNU gettext) also refuses a translation whose ``%(name)s`` placeholders differ
from the English, so a French page can never raise on a missing parameter.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CATALOG = Path(__file__).resolve().parents[2] / "locale" / "fr" / "LC_MESSAGES" / "django.po"
MSGFMT = shutil.which("msgfmt")
# "1694 translated messages, 2 fuzzy translations, 1 untranslated message."
COUNTS = re.compile(r"(\d+) (translated|fuzzy|untranslated) (?:message|translation)s?")

pytestmark = pytest.mark.skipif(
    MSGFMT is None, reason="msgfmt is missing (apt-get install gettext provides it)"
)


def statistics(catalog: Path) -> dict[str, int]:
    """msgfmt's counts for ``catalog`` (``--check``: formats and header checked too)."""
    assert MSGFMT is not None
    done = subprocess.run(
        [MSGFMT, "--statistics", "--check", "-o", "/dev/null", str(catalog)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {kind: int(count) for count, kind in COUNTS.findall(done.stderr)}


def test_every_french_message_is_translated_and_none_is_fuzzy():
    counts = statistics(CATALOG)

    assert counts.get("untranslated", 0) == 0, counts
    assert counts.get("fuzzy", 0) == 0, counts
    assert counts["translated"] > 1000


def test_the_statistics_see_an_untranslated_and_a_fuzzy_message(tmp_path):
    header = CATALOG.read_text(encoding="utf-8").split("\n\n", 1)[0]
    broken = tmp_path / "django.po"
    broken.write_text(
        header
        + '\n\nmsgid "Servers"\nmsgstr "Serveurs"\n'
        + '\nmsgid "Running"\nmsgstr ""\n'
        + '\n#, fuzzy\nmsgid "Horizon"\nmsgstr "Horizon"\n',
        encoding="utf-8",
    )

    assert statistics(broken) == {"translated": 1, "fuzzy": 1, "untranslated": 1}
