"""Short XOR programs for small linear maps: Boyar and Peralta's distance heuristic (published method, "A new
combinational logic minimization technique with applications to cryptology", 2010), for maps of at most
``MAX_INPUTS`` input bits, where the distance of every vector from the current base can be tabulated exactly.

The base starts as the input bits; each step adds the XOR of two base elements: a target at distance one if
there is one, else the sum that most lowers the summed distances of the targets (ties: the larger Euclidean
norm of the distance vector, which keeps the remaining targets unevenly far, as Boyar and Peralta found best).
Distances are one table over all 2^n vectors (the weights to begin with), updated as each sum e joins the
base: dist(v) = min(dist(v), 1 + dist(v ^ e)).  Of a few runs (the later ones break ties at random, seeded) the
shortest program is kept.  Paar's greedy (cipherspec/passes/xornet.py) only pairs up what the rows already
share; this also finds sums no row contains as a pair, which is where an S-box circuit's linear top merged
with an affine map gets cheap again.

    rows (over x0..x7): the 113-gate circuit's 22 top signals merged with the input map of AES's S^-1
    Paar: 31 XORs    this: 23 (the circuit's own top, for S itself: 23)
"""

from __future__ import annotations

from functools import cache

import numpy as np

MAX_INPUTS = 18  # 2^n-entry distance tables (an inversion circuit's bottom: 18 products)
TRIES = 6  # runs per map: the first with exact ties, the others with seeded random tie-breaks


@cache
def _weights(n: int) -> np.ndarray:
    """The Hamming weight of every n-bit vector (read-only: each run starts its distances from it)."""
    every = np.arange(1 << n, dtype=np.int64)
    w = np.zeros(1 << n, np.int64)
    for j in range(n):
        w += (every >> j) & 1
    w.flags.writeable = False
    return w


def _run(rows: tuple[int, ...], n: int, rng: np.random.Generator | None) -> list[tuple[int, int]]:
    """One run: the sums added, as pairs of base indices (base = the n unit vectors, then each sum made)."""
    every = np.arange(1 << n, dtype=np.int64)
    d = _weights(n)  # distance = weight, at first
    base = [1 << j for j in range(n)]
    index = {v: i for i, v in enumerate(base)}
    targets = np.array(sorted({r for r in rows if r and r not in index}), np.int64)
    steps: list[tuple[int, int]] = []
    while True:
        left = targets[d[targets] > 1]
        if not len(left):
            return steps
        b = np.array(base, np.int64)
        i, j = np.triu_indices(len(base), 1)
        sums = b[i] ^ b[j]
        near = np.isin(sums, left) & (d[sums] == 2)  # a target one XOR away: make it
        if near.any():
            k = int(np.flatnonzero(near)[0])
        else:
            new = np.minimum(d[left][None, :], 1 + d[left[None, :] ^ sums[:, None]])
            score = (new.sum(1) << 20) - (new * new).sum(1)  # fewest summed distances, then the larger norm
            score[np.isin(sums, b)] = np.iinfo(np.int64).max  # nothing new
            if rng is not None:
                score = score + rng.random(len(score))
            k = int(np.argmin(score))
        e = int(sums[k])
        index[e] = len(base)
        base.append(e)
        steps.append((int(i[k]), int(j[k])))
        d = np.minimum(d, d[every ^ e] + 1)  # a base element is used at most once: twice cancels


@cache
def program(rows: tuple[int, ...], n: int, tries: int = TRIES) -> tuple[list[tuple], list[list]]:
    """(terms, sets) in the form of xornet.paar: term i = ("t", i) is the XOR of two elements ("v", j) input j
    or ("t", i); sets[k] lists the elements whose XOR is row k (one element, or none for a zero row)."""
    assert n <= MAX_INPUTS
    rng = np.random.default_rng(0)
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
