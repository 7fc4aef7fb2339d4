"""What the explanations and the per-server solver read from a search: a protocol, so that they
depend on this leaf and not on ``solver`` (which calls them)."""

from __future__ import annotations

from typing import Any, Protocol

from ..configuration import BuildNeeds
from .candidates import Candidates
from .index import SearchIndex
from .records import PartItem


class SearchState(Protocol):
    """One request's search as its helpers see it (``solver.Search`` is one)."""

    index: SearchIndex
    needs: BuildNeeds
    production: bool
    boot: PartItem | None  # the production boot mirror's drive (None: none or not production)
    boot_cost: int
    candidates: Candidates

    def fail(self, rank: int, subject: object, template: str, **params: Any) -> None:
        """Record why ``subject`` fails, if it got further than its failures so far."""
