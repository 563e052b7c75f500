"""Values narrower than the state words in the sliced layout: bytes of words, byte lookups on words.

A sliced register holds one state word of L blocks.  A cipher on 32-bit words that splits a word into
bytes (``unpack_be`` = ``u8(x >> 8k)``), looks them up in a byte S-box and packs them back (``pack_be`` =
zext, shl, or) has IR values narrower than the lanes.  They get no registers of their own: each value is
a *view*, the tuple of its bytes, each a (register, byte-in-lane) pair or ZERO; shifts and rotations by
whole bytes, truncation, zero extension, OR/XOR of disjoint bytes and AND with a byte mask only
rearrange views.  Instructions appear where a view meets a real operation:

    trunc.u8 (shr.u32 x, 8)            -> view ((x, 1),)                              no instruction
    zext.u32 a; shl 8; or ...          -> view ((a, 0), (b, 1), (c, 2), ZERO)         no instruction
    a u32 op reading a view            -> the view as a register: itself (identity of one register),
                                          AND (byte mask), USHR/SHL (byte shift), REV/TBL (byte rotation),
                                          BIT (bytes of two words, each in place: toy's (x & ~0xff) | S[x]),
                                          else one TBL gathering from up to 4 registers (TBX for more)
    a u8 op (xor.u8 a, b)              -> the .16b instruction on registers holding a and b at the same
                                          byte of the lane (moved there by USHR/SHL or a TBL gather)
    lut.u8 S on bytes of registers     -> TBL/TBX chains on index registers (lut_batch): a register whose
                                          bytes are all looked up is its own index; scattered bytes are
                                          first gathered 4 (or 8) to a register when that saves chains.
                                          AESE/AESD (crypto schedules) with the ShiftRows lane permutation
                                          undone in the index's TBL.  A table of wider entries (u8 -> u32)
                                          is looked up as byte planes (pool.lut_tables), one chain each.

SM4's tau, before:  b_k = trunc.u8 (shr x, 8k); s_k = lut S b_k; y = or(zext s_0, shl(zext s_1, 8), ...)
after:  one TBL/TBX chain on x itself (its 16 bytes are the 4 bytes of 4 blocks); y is the chain's
register: no extraction or regrouping instruction at all.
"""

from __future__ import annotations

from cipherspec.ir import Function, Op
from generator.common.affine import SHIFT_ROWS

from ..mir.mir import Vec, VecList, VReg
from .aesform import form as aes_form
from .arrangement import ARR

ZERO = None
TBL_CHAIN = 7  # tbl + 3 × (sub, tbx): one 256-byte lookup of a register


def needed(fn: Function, width: int) -> bool:
    """Whether fn has values narrower than the state words (then Selector runs in subword mode)."""
    return any(op.width != width for op in fn.ops)


