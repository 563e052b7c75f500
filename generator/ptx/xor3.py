"""XOR networks for three-input gates (LOP3): greedy extraction of shared pairs and triples.

Paar's greedy (cipherspec/passes/xornet.py) counts two-input XORs.  On the GPU one LOP3 XORs three values,
so a row of k elements costs ceil((k - 1) / 2) instructions and a shared term of two or three elements one.
Each step extracts the pair or triple with the largest saving over the rows that contain it (ties: the
smallest), until none saves anything; of a few such runs (the later ones with seeded noise on the savings,
so ties and near-ties go other ways) the cheapest network is kept.

    rows: y0 = a^b^c^d, y1 = a^b^c^e, y2 = a^b^c^f          (each 2 LOP3: 6)
    after: t = a^b^c;  y0 = t^d, y1 = t^e, y2 = t^f         (1 + 3: 4)
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import combinations

TRIES = 24  # greedy runs per distinct network (AES MixColumns: 58 LOP3 a column with one, 56 with these)
NOISE = 1.5  # the seeded noise added to a candidate's saving in the runs after the first


def _cost(k: int) -> int:
    return k // 2  # LOP3s for a row of k elements: ceil((k - 1) / 2)


def network(rows: list[set], tries: int = TRIES) -> tuple[list[tuple], list[set]]:
    """(terms: tuples of 2 or 3 elements, term i named ("t", i); the rows rewritten over elements and terms):
    the cheapest of ``tries`` greedy runs, the first with exact ties, the others with seeded noise on the
    savings (deterministic)."""
    elems = sorted({e for r in rows for e in r})
    index = {e: i for i, e in enumerate(elems)}
    terms, sets = _best(tuple(frozenset(index[e] for e in r) for r in rows), tries)

    def back(e: tuple) -> tuple:
        return e if e[0] == "t" else elems[e[1]]

    return [tuple(back(e) for e in t) for t in terms], [{back(e) for e in r} for r in sets]


def cost(terms: list[tuple], rows: list[set]) -> int:
    """LOP3s of a network: one a term, k // 2 a row of k elements."""
    return len(terms) + sum(_cost(len(r)) for r in rows)


@cache
def _best(rows: tuple[frozenset[int], ...], tries: int) -> tuple[list[tuple], list[set]]:
    rng = random.Random(0)
    best = None
    for k in range(tries):
        got = _greedy([{("v", e) for e in r} for r in rows], rng if k else None)
        if best is None or cost(*got) < cost(*best):
            best = got
    assert best is not None
    return best


def _greedy(rows: list[set], rng: random.Random | None) -> tuple[list[tuple], list[set]]:
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
        cands = [c for c in count if count[c] > 1 and gain[c] > 1]
        if not cands:
            return terms, rows
        noise = {c: rng.random() * NOISE for c in cands} if rng else dict.fromkeys(cands, 0.0)
        best = min(cands, key=lambda c: (-gain[c] - noise[c], c))
        term = ("t", len(terms))
        terms.append(best)
        for r in rows:
            if r.issuperset(best):
                r.difference_update(best)
                r.add(term)
