"""Derived key words in loops: where set_key's derived words (keysplit.py) are the same network of ops over each
row of a key array, the network is printed once, inside a loop over the rows, instead of once a row.  The same
ops compute the same values; only the text shrinks, and with it what g++, cicc and ptxas read.  AES-128's bit
planes are one example: rk[1] .. rk[9] each give 128 planes and their 128 InvMixColumns'd ones, 2,009 ops a row,
and the 18,851 printed ops become 2,777.

    before:  const uint32_t v0 = (uint32_t)rk[16]; ...  d[128] = v7; ...            (rows 1 .. 9, one after another)
    after:   for (int k = 0; k < 9; ++k) {  // rk[1 + k]
                 const uint32_t *const kr = rk + 16 + 16 * k;  volatile uint32_t *const dk = d + 128 * k;
                 const uint32_t v0 = (uint32_t)kr[0]; ...  dk[128] = v7; ... }

- **A row** is a key array's major index (``rk[3][*]``; a one-dimensional array's word is a row of one).
- **An op belongs to a row** when every key word it reads is of that row. Constants belong to none; any row may
  read them.
- **A class** is the rows whose ops print the same: inputs by their minor index, constants by value, outputs in
  order.
- **A class becomes a loop** when it has at least MIN_ROWS rows and three things step by one stride each: its rows,
  their words' flat offsets, and their outputs' slots.

The rest stays straight-line, as before.  Generic: nothing here knows a cipher.  AES's, SM4's and PRESENT's
rows loop; rows whose networks differ (ARIA's, where value numbering merged different subexpressions per round)
stay as they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cipherspec.ir import Function, Op

MIN_ROWS = 3  # (two rows gain little text and cost a loop)

_WORD = re.compile(r"^(\w+)\[(\d+)\](.*)$")


@dataclass(frozen=True)
class RowLoop:
    """One class's loop: ``body`` is its first row's network, inputs named as that row's words and outputs as its
    derived words; row k (0 .. count-1) reads ``rk + in_base + in_stride * k`` and writes ``d + out_stride * k``."""

    array: str
    first: int  # the first row's major index
    step: int  # between rows' major indices
    count: int
    body: Function
    in_base: int  # the first row's lowest flat word offset (index of its words in rk)
    in_stride: int
    out_stride: int


def _row(name: str) -> tuple[str, int] | None:
    m = _WORD.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def split(fn: Function, index: dict[str, int], slot: dict[str, int]) -> tuple[Function, list[RowLoop]]:
    """``fn``: the derived words (keysplit.KeySplit.derive, possibly cut to some arrays); ``index``: a key word's flat
    offset in rk; ``slot``: a derived word's offset in d.  (the ops printed straight, the loops); without a class to
    loop, (fn, [])."""
    row: list[tuple[str, int] | None | str] = []  # per op: its row, None (a constant), "many" (reads several rows)
    for op in fn.ops:
        if op.code == "input":
            r = _row(op.imm[0])
            row.append(r if r is not None else "many")
        elif op.code == "const":
            row.append(None)
        else:
            rs = {row[a] for a in op.args} - {None}
            row.append(rs.pop() if len(rs) == 1 else ("many" if rs else None))
    outs: dict[object, list[tuple[str, int]]] = {}
    for name, v in fn.outputs:
        outs.setdefault(row[v], []).append((name, v))
    members: dict[object, list[int]] = {}
    for i, r in enumerate(row):
        if isinstance(r, tuple):
            members.setdefault(r, []).append(i)
    escapes = {row[a] for i, op in enumerate(fn.ops) for a in op.args if row[a] != row[i]}  # rows others read
    classes: dict[tuple, list[tuple[str, int]]] = {}
    for r, ops in members.items():
        if r not in escapes:
            classes.setdefault((r[0], _shape(fn, ops, outs.get(r, []))), []).append(r)
    loops, looped = [], set()
    for rows in classes.values():
        loop = _loop(fn, sorted(rows), members, outs, index, slot)
        if loop is not None:
            loops.append(loop)
            looped.update(rows)
    if not loops:
        return fn, []
    keep = [i for i, r in enumerate(row) if r not in looped]
    rest = _sub(fn, keep, [(n, v) for n, v in fn.outputs if row[v] not in looped], None)
    return rest, loops


def _shape(fn: Function, ops: list[int], outputs: list[tuple[str, int]]) -> tuple:
    """How a row's ops print, the row itself left out: inputs by minor index, other rows' values never (a row's op
    reads its own row and constants only), constants by value, the outputs' values by position."""
    local = {i: k for k, i in enumerate(ops)}
    out = []
    for i in ops:
        op = fn.ops[i]
        if op.code == "input":
            out.append(("input", op.width, _WORD.sub(r"\3", op.imm[0])))  # ([minor] ...)
        else:
            args = tuple(local[a] if a in local else ("const", fn.ops[a].width, fn.ops[a].imm) for a in op.args)
            out.append((op.code, op.width, args, op.imm))
    return tuple(out), tuple(local[v] for _, v in outputs)


def _loop(
    fn: Function,
    rows: list[tuple[str, int]],
    members: dict,
    outs: dict,
    index: dict[str, int],
    slot: dict[str, int],
) -> RowLoop | None:
    """The class's loop, or None where it is too small or its rows, words or slots do not step evenly."""
    if len(rows) < MIN_ROWS:
        return None
    step = rows[1][1] - rows[0][1]
    if step <= 0 or any(rows[k][1] - rows[0][1] != k * step for k in range(len(rows))):
        return None
    words = [[index[fn.ops[i].imm[0]] for i in members[r] if fn.ops[i].code == "input"] for r in rows]
    slots = [[slot[n] for n, _ in outs.get(r, [])] for r in rows]
    in_stride = words[1][0] - words[0][0] if words[0] else 0
    out_stride = slots[1][0] - slots[0][0] if slots[0] else 0
    for k in range(len(rows)):
        if any(w - w0 != k * in_stride for w, w0 in zip(words[k], words[0])):
            return None
        if any(s - s0 != k * out_stride for s, s0 in zip(slots[k], slots[0])):
            return None
    if not slots[0] or out_stride <= 0:
        return None  # (a row that derives nothing, or rows that write over each other)
    first = rows[0]
    body = _sub(fn, members[first], outs[first], first)
    return RowLoop(first[0], first[1], step, len(rows), body, min(words[0]) if words[0] else 0, in_stride, out_stride)


def _sub(fn: Function, keep: list[int], outputs: list[tuple[str, int]], row: tuple[str, int] | None) -> Function:
    """fn's ops ``keep`` (and the constants they read) as a function of their own, with ``outputs``.  (row: a class's
    first row, whose ops read constants only from outside it.)"""
    need = set(keep)
    if row is not None:
        need |= {a for i in keep for a in fn.ops[i].args if fn.ops[a].code == "const"}
    order = sorted(need)
    new = {i: k for k, i in enumerate(order)}
    ops: list[Op] = [fn.ops[i].with_args(tuple(new[a] for a in fn.ops[i].args)) for i in order]
    return fn.copy_with(ops, [(n, new[v]) for n, v in outputs])
