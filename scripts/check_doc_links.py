"""Check that every relative link and anchor in README.md, CHANGELOG.md and docs/**/*.md resolves.

Usage: ``python scripts/check_doc_links.py [ROOT]``; exits 1 and prints each broken link.
Anchors follow GitHub's rule: the heading in lower case, punctuation dropped, spaces as hyphens.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HEADING = re.compile(r"^#{1,6} (.*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            base = candidate = slug(match.group(1))
            n = 0
            while candidate in found:
                n += 1
                candidate = f"{base}-{n}"
            found.add(candidate)
    return found


def broken_links(root: Path) -> list[str]:
    files = [root / "README.md", root / "CHANGELOG.md", *sorted((root / "docs").rglob("*.md"))]
    problems = []
    for source in (f for f in files if f.exists()):
        text = re.sub(r"```.*?```", "", source.read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            dest = (source.parent / path).resolve() if path else source
            where = source.relative_to(root)
            if not dest.exists():
                problems.append(f"{where}: missing {target}")
            elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                problems.append(f"{where}: no anchor {target}")
    return problems


if __name__ == "__main__":
    problems = broken_links(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())
    print("\n".join(problems) or "every link resolves")
    sys.exit(1 if problems else 0)
