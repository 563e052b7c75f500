"""The inputs ``cipherspec test`` runs: random keys, IVs and data from one seed, at the lengths that break
kernels (block and lane-group boundaries) and the counters that do (next to 2^32, 2^64 and 2^bits carries).

    Case(key, iv, data, why)          one input of every mode (ECB and CBC take its whole-block prefix)
    cases(seed, "speck128_128", key_bytes=16, block=16, lanes=32, depth="quick") -> [Case, ...]
    data_for(seed, key, iv, length)   the data of a case: a function of the seed, key, IV and length, so
                                      that ``--key K --iv I --length N --seed S`` reruns exactly one case
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

DEPTHS = ("quick", "full")


@dataclass(frozen=True)
class Case:
    key: bytes
    iv: bytes
    data: bytes
    why: str  # "65 blocks +1 byte", "counter 1 below 2^64"
    counter: bool = False  # a case for the counter modes only


def _rng(seed: int, *parts: object) -> np.random.Generator:
    h = hashlib.sha256(repr((seed, *parts)).encode()).digest()
    return np.random.default_rng(list(np.frombuffer(h, np.uint32)))


def data_for(seed: int, key: bytes, iv: bytes, length: int) -> bytes:
    return _rng(seed, "data", key, iv, length).bytes(length)


def case(seed: int, key: bytes, iv: bytes, length: int, why: str, counter: bool = False) -> Case:
    return Case(key, iv, data_for(seed, key, iv, length), why, counter)


def block_counts(lanes: int, depth: str) -> list[int]:
    """quick: 0, 1, one lane group +-1 block and two groups + 1; full: 0, 1, 2 and one to four groups +-1."""
    if depth == "quick":
        counts = {0, 1, lanes - 1, lanes, lanes + 1, 2 * lanes + 1}
    else:
        counts = {0, 1, 2} | {k * lanes + d for k in (1, 2, 3, 4) for d in (-1, 0, 1)}
    return sorted(c for c in counts if c >= 0)


def cases(seed: int, tag: str, key_bytes: int, block: int, lanes: int, depth: str) -> list[Case]:
    """Every case of one kernel of ``lanes`` blocks per run.  Keys, IVs and data depend on the seed, ``tag``
    (the cipher) and the length only, so kernels of one cipher share cases (and the interpreter's answers)."""
    rng = _rng(seed, tag)
    key, iv = rng.bytes(key_bytes), rng.bytes(block)
    out = []
    for n in block_counts(lanes, depth):  # whole blocks: every mode; CTR also one byte short and over
        tails = (0,) if depth == "quick" and n not in (1, lanes) else (-1, 0, 1)
        for t in tails:
            if n * block + t >= 0 and not (n == 0 and t < 0):
                length = n * block + t
                kn = _rng(seed, tag, "key", length).bytes(key_bytes) if depth == "full" else key
                out.append(case(seed, kn, iv, length, f"{n} block{'s' * (n != 1)}{f' {t:+d} byte' if t else ''}"))
    bits = 8 * block
    for k in sorted({32, 64, bits}):  # counters just below a carry out of the low k bits (2^bits: the wrap)
        if k > bits:
            continue
        high = int.from_bytes(_rng(seed, tag, "counter", k).bytes(block), "big") >> k << k
        for below in (1, lanes) if depth == "quick" else (1, lanes, 2 * lanes + 1):
            civ = ((high + (1 << k) - below) % (1 << bits)).to_bytes(block, "big")
            length = ((lanes + 2) if depth == "quick" else (2 * lanes + 3)) * block + 5  # past the carry
            out.append(case(seed, key, civ, length, f"counter {below} below 2^{k}", True))
    if depth == "full":
        for j in range(8):
            r = _rng(seed, tag, "random", j)
            length = int(r.integers(0, 4 * lanes * block + 1))
            out.append(case(seed, r.bytes(key_bytes), r.bytes(block), length, f"random, {length} bytes"))
    return out
