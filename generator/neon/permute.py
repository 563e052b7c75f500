"""Byte gathers for the packed layout: split a vector of XOR sums into permuted copies of registers.

Lane l of the wanted vector is the XOR of the atoms in ``need[l]``; ``contents[v][j]`` is the atom in
byte j of register v.  ``cover`` returns terms whose XOR is the wanted vector, each term taking exactly
one remaining atom per lane (a greedy cover of the linear map's ones by permutation matrices).  Cheap
terms first — the register as it is, then REV16/REV32/REV64 on bytes, halfwords or words and EXT (all
lanes must match, since those cannot zero a lane; a permuted copy made for one term is a source for the
next, so compositions such as EXT∘REV16 are found too) — and otherwise one TBL over up to 4 source registers (+ TBX for more), whose
index 0xff zeroes a lane that has nothing left.

    need     = [{a1, b0}, {a0, b1}]          (2 lanes shown)      contents = {A: [a0, a1], B: [b0, b1]}
    cover -> [Gather("rev16", (A,)), Gather("tbl", (B,), index=[0, 1])]   i.e. rev16(A) ^ B

Dead lanes (None) are don't-care.  Deterministic: candidates are tried newest vreg first (shorter live ranges).
"""

from __future__ import annotations

from dataclasses import dataclass

PATTERNS = (
    (("reg", lambda lane: lane),)
    + tuple(  # REV<n>.<arr> swaps lane l with l ^ mask
        (f"{mn}.{arr}", lambda lane, m=m: lane ^ m)
        for mn, arr, m in (
            ("rev16", "16b", 1),
            ("rev32", "8h", 2),
            ("rev32", "16b", 3),
            ("rev64", "4s", 4),
            ("rev64", "8h", 6),
            ("rev64", "16b", 7),
        )
    )
    + tuple((f"ext{n}", lambda lane, n=n: (lane + n) & 15) for n in range(1, 16))
)


@dataclass(frozen=True)
class Gather:
    kind: str  # "reg", "rev<n>.<arrangement>", "ext<n>", "tbl"
    sources: tuple  # vregs (tbl: several; each 4 consecutive form one TBL/TBX register list)
    index: bytes = b""  # tbl only: byte l = 16 * (source position) + lane, 0xff = zero


def cover(need: list, contents: dict, where: dict | None = None) -> list[Gather]:
    """``where`` (atom -> [(vreg, lane)]) may be passed in when the caller keeps it up to date."""
    remaining = [set(s) if s is not None else None for s in need]
    if where is None:
        where = {}
        for v in sorted(contents, key=lambda v: v.id):
            for j, a in enumerate(contents[v]):
                if a is not None:
                    where.setdefault(a, []).append((v, j))
    terms = []
    while any(remaining):
        t = _cheap(remaining, contents, where)
        if t is None:
            t = _tbl(remaining, contents, where)
        terms.append(t)
    return terms


def _cheap(remaining: list, contents: dict, where: dict) -> Gather | None:
    live = [lane for lane, s in enumerate(remaining) if s is not None]
    if not all(remaining[lane] for lane in live):
        return None
    cands = sorted({v for lane in live for a in remaining[lane] for v, _ in where.get(a, ())}, key=lambda v: -v.id)
    for kind, f in PATTERNS:
        for v in cands:
            c = contents[v]
            if all(c[f(lane)] in remaining[lane] for lane in live):
                for lane in live:
                    remaining[lane].discard(c[f(lane)])
                return Gather(kind, (v,))
    return None


def _tbl(remaining: list, contents: dict, where: dict) -> Gather:
    """One TBL term: greedily the source serving most lanes, then the next, for the lanes still open."""
    open_lanes = [lane for lane, s in enumerate(remaining) if s]
    index = bytearray(b"\xff" * 16)
    sources: list = []
    while open_lanes:
        serve: dict = {}
        for lane in open_lanes:
            for a in sorted(remaining[lane], key=repr):
                for v, j in where[a]:
                    if v not in sources:
                        serve.setdefault(v, {}).setdefault(lane, (j, a))
        if not serve:
            raise AssertionError("packed gather: an atom lives in no register")
        v = max(sorted(serve, key=lambda v: -v.id), key=lambda v: len(serve[v]))
        k = len(sources)
        sources.append(v)
        if 16 * (k // 4) >= len(index):  # a further register list: a TBX over the next 4 sources
            index += b"\xff" * 16
        for lane, (j, a) in serve[v].items():
            index[16 * (k // 4) + lane] = 16 * (k % 4) + j
            remaining[lane].discard(a)
        open_lanes = [lane for lane in open_lanes if lane not in serve[v]]
    return Gather("tbl", tuple(sources), bytes(index))