def whole(v: VReg, width: int) -> tuple:
    return tuple((v, j) for j in range(width // 8))


# ------------------------------------------------------------------------------------- selection
def select(sel, i: int, op: Op, state_inputs: dict) -> None:
    """Selects op i (not a lookup): a view when it only rearranges bytes, else instructions."""
    w, code = op.width, op.code
    if code == "const":
        sel.values[i] = sel.const(op.imm[0], w)  # replicated in every w-bit lane: fits any byte position
        sel.power[i] = None
        return
    if code == "input":
        v = sel.select(i, op, state_inputs)  # block word, or a round key zero-extended in its lanes
        sel.views[i] = whole(v, w)
        if w == sel.width:
            sel.values[i] = v
        return
    view = _rearranged(sel, op)
    if view is not None:
        sel.views[i] = view
        return
    if w == sel.width:
        v = sel.select(i, op, state_inputs)  # operands through Selector.at: views placed as words
        sel.values[i] = v
        sel.views[i] = whole(v, w)
        return
    pos = _common_pos(sel, op)
    v = sel.select(i, op, state_inputs, _Placed(sel, w, pos))
    sel.views[i] = tuple((v, pos + j) for j in range(w // 8))


def _rearranged(sel, op: Op) -> tuple | None:
    """The view of op's result when op only moves or clears whole bytes of its operands, else None."""
    n, code = op.width // 8, op.code
    views = [sel.views.get(a) for a in op.args]
    if code == "trunc" and views[0] is not None:
        return views[0][:n]
    if code == "zext" and views[0] is not None:
        return views[0] + (ZERO,) * (n - len(views[0]))
    if code in ("shl", "shr", "rotl") and op.imm[0] % 8 == 0 and views[0] is not None:
        v, k = views[0], op.imm[0] // 8
        if code == "shl":
            return tuple(v[m - k] if m >= k else ZERO for m in range(n))
        if code == "shr":
            return tuple(v[m + k] if m + k < n else ZERO for m in range(n))
        return tuple(v[(m - k) % n] for m in range(n))
    if code in ("or", "xor") and None not in views:
        a, b = views
        if all(x is ZERO or y is ZERO for x, y in zip(a, b)):
            return tuple(x if y is ZERO else y for x, y in zip(a, b))
    if code == "and":
        for k in (0, 1):
            c, other = sel.fn.ops[op.args[k]], views[1 - k]
            if c.code == "const" and other is not None:
                masks = [(c.imm[0] >> 8 * m) & 0xFF for m in range(n)]
                if all(b in (0, 0xFF) for b in masks):
                    return tuple(e if b else ZERO for e, b in zip(other, masks))
    return None


def _common_pos(sel, op: Op) -> int:
    """The byte of the lane where a narrow op runs: where its first operand already sits, aligned."""
    size = op.width // 8
    for a in op.args:
        v = sel.views.get(a)
        q = _run_start(v)
        if q is not None and q % size == 0:
            return q
    return 0


def _run_start(view: tuple | None) -> int | None:
    """q when the view is bytes q, q+1, ... of one register, else None."""
    if not view or view[0] is ZERO:
        return None
    r, q = view[0]
    return q if all(e == (r, q + j) for j, e in enumerate(view)) else None


class _Placed:
    """Operands of a narrow op: each value's register with the value at byte ``pos`` of every lane."""

    def __init__(self, sel, width: int, pos: int):
        self.sel, self.width, self.pos = sel, width, pos

    def __getitem__(self, vid: int) -> VReg:
        return place(self.sel, vid, self.width, self.pos)


# ------------------------------------------------------------------------------------- placement
def place(sel, vid: int, width: int, pos: int) -> VReg:
    """A register holding value vid (width bits) at bytes pos.. of every lane; width = the state width
    and pos = 0: the value as a whole word (other bytes zero where the view says ZERO)."""
    op = sel.fn.ops[vid]
    if op.code == "const":
        return sel.const(op.imm[0], width)
    view = sel.views[vid]
    key = (view, width, pos)
    if key not in sel._placed:
        sel._placed[key] = _place(sel, vid, view, width, pos)
    return sel._placed[key]


def _place(sel, vid: int, view: tuple, width: int, pos: int) -> VReg:
    W = sel.width
    n, arr = W // 8, ARR[W]
    srcs = [e for e in view if e is not ZERO]
    if not srcs:
        return sel.const(0, W)
    regs = list(dict.fromkeys(r for r, _ in srcs))
    r = regs[0]
    q = _run_start(view)
    if q is not None:
        if q == pos:
            return r
        if width < W:  # the bytes around the value are free: shift the whole lane
            return sel.unop("ushr" if q > pos else "shl", arr, r, vid, 8 * abs(q - pos))
    in_place = all(e is ZERO or e[1] == m for m, e in enumerate(view))
    if width == W and len(regs) == 2 and in_place and ZERO not in view:  # a byte blend of two words
        a, b = regs
        mask = sel.const(sum(0xFF << 8 * m for m, e in enumerate(view) if e[0] is a), W)
        d = sel.vf.new()
        sel.emit("bit", (Vec(d, "16b"), Vec(a, "16b"), Vec(mask, "16b")), (d,), (b, a, mask), vid, tied=b)
        return d
    if width == W and len(regs) == 1:
        if in_place:
            mask = sum(0xFF << 8 * m for m, e in enumerate(view) if e is not ZERO)
            return sel.binop("and", "16b", r, sel.const(mask, W), vid)
        for k in range(1, n):
            if view == tuple((r, m + k) if m + k < n else ZERO for m in range(n)):
                return sel.unop("ushr", arr, r, vid, 8 * k)
            if view == tuple((r, m - k) if m >= k else ZERO for m in range(n)):
                return sel.unop("shl", arr, r, vid, 8 * k)
            if view == tuple((r, (m - k) % n) for m in range(n)):
                return sel.rotl(vid, r, 8 * k, W)
    return gather(sel, vid, {pos + j: e for j, e in enumerate(view) if e is not ZERO})


def gather(sel, vid: int, spec: dict[int, tuple], perm: list[int] | None = None) -> VReg:
    """A register whose byte t of every lane is byte q of the same lane of register r, for each
    t -> (r, q) in spec, and zero elsewhere: TBL over up to 4 registers, TBX for each 4 more.  perm
    (16 lane-crossing byte positions) is applied on top: result byte j = gathered byte perm[j]."""
    n = sel.width // 8
    regs = list(dict.fromkeys(r for r, _ in spec.values()))
    origin = f"{sel.fn.ops[vid].origin or ''} (byte gather)".strip()
    prev: VReg | None = None
    for c in range(0, len(regs), 4):
        group = tuple(regs[c : c + 4])
        idx = [0xFF] * 16
        for lane in range(0, 16, n):
            for t, (r, q) in spec.items():
                if r in group:
                    idx[lane + t] = 16 * group.index(r) + lane + q
        if perm is not None:
            idx = [idx[perm[j]] for j in range(16)]
        ic = sel.bytes_const(bytes(idx), "byte gather")
        d = sel.vf.new()
        ops = (Vec(d, "16b"), VecList(group, "16b"), Vec(ic, "16b"))
        extra = {"group_uses": group} if len(group) > 1 else None
        uses = (ic,) if len(group) > 1 else (group[0], ic)
        if prev is None:
            sel.emit("tbl", ops, (d,), uses, vid, extra=extra, origin=origin)
        else:
            sel.emit("tbx", ops, (d,), (prev,) + uses, vid, tied=prev, extra=extra, origin=origin)
        prev = d
    assert prev is not None  # spec is not empty
    return prev


# ------------------------------------------------------------------------------------- lookups
def lut_batch(sel, members: list[int]) -> None:
    """Lookups of one batch (one table, one depth): their index bytes grouped into index registers
    (plan), one TBL/TBX chain (or AESE/AESD) per register and byte plane; each result is a view."""
    fn = sel.fn
    name = fn.ops[members[0]].imm[0]
    table = sel.tables[name]
    aff = aes_form(table.values) if sel.crypto and table.out_width == 8 else None
    planes = [name] if table.out_width == 8 else [f"{name}.b{j}" for j in range(table.out_width // 8)]
    perm = None if aff is None else ([SHIFT_ROWS.index(j) for j in range(16)] if aff.box == "S" else list(SHIFT_ROWS))
    per_plane = 1 if len(table.values) == 16 else TBL_CHAIN  # a 16-entry table: one TBL
    chain = (1 + 4 * aff.maps) if aff is not None else per_plane * len(planes)
    # one plan over every interleaved stream: gathering bytes of several streams into one index register
    # saves whole chains (ttab6 il4: 114 -> 62 instructions per block), at the price of a join
    sources = {m: _byte_source(sel, fn.ops[m].args[0]) for m in members}
    items, where = plan(list(sources.values()), sel.width // 8, chain, perm is not None)
    owner: dict[tuple, int] = {}
    for m in members:
        owner.setdefault(sources[m], m)
    index = []
    for spec, first in items:
        identity = all(t == q for t, (_, q) in spec.items()) and len({r for r, _ in spec.values()}) == 1
        x = first[0] if identity and perm is None else gather(sel, owner[first], spec, perm)
        index.append((x, owner[first]))
    if aff is not None:
        results = [[sel.aes_sub(x, aff, m) for x, m in index]]
    else:
        results = [sel.lookup_chains(p, index) for p in planes]
    for m in members:
        k, slot = where[sources[m]]
        sel.views[m] = tuple((res[k], slot) for res in results)


def _byte_source(sel, vid: int) -> tuple:
    """(register, byte of the lane) holding the u8 value vid."""
    op = sel.fn.ops[vid]
    if op.code == "const":
        return (sel.const(op.imm[0], 8), 0)
    e = sel.views[vid][0]
    return (sel.const(0, 8), 0) if e is ZERO else e


def plan(sources: list[tuple], n: int, chain: int, permuted: bool) -> tuple[list, dict]:
    """Index registers for lookups of the bytes ``sources`` ((register, byte) pairs, n bytes per lane).

    A register whose bytes are all looked up is its own index register (a TBL first when ``permuted``).
    The others are gathered n bytes per index register (one TBL per 4 source registers) when that costs
    fewer instructions than a chain (``chain`` instructions) on each.  Returns the index registers as
    (gather spec {byte: (register, byte)}, first source) and where each source's result is:
    {source: (index register number, byte)}.

        plan([(x, 0), (x, 1), (x, 2), (x, 3)], 4, 7, False)  -> one index register: x itself
        plan([(a, 3), (b, 3), (c, 3), (d, 3)], 4, 7, False)  -> one gather of 4 bytes (1 + 7, not 4 × 7)
    """
    by_reg: dict = {}
    for r, q in dict.fromkeys(sources):
        by_reg.setdefault(r, []).append(q)
    part = [r for r, qs in by_reg.items() if len(qs) < n]
    count = sum(len(by_reg[r]) for r in part)
    packs = -(-count // n)
    gathering = len(part) > 1 and packs * chain + packs + len(part) // 4 < len(part) * (chain + permuted)
    items: list = []
    where: dict = {}
    for r, qs in by_reg.items():
        if gathering and r in part:
            continue
        for q in qs:
            where[(r, q)] = (len(items), q)
        items.append(({q: (r, q) for q in qs}, (r, qs[0])))
    if gathering:
        base = len(items)
        specs: list[dict] = []
        for r in part:
            for q in by_reg[r]:
                if not specs or len(specs[-1]) == n:
                    specs.append({})
                spec = specs[-1]
                slot = q if q not in spec else min(set(range(n)) - set(spec))
                spec[slot] = (r, q)
                where[(r, q)] = (base + len(specs) - 1, slot)
        items += [(spec, next(iter(spec.values()))) for spec in specs]
    return items, where
