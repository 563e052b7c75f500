"""64-bit values in CUDA cores: a register pair (lo, hi) in the inline-PTX flavour, ``uint64_t`` in plain C.

The interfaces are 32-bit (cipherspec/passes/split_u64.py splits block words, keys and hoisted values),
so a 64-bit value starts as ``or(zext lo, shl(zext hi, 32))`` and ends as ``trunc``/``shr 32``; on a
pair those are free (a half that is a constant 0 or all ones is folded away).  Selection per op:

    add / sub        one asm: add.cc.u32 lo; addc.u32 hi   (sub.cc / subc: the carry never leaves it)
    rotl k (k != 32) two funnel shifts: shf.l.wrap.b32 hi' = {hi:lo} << k, lo' = {lo:hi} << k  (k > 32:
                     the halves swapped first); rotl 32 swaps the halves (no instruction)
    shl / shr k      shf.l / shf.r + shl / shr (k < 32), one shl / shr (k > 32), nothing (k = 32)
    and/or/xor/not   the lop3 tree (lop3.py) once per half, its truth table reduced per half by the
                     halves that are constants 0 / ~0 (so the packing ORs disappear)
    c flavour        const uint64_t vN = <C expression>; nvcc selects the pairs itself

    IR:  %7 = add.u64 %5, %6
    ptx: uint32_t v7l, v7h; asm("add.cc.u32 %0, %2, %4; addc.u32 %1, %3, %5;" : "=r"(v7l), "=r"(v7h)
                                : "r"(v5l), "r"(v5h), "r"(v6l), "r"(v6h));        // %7 add.u64 @ ...
"""

from __future__ import annotations

from . import lop3
from .values import Val, _comment

M32 = 0xFFFFFFFF
COLUMNS = lop3.COLUMNS
SYMBOL = {"xor": "^", "and": "&", "or": "|", "add": "+", "sub": "-"}


def literal(expr: str) -> int | None:
    """The value of a literal operand ("0x1bu"), else None."""
    e = expr.rstrip("u")
    try:
        return int(e, 0)
    except ValueError:
        return None


def select(sel, v: int, op, d: str, cm: str):
    """The Val of 64-bit op v (isel.Selector ``sel``; ``d`` its name, ``cm`` its comment)."""
    code, args = op.code, op.args
    if sel.flavour == "c":
        return _c(sel, op, d, cm)
    if code == "const":
        c = op.imm[0]
        return Val(f"{c & M32:#x}u", True, f"{c >> 32:#x}u")
    if v in sel.trees:
        return _logic(sel, v, sel.trees[v], d)
    if code == "zext":
        return Val(sel.clean(args[0]), True, "0x0u")
    a = sel.vals[args[0]]
    if code in ("add", "sub"):
        b = sel.vals[args[1]]
        pair(sel, d, f"{code}.cc.u32 %0, %2, %4; {code}c.u32 %1, %3, %5;", [a.expr, a.hi, b.expr, b.hi], cm)
        return Val(f"{d}l", True, f"{d}h")
    k = op.imm[0]
    lo, hi = a.expr, a.hi
    if code == "rotl":
        if k >= 32:
            lo, hi, k = hi, lo, k - 32
        if k == 0:
            return Val(lo, True, hi)
        sel.asm(f"{d}h", f"shf.l.wrap.b32 %0, %1, %2, {k};", [lo, hi], cm + " (high half)")
        sel.asm(f"{d}l", f"shf.l.wrap.b32 %0, %1, %2, {k};", [hi, lo], cm + " (low half)")
        return Val(f"{d}l", True, f"{d}h")
    zero = "0x0u"
    if code == "shl":
        if k >= 32:
            return Val(zero, True, lo if k == 32 else _one(sel, f"{d}h", f"shl.b32 %0, %1, {k - 32};", lo, cm))
        h = _one(sel, f"{d}h", f"shf.l.wrap.b32 %0, %1, %2, {k};", [lo, hi], cm + " (high half)")
        return Val(_one(sel, f"{d}l", f"shl.b32 %0, %1, {k};", lo, cm + " (low half)"), True, h)
    if code == "shr":
        if k >= 32:
            return Val(hi if k == 32 else _one(sel, f"{d}l", f"shr.b32 %0, %1, {k - 32};", hi, cm), True, zero)
        low = _one(sel, f"{d}l", f"shf.r.wrap.b32 %0, %1, %2, {k};", [lo, hi], cm + " (low half)")
        return Val(low, True, _one(sel, f"{d}h", f"shr.b32 %0, %1, {k};", hi, cm + " (high half)"))
    raise ValueError(f"cuda backend: no 64-bit selection for {code}")


