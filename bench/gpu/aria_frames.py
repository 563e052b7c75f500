"""Lever 2 of issue 25 (a one-round loop body for ARIA), as a bench spec: is ARIA's even round its odd round seen
through a byte permutation of the state?  FE(D, K) = A(SL2(D ^ K)), FO(D, K) = A(SL1(D ^ K)) (RFC 5794); SL2 is SL1
with the S-box types shifted by two positions, so SL2 = M SL1 M for any byte permutation M that moves type t
(byte i has type i % 4) to t + 2 and is an involution; then FE(D, K) = M FO(M D, M K) exactly when M A M = A.
This searches every such M (24^4 of them) against the diffusion matrix A as written in cipherspec/ciphers/aria.cs.

    python3 bench/gpu/aria_frames.py        -> the M that commute with A (one: byte i <-> byte i ^ 2)
    python3 bench/gpu/aria_frames.py --spec OUT.cs   -> writes that form of ARIA as a spec (cipher aria128f, the same
        cipher: tests/unit/test_aria_frames.py), made from cipherspec/ciphers/aria.cs's tables and layers

With it, state u_r = M^r x_r makes every round u_{r+1} = M FO(u_r, M^r k_r): one round-loop body (M is a renaming
of the carried planes, free), the FE rounds' round keys stored through M by the key schedule: the spec --spec writes,
which the compiler re-rolls one round an iteration as it is (bench/results/ariaroof2.md).  Not a shipped spec.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

ARIA = Path(__file__).resolve().parents[2] / "cipherspec" / "ciphers" / "aria.cs"
HEADER = """\
# ARIA — RFC 5794 (KS X 1213), written so that every round is the same code (bench only: issue 25's lever 2).
# Not a shipped spec: the same cipher as cipherspec/ciphers/aria.cs (bench/gpu/aria_frames.py has the algebra).
# M swaps bytes i and i ^ 2; it commutes with the diffusion layer A and turns SL1 into SL2 (SL2 = M SL1 M), so the
# even round is FE(D, K) = M(FO(M(D), M(K))).  With the state held as U = M^r(X) after round r, every round is
# U = M(FO(U, K')), K' the round key as the key schedule stores it: M(ek) for the even-numbered (FE) rounds.
# 128-bit block as 16 bytes x0..x15, everything big-endian; 128/192/256-bit keys; 12/14/16 rounds.

"""
FNS = """\
  # round functions: odd (FO) and even (FE); M: the byte swap that maps one onto the other
  fn M(x: u8[16]) -> u8[16] = [x[i ^ 2] for i in 0..16];
  fn FO(D: u8[16], RK: u8[16]) -> u8[16] = A(SL1(D ^ RK));
  fn FE(D: u8[16], RK: u8[16]) -> u8[16] = A(SL2(D ^ RK));

  # key schedule (RFC 5794 2.2), then the round keys of the FE-type rounds stored through M: encryption round i
  # (from 0) is FE for odd i, decryption step j is FE when rounds - j is odd.
  key_schedule(K) -> ek: u8[rounds + 1][16], dk: u8[rounds + 1][16] {
"""
KS_TAIL = """\
    for i in 0..rounds + 1 {
      if i % 2 == 1 { ek[i] = M(E[i]); } else { ek[i] = E[i]; }
    }
    for j in 0..rounds + 1 {
      var d = E[0];
      if j == 0 { d = E[rounds]; } else if j < rounds { d = A(E[rounds - j]); }
      if (rounds - j) % 2 == 1 { dk[j] = M(d); } else { dk[j] = d; }
    }
  }

  # every round U = M(FO(U, K')); U = X or M(X) by the rounds' parity (M is a renaming of the state's bytes)
  encrypt(X, ek) {
    var U = X;
    for i in 0..rounds - 1 { U = M(FO(U, ek[i])); }
    if rounds % 2 == 0 { X = SL2(M(U) ^ M(ek[rounds - 1])) ^ ek[rounds]; }
    else { X = SL1(U ^ ek[rounds - 1]) ^ M(ek[rounds]); }
  }

  decrypt(X, dk) {
    var U = X;
    if rounds % 2 == 1 { U = M(X); }                   # (its first step is FE-type)
    for j in 0..rounds - 1 { U = M(FO(U, dk[j])); }
    X = SL2(M(U) ^ M(dk[rounds - 1])) ^ dk[rounds];
  }
}

cipher aria128f = ariaf(nk = 4, rounds = 12);
"""


def spec_text() -> str:
    """aria.cs's S-boxes, constants and layers with the frames form's round functions, key schedule and
    encrypt/decrypt (every round U = M(FO(U, K')), the FE rounds' keys stored through M)."""
    src = ARIA.read_text()
    layers = src[src.index("family aria(nk, rounds) {") : src.index("  # round functions: odd (FO) and even (FE)")]
    ks = src[src.index("    let q = (nk - 4) / 2;") : src.index("    dk[0] = ek[rounds];")]  # W0..W3, ek1..ek(n+1)
    ks = ks.replace("ek[i] = a ^", "E[i] = a ^").replace(
        "    for i in 0..rounds + 1 {",
        "    var E: u8[rounds + 1][16] = [[0 for j in 0..16] for i in 0..rounds + 1];\n"
        + "    for i in 0..rounds + 1 {",
        1,
    )
    return HEADER + layers.replace("family aria(", "family ariaf(", 1) + FNS + ks + KS_TAIL


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
    if sys.argv[1:2] == ["--spec"]:
        Path(sys.argv[2]).write_text(spec_text())
        return 0
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
