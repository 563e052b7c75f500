"""Short XOR programs for small linear maps: Boyar and Peralta's distance heuristic (published method, "A new
combinational logic minimization technique with applications to cryptology", 2010), for maps of at most
``MAX_INPUTS`` input bits, where the distance of every vector from the current base can be tabulated exactly.

The base starts as the input bits; each step adds the XOR of two base elements: a target at distance one if
there is one, else the sum that most lowers the summed distances of the targets (ties: the larger Euclidean
norm of the distance vector, which keeps the remaining targets unevenly far, as Boyar and Peralta found best).
Distances come from one breadth-first table over all 2^n vectors per step: with e added,
dist(t) = min(dist(t), 1 + dist(t ^ e)).  Of a few runs (the later ones break ties at random, seeded) the
shortest program is kept.  Paar's greedy (cipherspec/passes/xornet.py) only pairs up what the rows already
share; this also finds sums no row contains as a pair, which is where an S-box circuit's linear top merged
with an affine map gets cheap again.

    rows (over x0..x7): the inversion circuit's 22 top signals merged with ARIA's S1^-1 input map
    Paar: 47 XORs (constants as NOTs included)    this: 31
"""

from __future__ import annotations

import random
from functools import cache

MAX_INPUTS = 8  # 2^n-entry distance tables
TRIES = 6  # runs per map: the first with exact ties, the others with seeded random tie-breaks


def _distances(base: list[int], n: int) -> list[int]:
    """Fewest base elements XORing to each vector of GF(2)^n (0 for the zero vector)."""
    size = 1 << n
    far = n + len(base) + 1
    d = [far] * size
    d[0] = 0
    frontier = [0]
    level = 0
    while frontier:
        level += 1
        nxt = []
        for v in frontier:
            for b in base:
                w = v ^ b
                if d[w] == far:
                    d[w] = level
                    nxt.append(w)
        frontier = nxt
    return d


def _run(rows: tuple[int, ...], n: int, rng: random.Random | None) -> list[tuple[int, int]]:
    """One run: the sums added, as pairs of base indices (base = the n unit vectors, then each sum made)."""
    base = [1 << j for j in range(n)]
    index = {v: i for i, v in enumerate(base)}
    targets = sorted({r for r in rows if r and r not in index})
    steps: list[tuple[int, int]] = []
    while True:
        d = _distances(base, n)
        left = [t for t in targets if d[t] > 1]
        if not left:
            return steps
        pick = None
        for t in left:  # a target one XOR away: make it
            if d[t] == 2:
                pick = next((i, index[t ^ b]) for i, b in enumerate(base) if t ^ b in index)
                break
        if pick is None:
            best: tuple | None = None
            seen: set[int] = set()
            for i in range(len(base)):
                for j in range(i + 1, len(base)):
                    e = base[i] ^ base[j]
                    if e in index or e in seen:
                        continue
                    seen.add(e)
                    new = [min(d[t], 1 + d[t ^ e]) for t in left]
                    key = (sum(new), -sum(x * x for x in new), rng.random() if rng else 0.0)
                    if best is None or key < best[0]:
                        best = (key, (i, j))
            assert best is not None
            pick = best[1]
        e = base[pick[0]] ^ base[pick[1]]
        index[e] = len(base)
        base.append(e)
        steps.append(pick)


@cache
def program(rows: tuple[int, ...], n: int, tries: int = TRIES) -> tuple[list[tuple], list[list]]:
    """(terms, sets) in the form of xornet.paar: term i = ("t", i) is the XOR of two elements ("v", j) input j
    or ("t", i); sets[k] lists the elements whose XOR is row k (one element, or none for a zero row)."""
    assert n <= MAX_INPUTS
    rng = random.Random(0)
    best = min((_run(rows, n, rng if k else None) for k in range(tries)), key=len)
    elems: list[tuple] = [("v", j) for j in range(n)]
    value = {1 << j: ("v", j) for j in range(n)}
    vec = [1 << j for j in range(n)]
    terms = []
    for i, j in best:
        terms.append((elems[i], elems[j]))
        elems.append(("t", len(terms) - 1))
        vec.append(vec[i] ^ vec[j])
        value.setdefault(vec[-1], elems[-1])
    return terms, [[value[r]] if r else [] for r in rows]
