"""The exact search behind the builder: a per-snapshot index and branch and bound.

See ``builder.py`` for the algorithm in words. Modules, leaves first: ``records`` (the items,
sets and plans), ``memo``, ``index`` (a snapshot's parts, sorted and pruned), ``candidates`` (one
request's part sets), ``state`` (what the helpers read from a search), ``explain`` and ``server``,
then ``solver`` (the search itself).
"""

from .index import SearchIndex
from .records import INF, Plan, PricedCluster
from .solver import Search, preferred_search

__all__ = ["INF", "Plan", "PricedCluster", "Search", "SearchIndex", "preferred_search"]