def _one(sel, dst: str, template: str, srcs, cm: str) -> str:
    """One 32-bit asm statement; a shift of a literal 0 is folded to 0."""
    srcs = [srcs] if isinstance(srcs, str) else srcs
    if all(literal(s) == 0 for s in srcs):
        return "0x0u"
    sel.asm(dst, template, srcs, cm)
    return dst


def pair(sel, d: str, template: str, srcs: list[str], cm: str) -> None:
    """One asm statement defining both halves ``d``l and ``d``h (the carry stays inside it)."""
    ins = ", ".join(f'"r"({s})' for s in srcs)
    sel.line(f'uint32_t {d}l, {d}h; asm("{template}" : "=r"({d}l), "=r"({d}h) : {ins});', cm)


def _logic(sel, v: int, tree: lop3.Tree, d: str):
    """The tree once per half, each with its constant leaves folded into the truth table."""
    op = sel.fn.ops[v]
    cm = _comment(
        sel.fn, list(tree.members)[::-1] if len(tree.members) > 1 else v, f"lop3.u{op.width} {tree.table:#04x}"
    )
    leaves = [sel.vals[x] for x in tree.leaves]
    halves = []
    for h, suffix in ((0, "l"), (1, "h")):
        exprs = [x.expr if h == 0 else x.hi for x in leaves]
        halves.append(_half(sel, f"{d}{suffix}", tree.table, exprs, f"{cm} ({'low' if h == 0 else 'high'} half)"))
    return Val(halves[0], True, halves[1])


def _half(sel, dst: str, table: int, exprs: list[str], cm: str) -> str:
    """A three-input function (immLut ``table`` over ``exprs``) with its literal 0 / ~0 inputs folded."""
    live: list[str] = []
    col: dict[int, int] = {}
    for i, e in enumerate(exprs):
        c = literal(e)
        if c in (0, M32):
            col[i] = 0xFF if c else 0x00
        elif e in live:
            col[i] = COLUMNS[live.index(e)]
        else:
            col[i] = COLUMNS[len(live)]
            live.append(e)
    t = reduce(table, [col[i] for i in range(len(exprs))])
    if t in (0x00, 0xFF):
        return f"{(M32 if t else 0):#x}u"
    for j, e in enumerate(live):  # a function of one input: the input itself or its complement
        if t == COLUMNS[j]:
            return e
        if t == ~COLUMNS[j] & 0xFF:
            sel.asm(dst, "not.b32 %0, %1;", [e], cm)
            return dst
    simple = {0x3C: "xor", 0xC0: "and", 0xFC: "or"}.get(t) if len(live) == 2 else None
    if simple:
        sel.asm(dst, f"{simple}.b32 %0, %1, %2;", live, cm)
        return dst
    srcs = live + [live[0]] * (3 - len(live))
    sel.asm(dst, f"lop3.b32 %0, %1, %2, %3, {t:#04x};", srcs, cm)
    return dst


def reduce(table: int, cols: list[int]) -> int:
    """The truth table of f(a, b, c) = table(cols) over the new columns: each leaf's column is a new
    variable's (0xF0, 0xCC, 0xAA) or a constant (0x00, 0xFF).

        reduce(0xFC (a | b), [0xF0, 0x00])  -> 0xF0   (a | 0 = a)
    """
    out = 0
    for row in range(8):
        bits = [(c >> row) & 1 for c in cols] + [0] * (3 - len(cols))
        idx = (bits[0] << 2) | (bits[1] << 1) | bits[2]
        out |= ((table >> idx) & 1) << row
    return out


def _c(sel, op, d: str, cm: str):
    """The plain CUDA C flavour: uint64_t expressions."""
    code, args = op.code, op.args
    if code == "const":
        return Val(f"{op.imm[0]:#x}ull", True)
    if code == "zext":
        return Val(f"(uint64_t){sel.clean(args[0])}", True)
    a = sel.vals[args[0]].expr
    k = op.imm[0] if op.imm else 0
    exprs = {"not": f"~{a}", "shl": f"{a} << {k}", "shr": f"{a} >> {k}", "rotl": f"({a} << {k}) | ({a} >> {64 - k})"}
    expr = exprs[code] if code in exprs else f"{a} {SYMBOL[code]} {sel.vals[args[1]].expr}"
    sel.line(f"const uint64_t {d} = {expr};", cm)
    return Val(d, True)
