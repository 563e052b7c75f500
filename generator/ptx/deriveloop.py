"""Derived key words in loops: where each row of a key array derives its words by the same ops, or the same bit
planes, set_key's derived words (keysplit.py) are printed once inside a loop over the rows, instead of once a row.
The same values come out; only the text shrinks, and with it what g++, cicc and ptxas read.

AES-128's bit planes: rk[1] .. rk[9] each give 128 planes and their 128 InvMixColumns'd ones, 2,009 ops a row.
Printed, that is 21,400 lines before and 3,300 after.

    before:  const uint32_t v0 = (uint32_t)rk[16]; ...  d[128] = v7; ...            (rows 1 .. 9, one after another)
    after:   for (int k = 0; k < 9; ++k) {  // rk[1 + k]
                 const uint32_t *const kr = rk + 16 + 16 * k;  volatile uint32_t *const dk = d + 128 * k;
                 const uint32_t v0 = (uint32_t)kr[0]; ...  dk[128] = v7; ... }

- A row is a key array's major index (``rk[3][*]``; a one-dimensional array's word is a row of one).
- An op belongs to a row when every key word it reads is of that row. Constants belong to none, and any row may
  read them. A row whose values an op outside it reads stays straight.
- A class is the rows of one array whose derived words are the same sets of bit planes (0 - ((w >> i) & 1),
  XORed; each output matched by its planes, however value numbering shaped each row's network). Failing that, it
  is the rows whose ops print the same: inputs by minor index, constants by value, outputs in order.
- A class of at least MIN_ROWS rows loops when three things step by one stride each: its rows, their words' flat
  offsets, and their outputs' slots. Where they step evenly only every other row, each residue of the major index
  mod 2, 3 or 4 loops on its own: ARIA's odd and even rounds, four loops for ek and dk. Anything else stays
  straight-line, as before.

Generic: nothing here knows a cipher.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cipherspec.ir import Function, Op

MIN_ROWS = 3  # (two rows gain little text and cost a loop)

_WORD = re.compile(r"^(\w+)\[(\d+)\](.*)$")
Row = tuple[str, int]  # a key array's name and major index


@dataclass(frozen=True)
class RowLoop:
    """One class's loop: ``body`` is its first row's network, inputs named as that row's words and outputs as its
    derived words; row k (0 .. count-1) reads ``rk + in_base + in_stride * k`` and writes ``d + out_stride * k``
    -- or, where its outputs step apart (keyorder.py's rows: an encrypt plane forward, its decrypt twin
    backward), output n at ``slot + out_strides[n] * k``."""

    array: str
    first: int  # the first row's major index
    step: int  # between rows' major indices
    count: int
    body: Function
    in_base: int  # the first row's lowest flat word offset (index of its words in rk)
    in_stride: int
    out_stride: int  # every output's, where they step together (else 0)
    out_strides: dict[str, int]  # body output name -> its slot's step between rows


def _row(name: str) -> Row | None:
    m = _WORD.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def split(fn: Function, index: dict[str, int], slot: dict[str, int]) -> tuple[Function, list[RowLoop]]:
    """``fn``: the derived words (keysplit.KeySplit.derive, possibly cut to some arrays); ``index``: a key word's flat
    offset in rk; ``slot``: a derived word's offset in d.  (the ops printed straight, the loops); without a class to
    loop, (fn, [])."""
    row: list[object] = []  # per op: its Row, None (a constant) or "many" (reads several rows)
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
    members: dict[Row, list[int]] = {}
    for i, tag in enumerate(row):
        if isinstance(tag, tuple):
            members.setdefault(tag, []).append(i)
    escapes = {row[a] for i, op in enumerate(fn.ops) for a in op.args if row[a] != row[i]}  # rows others read
    planes = _planes(fn)
    classes: dict[tuple, list[Row]] = {}
    keyed: dict[Row, dict] = {}  # row -> {its outputs' key (a plane's bits, else a position): slot}
    for r, ops in members.items():
        if r in escapes or not outs.get(r):
            continue
        bits = [planes[v] for _, v in outs[r]]
        if all(b is not None for b in bits) and len(set(bits)) == len(bits):  # the same planes: the same values
            sig: tuple = ("planes", frozenset(bits))
            keyed[r] = {b: slot[n] for b, (n, _) in zip(bits, outs[r])}
        else:  # the same ops in the same order
            sig = ("ops", _shape(fn, ops, outs[r]))
            keyed[r] = {p: slot[n] for p, (n, _) in enumerate(outs[r])}
        classes.setdefault((r[0], sig), []).append(r)
    loops: list[RowLoop] = []
    looped: set[Row] = set()
    for rows in classes.values():
        for part, loop in _progressions(sorted(rows), lambda p: _loop(fn, p, members, outs, keyed, index, slot)):
            loops.append(loop)
            looped.update(part)
    if not loops:
        return fn, []
    keep = [i for i, r in enumerate(row) if r not in looped]
    rest = _sub(fn, keep, [(n, v) for n, v in fn.outputs if row[v] not in looped], None)
    return rest, loops


def _progressions(rows: list[Row], loop_of) -> list[tuple[list[Row], RowLoop]]:
    """The parts of a class that loop, with their loops (``loop_of(part)``, None where a part does not loop): the
    whole class; else, where its words or slots step evenly only every other row (ARIA's odd and even rounds'
    derived words sit in two orders), each residue of the major index mod 2, 3 or 4 that does, for the first
    modulus where one does; else none."""
    whole = loop_of(rows)
    if whole is not None:
        return [(rows, whole)]
    for m in (2, 3, 4):
        parts = [p for p in ([r for r in rows if r[1] % m == k] for k in range(m)) if len(p) >= MIN_ROWS]
        got = [(p, lp) for p in parts for lp in [loop_of(p)] if lp is not None]
        if got:  # (a residue that does not loop whole: its longest run that does)
            done = {id(p) for p, _ in got}
            return got + [run for p in parts if id(p) not in done for run in [_longest_run(p, loop_of)] if run]
    # else the longest run of consecutive rows that loops: keyorder.py stores the rows a round loop reads in its
    # rows' order, the first and last rounds' apart (ARIA: ek[2 .. 10] and ek[3 .. 11] loop, ek[0, 1, 12] not)
    run = _longest_run(rows, loop_of)
    return [run] if run else []


def _longest_run(rows: list[Row], loop_of) -> tuple[list[Row], RowLoop] | None:
    """The longest contiguous part of ``rows`` (at least MIN_ROWS) that loops, the first of the longest."""
    for n in range(len(rows) - 1, MIN_ROWS - 1, -1):
        for i in range(len(rows) - n + 1):
            lp = loop_of(rows[i : i + n])
            if lp is not None:
                return rows[i : i + n], lp
    return None


def _planes(fn: Function) -> list[frozenset | None]:
    """Per op, the key bits whose planes it XORs (a plane: 0 - ((word >> i) & 1), all ones where the bit is set),
    as {(word's minor index, bit)} of one row; None for any other value.  Two rows whose derived words are the same
    sets of planes compute the same values from their own words, however value numbering shaped each network
    (ARIA-128: ek[1 .. 11] and dk[1 .. 11], one map of 128 planes)."""
    out: list[tuple | None] = []  # per op: ("word", minor, shift), ("bit", minor, bit), ("planes", bits), ("const", v)
    for op in fn.ops:
        a = [out[x] for x in op.args]
        v: tuple | None = None
        if op.code == "input":
            m = _WORD.match(op.imm[0])
            v = ("word", m.group(3), 0) if m else None
        elif op.code == "const":
            v = ("const", op.imm[0])
        elif op.code == "shr" and a and a[0] and a[0][0] == "word" and op.imm:
            v = ("word", a[0][1], a[0][2] + op.imm[0])
        elif op.code == "and" and ("const", 1) in a:
            w = [x for x in a if x and x[0] == "word"]
            v = ("bit", w[0][1], w[0][2]) if len(w) == 1 else None
        elif op.code == "sub" and len(a) == 2 and a[0] == ("const", 0) and a[1] and a[1][0] == "bit":
            v = ("planes", frozenset([(a[1][1], a[1][2])]))
        elif op.code == "xor" and len(a) == 2 and a[0] and a[1] and a[0][0] == a[1][0] == "planes":
            v = ("planes", a[0][1] ^ a[1][1])
        out.append(v)
    return [v[1] if v and v[0] == "planes" else None for v in out]


def _shape(fn: Function, ops: list[int], outputs: list[tuple[str, int]]) -> tuple:
    """How a row's ops print, the row itself left out: inputs by minor index, other rows' values never (a row's op
    reads its own row and constants only), constants by value, the outputs' values by position."""
    local = {i: k for k, i in enumerate(ops)}
    out: list[tuple] = []
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
    rows: list[Row],
    members: dict,
    outs: dict,
    keyed: dict,
    index: dict[str, int],
    slot: dict[str, int],
) -> RowLoop | None:
    """The class's loop, or None where it is too small or its rows, words or slots do not step evenly.  Row k's
    word of each minor index and its output of each key (plane set or position) must sit k strides past the first
    row's."""
    if len(rows) < MIN_ROWS:
        return None
    step = rows[1][1] - rows[0][1]
    if step <= 0 or any(rows[k][1] - rows[0][1] != k * step for k in range(len(rows))):
        return None
    words = [
        {_WORD.sub(r"\3", fn.ops[i].imm[0]): index[fn.ops[i].imm[0]] for i in members[r] if fn.ops[i].code == "input"}
        for r in rows
    ]
    first, slots = keyed[rows[0]], [keyed[r] for r in rows]
    if not words[0] or any(w.keys() != words[0].keys() for w in words):
        return None
    j0 = next(iter(words[0]))
    in_stride = words[1][j0] - words[0][j0]
    strides = {key: slots[1][key] - first[key] for key in first}  # (each output's own: keyorder.py's rows)
    for k in range(len(rows)):
        if any(words[k][j] - words[0][j] != k * in_stride for j in words[0]):
            return None
        if any(slots[k][key] - first[key] != k * strides[key] for key in first):
            return None
    if 0 in strides.values() or len({first[key] + k * strides[key] for k in range(len(rows)) for key in first}) != len(
        rows
    ) * len(first):
        return None  # (rows that would write over each other)
    r0 = rows[0]
    body = _sub(fn, members[r0], outs[r0], r0)
    by_name = {n: strides[key] for key, (n, _) in zip(first, outs[r0])}
    common = set(by_name.values())
    out_stride = common.pop() if len(common) == 1 and min(by_name.values()) > 0 else 0
    return RowLoop(r0[0], r0[1], step, len(rows), body, min(words[0].values()), in_stride, out_stride, by_name)


def _sub(fn: Function, keep: list[int], outputs: list[tuple[str, int]], row: Row | None) -> Function:
    """fn's ops ``keep`` (and the constants they read) as a function of their own, with ``outputs``.  (row: a class's
    first row, whose ops read constants only from outside it.)"""
    need = set(keep)
    if row is not None:
        need |= {a for i in keep for a in fn.ops[i].args if fn.ops[a].code == "const"}
    order = sorted(need)
    new = {i: k for k, i in enumerate(order)}
    ops: list[Op] = [fn.ops[i].with_args(tuple(new[a] for a in fn.ops[i].args)) for i in order]
    return fn.copy_with(ops, [(n, new[v]) for n, v in outputs])
