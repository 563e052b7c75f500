"""Disjoint sets over integers (union-find with path halving), for passes that group values by what they share.

>>> s = Disjoint()
>>> s.union(1, 2); s.union(3, 2)
>>> s.find(3) == s.find(1), s.find(4) == s.find(1)
(True, False)
"""

from __future__ import annotations


class Disjoint:
    """Every integer starts in a set of its own; ``union`` joins two sets, ``find`` names a set by one member."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        parent = self.parent
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        """Joins a's set into b's (b's representative names the joined set)."""
        self.parent[self.find(a)] = self.find(b)
