"""Lever 2 of issue 25 (a one-round loop body for ARIA), analysis only: is ARIA's even round its odd round seen
through a byte permutation of the state?  FE(D, K) = A(SL2(D ^ K)), FO(D, K) = A(SL1(D ^ K)) (RFC 5794); SL2 is SL1
with the S-box types shifted by two positions, so SL2 = M SL1 M for any byte permutation M that moves type t
(byte i has type i % 4) to t + 2 and is an involution; then FE(D, K) = M FO(M D, M K) exactly when M A M = A.
This searches every such M (24^4 of them) against the diffusion matrix A as written in cipherspec/ciphers/aria.cs.

    python3 bench/gpu/aria_frames.py        -> the M that commute with A (one: byte i <-> byte i ^ 2)

With it, state u_r = M^r x_r makes every round u_{r+1} = M FO(u_r, M^r k_r): one round-loop body (M is a renaming
of the carried planes, free), the odd rounds' key planes stored permuted by set_key.  Not built (bench/results/ariaroof.md).
"""

from __future__ import annotations

import itertools

import numpy as np

ROWS = [  # y_i = XOR of x_j (aria.cs's A with T1..T4 expanded)
    [6, 8, 13, 3, 4, 9, 14],
    [7, 9, 12, 2, 5, 8, 15],
    [4, 10, 15, 1, 6, 11, 12],
    [5, 11, 14, 0, 7, 10, 13],
    [0, 11, 14, 2, 5, 8, 15],
    [1, 10, 15, 3, 4, 9, 14],
    [2, 9, 12, 0, 7, 10, 13],
    [3, 8, 13, 1, 6, 11, 12],
    [1, 4, 15, 0, 7, 10, 13],
    [0, 5, 14, 1, 6, 11, 12],
    [3, 6, 13, 2, 5, 8, 15],
    [2, 7, 12, 3, 4, 9, 14],
    [2, 7, 9, 1, 6, 11, 12],
    [3, 6, 8, 0, 7, 10, 13],
    [0, 5, 11, 3, 4, 9, 14],
    [1, 4, 10, 2, 5, 8, 15],
]


def main() -> int:
    A = np.zeros((16, 16), int)
    for i, r in enumerate(ROWS):
        A[i, r] ^= 1
    assert ((A @ A) % 2 == np.eye(16, dtype=int)).all(), "A is an involution"
    cls = [[i for i in range(16) if i % 4 == t] for t in range(4)]
    found = []
    for images in itertools.product(*(itertools.permutations(cls[(t + 2) % 4]) for t in range(4))):
        m = [0] * 16
        for t, img in enumerate(images):
            for i, j in zip(cls[t], img):
                m[i] = j
        M = np.eye(16, dtype=int)[m]
        if all(m[m[i]] == i for i in range(16)) and ((M @ A @ M) % 2 == A).all():
            found.append(m)
    for m in found:
        print("M: byte i -> byte", m)
    print(f"{len(found)} type-shifting involution(s) commute with A")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
