"""The derived key words' order in the round-key struct, from the cores' round loops: every word a kernel reads
at an offset that does not depend on the number of rounds.

keysplit.py numbers the derived words D[k] as the split meets them, so a core's last round reads words after
all the loop's: AES-128's encrypt post part reads rk.w[1456 ..], AES-256's rk.w[2032 ..], and every kernel of the
two differs in those offsets (with the key schedule's 176 or 240 words before them, in every offset).  Here:

  1. fixed words: every word a core's pre or post part reads (or a core without a loop, all of it), in first-use
     order over the cores' parts -- the same parts give the same order, whatever the round count; where each
     region's loop's pre part reads a row's width of words, those last, as row -1 (ARIA: ek[0], ek[1]);
  2. then the loops' rows: a loop whose body keys are new words opens a region (iteration i its row i); a loop
     whose keys all sit in a region at one row step (AES's CTR core: the encrypt loop's rows 1 ..) reads that
     one; rows of several regions interleave (row i: region 0's words, then region 1's), so that each region's
     rows start at a fixed word and step by the sum of the widths.

    before (AES-128): D = [enc pre 128][enc body 9 x 128][enc post 128][dec body 9 x 128]   post at 1280
    after:            D = [enc pre 128][dec pre 128][row 0: enc 128, dec 128][row 1] ...   dec pre at 128,
                      enc row i at 256 + 256 i, dec row i at 384 + 256 i                    (AES-256 the same)

The struct starts with HEAD words, the first the number of rows: a loop that reads rows r0 .. r0 + n - 1 runs
``rk.w[0] - (rows - n)`` trips, so its code does not hold the member's round count either.

Where the regions do not line up (loops of different lengths opening regions, a loop reading part of a region),
the split's order stays.  A pure renumbering: the loops' strides are re-checked in the new order.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function

from .roundloop import RoundLoop

HEAD = 4  # the struct's first words: [0] the rows (a kernel's round loop runs rk.w[0] - c trips), [2] the words the
# key takes (the rest of a struct padded to its family's largest member's: source.py's gcm_part), [1] and [3] zero
OWN_WORDS = 2


def word_offsets(schedule_words: int, derived_words: int, derived_first: bool) -> tuple[int, int]:
    """(the key schedule's first word, the derived words' first word) in the round-key struct: the schedule's words
    then the derived ones, or, where reorder() ordered them, HEAD words, the derived words, then the schedule's.

        word_offsets(176, 2560, False) -> (0, 176)        word_offsets(176, 2560, True) -> (2564, 4)"""
    return (HEAD + derived_words, HEAD) if derived_first else (0, schedule_words)


@dataclass(frozen=True)
class Ordered:
    derive: Function  # the derived words, in the order above
    rows: int  # the loops' rows: the struct's word 0, from which each loop's trip count is read at run time


def reorder(derive: Function, cores: dict[str, Function], loops: dict[str, RoundLoop | None]) -> Ordered | None:
    """``derive`` with its outputs in the order above, and the rows; or None where it does not apply (no loop, or
    one whose keys do not fit a region)."""
    names = [n for n, _ in derive.outputs]
    known = set(names)
    looped = [(f, lp) for f, lp in loops.items() if lp is not None]
    if not looped:
        return None
    regions: list[tuple[int, int]] = []  # (width, rows)
    openers: list[RoundLoop] = []  # the loop that opened each region
    where: dict[str, tuple[int, int, int]] = {}  # word -> (region, row, column)
    for _, lp in looped:
        keys = lp.keys
        if _reads_region(keys, where):
            continue
        if any(k in where for ks in keys for k in ks) or len({k for ks in keys for k in ks}) != sum(map(len, keys)):
            return None
        if any(len(ks) != len(keys[0]) for ks in keys):
            return None
        r = len(regions)
        regions.append((len(keys[0]), len(keys)))
        openers.append(lp)
        for i, ks in enumerate(keys):
            for j, k in enumerate(ks):
                where[k] = (r, i, j)
    if len({rows for _, rows in regions}) != 1:
        return None
    before = _row_before(openers, regions, where, known)
    fixed: list[str] = []
    seen = set(where) | set(before)
    for f, fn in cores.items():
        loop = loops.get(f)
        for part in (loop.pre, loop.post) if loop is not None else (fn,):
            for op in part.ops:
                if op.code == "input" and op.imm[0] in known and op.imm[0] not in seen:
                    seen.add(op.imm[0])
                    fixed.append(op.imm[0])
    rows = regions[0][1]
    by_place = {place: k for k, place in where.items()}
    order = fixed + before
    order += [by_place[(r, i, j)] for i in range(rows) for r, (w, _) in enumerate(regions) for j in range(w)]
    order += [n for n in names if n not in seen]  # (read by no core: kept, last)
    index = {n: k for k, n in enumerate(order)}
    if len(order) != len(names) or any(lp.stride(index) is None for _, lp in looped):
        return None
    value = dict(derive.outputs)
    return Ordered(derive.copy_with(derive.ops, [(n, value[n]) for n in order]), rows)


def _row_before(openers: list[RoundLoop], regions: list[tuple[int, int]], where: dict, known: set[str]) -> list[str]:
    """Row -1 of the rows: where each region's loop's first part reads exactly a row's width of words of its own
    (ARIA: ek[0], ek[1] before encrypt's rows of ek[2 + 2i], ek[3 + 2i]), those words in the row just before row 0,
    so that the rows' key arrays step on evenly into them (deriveloop.py loops ek[1, 3, .., 11], not ek[3 .., 11]);
    else none."""
    row: list[str] = []
    for lp, (width, _) in zip(openers, regions):
        words = list(dict.fromkeys(op.imm[0] for op in lp.pre.ops if op.code == "input" and op.imm[0] in known))
        if len(words) != width or any(w in where or w in row for w in words):
            return []
        row += words
    return row


def _reads_region(keys: tuple[tuple[str, ...], ...], where: dict[str, tuple[int, int, int]]) -> bool:
    """Every body key already in one region, iteration i at row r0 + i * d, each K[j] in one column."""
    if any(k not in where for ks in keys for k in ks):
        return False
    places = [[where[k] for k in ks] for ks in keys]
    region, r0, _ = places[0][0]
    d = places[1][0][1] - r0 if len(places) > 1 else 1
    return all(p == (region, r0 + i * d, places[0][j][2]) for i, ps in enumerate(places) for j, p in enumerate(ps))
