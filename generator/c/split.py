"""Splitting a long straight-line core into out-of-line pieces of bounded size, so that the C compiler's time
grows linearly with the cipher (gcc's scheduling and register allocation are super-linear in one huge
function: one 11 000-statement bitsliced AES core took 19 s, its pieces take a fraction of that).

A core is a list of statements, each defining and using values (C variable names, or array elements such
as ``r7[3]``).  Cut points are chosen near every ``size`` statements, where the fewest values are live;
each piece becomes a function that reads the values it needs from a slot array ``v`` and writes the ones
later pieces need back into it (a slot is reused once its value is dead).

    before: static void core(...) { s0; s1; ...; s10999; }
    after:  static void core_0(const K *ks, const T *s, T *o, T *v) { const T p12 = v[0]; ...; v[3] = p977; }
            ... core_13 ...;   core(...) { T v[183]; core_0(ks, s, o, v); ... core_13(ks, s, o, v); }
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ELEMENT = re.compile(r"^(\w+)\[(\d+)\]$")


@dataclass(frozen=True)
class Stmt:
    text: str  # one line of C, with its indentation and comment
    defs: tuple[str, ...]  # values it defines
    uses: tuple[str, ...]  # values it reads (defined by earlier statements)


@dataclass(frozen=True)
class Pieces:
    functions: list[list[str]]  # each piece's body lines (live-ins loaded, statements, live-outs stored)
    slots: int  # size of the slot array


def cuts(stmts: list[Stmt], size: int) -> list[int]:
    """Piece boundaries: 0, then near every ``size`` statements the one with the fewest live values."""
    n = len(stmts)
    if n <= size * 3 // 2:
        return [0]
    last: dict[str, int] = {}
    for i, s in enumerate(stmts):
        for u in s.uses:
            last[u] = i
    delta = [0] * (n + 1)  # live(i) = values defined before i and used at i or later
    for i, s in enumerate(stmts):
        for d in s.defs:
            if last.get(d, -1) > i:
                delta[i + 1] += 1
                delta[last[d] + 1] -= 1
    live, acc = [], 0
    for i in range(n + 1):
        acc += delta[i]
        live.append(acc)
    out = [0]
    while n - out[-1] > size * 3 // 2:
        lo, hi = out[-1] + size * 3 // 4, min(out[-1] + size * 5 // 4, n - size // 2)
        out.append(min(range(lo, hi + 1), key=lambda i: (live[i], abs(i - out[-1] - size))))
    return out


def split(stmts: list[Stmt], size: int, ctype: str, indent: str = "    ") -> Pieces:
    """The pieces' bodies; each reads/writes crossing values through ``v`` (type ``ctype``)."""
    bounds = cuts(stmts, size) + [len(stmts)]
    owner: dict[str, int] = {}  # value -> piece that defines it
    last: dict[str, int] = {}  # value -> last piece that uses it
    for k in range(len(bounds) - 1):
        for s in stmts[bounds[k]:bounds[k + 1]]:
            for d in s.defs:
                owner[d] = k
            for u in s.uses:
                last[u] = k
    slot: dict[str, int] = {}
    free: list[int] = []
    top = 0
    bodies = []
    for k in range(len(bounds) - 1):
        piece = stmts[bounds[k]:bounds[k + 1]]
        ins = sorted({u for s in piece for u in s.uses if owner.get(u, k) < k}, key=_order)
        outs = sorted({d for s in piece for d in s.defs if last.get(d, k) > k}, key=_order)
        lines = _loads(ins, slot, ctype, indent) + [s.text for s in piece]
        for value in ins:  # dead after this piece: its slot is free for the values this piece hands on
            if last[value] == k:
                free.append(slot.pop(value))
        for value in outs:
            if free:
                slot[value] = min(free)
                free.remove(slot[value])
            else:
                slot[value], top = top, top + 1
            lines.append(f"{indent}v[{slot[value]}] = {value};")
        bodies.append(lines)
    return Pieces(bodies, max(top, 1))


def _order(value: str):
    m = _ELEMENT.match(value)
    return (m.group(1), int(m.group(2))) if m else (value, -1)


def _loads(values: list[str], slot: dict[str, int], ctype: str, indent: str) -> list[str]:
    """Live-ins: a scalar value as a const local, array elements into a local array of the same name."""
    lines, arrays = [], {}
    for value in values:
        m = _ELEMENT.match(value)
        if m:
            arrays.setdefault(m.group(1), []).append((int(m.group(2)), slot[value]))
        else:
            lines.append(f"{indent}const {ctype} {value} = v[{slot[value]}];")
    for name, elements in arrays.items():
        size = max(i for i, _ in elements) + 1
        lines.append(f"{indent}{ctype} {name}[{size}];")
        lines += [f"{indent}{name}[{i}] = v[{s}];" for i, s in elements]
    return lines
