"""XOR networks for three-input gates (LOP3): greedy extraction of shared pairs and triples.

Paar's greedy (cipherspec/passes/xornet.py) counts two-input XORs.  On the GPU one LOP3 XORs three values,
so a row of k elements costs ceil((k - 1) / 2) instructions and a shared term of two or three elements one.
Each step extracts the pair or triple with the largest saving over the rows that contain it (ties: the
smallest), until none saves anything.

    rows: y0 = a^b^c^d, y1 = a^b^c^e, y2 = a^b^c^f          (each 2 LOP3: 6)
    after: t = a^b^c;  y0 = t^d, y1 = t^e, y2 = t^f         (1 + 3: 4)
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations


def _cost(k: int) -> int:
    return k // 2  # LOP3s for a row of k elements: ceil((k - 1) / 2)


def network(rows: list[set]) -> tuple[list[tuple], list[set]]:
    """(terms: tuples of 2 or 3 elements, term i named ("t", i); the rows rewritten over elements and terms)."""
    rows = [set(r) for r in rows]
    terms: list[tuple] = []
    while True:
        count: Counter = Counter()
        gain: Counter = Counter()
        for r in rows:
            items, k = sorted(r), len(r)
            for n in (2, 3):
                saved = _cost(k) - _cost(k - n + 1)
                for c in combinations(items, n):
                    count[c] += 1
                    gain[c] += saved
        best = min((c for c in count if count[c] > 1 and gain[c] > 1), key=lambda c: (-gain[c], c), default=None)
        if best is None:
            return terms, rows
        term = ("t", len(terms))
        terms.append(best)
        for r in rows:
            if r.issuperset(best):
                r.difference_update(best)
                r.add(term)
