"""The exact search behind the builder: a per-snapshot index and branch and bound.

See ``builder.py`` for the algorithm in words.
"""

from .index import _INF, _Index, _index_get
from .plan import _Plan
from .solver import _Search, preferred_search

__all__ = ["_INF", "_Index", "_Plan", "_Search", "_index_get", "preferred_search"]
