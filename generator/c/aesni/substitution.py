"""Byte substitutions of a word in the IR: the bytes of a w-bit value each looked up in a table and packed
back in place, recognised from the ops (no name involved), for the word-sliced kernels (wordsliced.py).

    before: %9 = trunc.u8 %8   %10 = shr.u32 %8, 8   %11 = trunc.u8 %10   ...   %16 = lut.u8 %15, @S ...
            %20 = zext.u32 %19   %22 = shl.u32 %21, 8   %23 = or.u32 %20, %22   ...   %29 = or.u32 %26, %28
    after:  groups(fn, 32) -> {29: Group(root=29, src=8, tables=("S", "S", "S", "S"))}
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function


@dataclass(frozen=True)
class Group:
    """``root`` = the bytes of ``src`` (a w-bit word) each through its table, packed back in place:
    byte k of the result = tables[k][byte k of src]."""

    root: int
    src: int
    tables: tuple[str, ...]


def _leaves(fn: Function, vid: int, w: int) -> list[int]:
    op = fn.ops[vid]
    if op.code in ("or", "xor") and op.width == w:
        return _leaves(fn, op.args[0], w) + _leaves(fn, op.args[1], w)
    return [vid]


def _byte_term(fn: Function, vid: int, w: int) -> tuple[int, int, int, str] | None:
    """zext(lut T (trunc.u8 (w >> k))) << j -> (w's value id, k, j, T), else None."""
    op, at = fn.ops[vid], 0
    if op.code == "shl" and op.width == w:
        at, op = op.imm[0], fn.ops[op.args[0]]
    if op.code != "zext" or op.width != w:
        return None
    lut = fn.ops[op.args[0]]
    if lut.code != "lut" or lut.width != 8:
        return None
    idx = fn.ops[lut.args[0]]
    if idx.code != "trunc" or idx.width != 8:
        return None
    src, k = idx.args[0], 0
    s = fn.ops[src]
    if s.code == "shr" and s.width == w:
        src, k = s.args[0], s.imm[0]
    if fn.ops[src].width != w:
        return None
    return src, k, at, lut.imm[0]


def groups(fn: Function, w: int) -> dict[int, Group]:
    """Every substitution of the bytes of a w-bit word in ``fn``, by its root (the OR/XOR of the packed bytes)."""
    found: dict[int, Group] = {}
    for vid, op in enumerate(fn.ops):
        if op.code not in ("or", "xor") or op.width != w:
            continue
        terms = [_byte_term(fn, leaf, w) for leaf in _leaves(fn, vid, w)]
        if any(t is None for t in terms) or len(terms) != w // 8:
            continue
        srcs = {t[0] for t in terms if t}
        at = {t[1]: t for t in terms if t and t[1] == t[2]}
        if len(srcs) == 1 and sorted(at) == list(range(0, w, 8)):
            found[vid] = Group(vid, srcs.pop(), tuple(at[8 * k][3] for k in range(w // 8)))
    return found
