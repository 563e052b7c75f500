"""FEAT_SHA3 selection rules (schedule flag ``sha3``): three-input logic by pattern-matching the IR.

EOR3 d, n, m, a  = n ^ m ^ a          BCAX d, n, m, a  = n ^ (m & ~a)
A rule fires only where the fused inner op has a single use (its own instruction then dies in dead-code
elimination), so it never adds instructions; generic over any spec (PIPO's S-layer, key XORs, ARX).

    xor(xor(p, q), r)            eor p,q ; eor r      ->  eor3 d, p, q, r
    xor(x, and(a, not c))        bic ; eor            ->  bcax d, x, a, c
    xor(x, and(a, b)), ~b known  and ; eor            ->  bcax d, x, a, ~b      (~b: an op not(b) already selected,
                                                                            or b a constant: ~b is one too)
        e.g. AES xtime  shl t,x,#1; sshr m,x,#7; and m,m,#0x1b; eor   ->   shl; sshr; bcax d, t, m, #0xe4
    not(xor(a, b))               eor ; mvn            ->  eor3 d, a, b, ones   (ones: movi #0xff, rematerialised)
    xor(x, not(y))               mvn ; eor            ->  eor3 d, x, y, ones
    rotl.u64(xor(a, b), r)       eor ; shl ; sri      ->  xar d.2d, a.2d, b.2d, #(64 - r)
        (XAR: rotate right of an XOR; also where the xor has other uses, when r is not a byte multiple:
        xar replaces shl + sri, and the eor stays for the other uses.  SPECK's y' = (y <<< 3) ^ x' then
        (y' <<< 3) of the next round: eor + xar instead of eor + shl + sri)

    uses = use_counts(fn);  fuse(sel, i, op, val, uses) -> VReg or None (None: the ordinary rules apply)
"""

from __future__ import annotations

from collections import Counter

from cipherspec.ir import Function, Op

from ..mir.mir import Text, Vec


def use_counts(fn: Function) -> Counter:
    """How many times each value id is read (op arguments and function outputs)."""
    c = Counter(a for op in fn.ops for a in op.args)
    c.update(v for _, v in fn.outputs)
    return c


def _three(sel, mn: str, n, m, a, i: int):
    d = sel.vf.new()
    sel.emit(mn, tuple(Vec(x, "16b") for x in (d, n, m, a)), (d,), (n, m, a), i)
    return d


def fuse(sel, i: int, op: Op, val, uses: Counter):
    """The fused selection of op i (an xor or not), or None when no rule applies."""
    ops = sel.fn.ops

    def single(v: int, code: str) -> bool:
        return ops[v].code == code and uses[v] == 1

    if op.code == "not":
        x = op.args[0]
        if single(x, "xor"):
            a, b = ops[x].args
            return _three(sel, "eor3", val[a], val[b], sel.const(0xFF, 8), i)
        return None
    if op.code != "xor":
        return None
    for k in (0, 1):
        x, y = op.args[1 - k], op.args[k]
        if single(y, "and"):
            for j in (0, 1):
                a, b = ops[y].args[1 - j], ops[y].args[j]
                if ops[b].code == "not":
                    return _three(sel, "bcax", val[x], val[a], val[ops[b].args[0]], i)
                if ops[b].code == "const":
                    inv = ~ops[b].imm[0] & ((1 << ops[b].width) - 1)
                    return _three(sel, "bcax", val[x], val[a], sel.const(inv, ops[b].width), i)
                nb = sel.complement_of(b)
                if nb is not None:
                    return _three(sel, "bcax", val[x], val[a], val[nb], i)
    for k in (0, 1):
        x, y = op.args[1 - k], op.args[k]
        if single(y, "xor"):
            p, q = ops[y].args
            return _three(sel, "eor3", val[p], val[q], val[x], i)
    for k in (0, 1):
        x, y = op.args[1 - k], op.args[k]
        if single(y, "not"):
            return _three(sel, "eor3", val[x], val[ops[y].args[0]], sel.const(0xFF, 8), i)
    return None


def xar_saves(fn: Function, i: int, uses: Counter) -> int:
    """Instructions XAR saves on op i (a 64-bit rotation of an xor), 0 where the rule does not fire."""
    op = fn.ops[i]
    if op.code != "rotl" or op.width != 64 or fn.ops[op.args[0]].code != "xor" or op.imm[0] == 32:
        return 0
    plain = 1 if op.imm[0] % 8 == 0 else 2  # tbl, or shl + sri
    return plain if uses[op.args[0]] == 1 else plain - 1  # the eor dies only with a single use


def fuse_rotate(sel, i: int, op: Op, val, uses: Counter):
    """XAR for op i (a rotl.u64 of an xor) where it saves an instruction, else None."""
    if not xar_saves(sel.fn, i, uses):
        return None
    a, b = sel.fn.ops[op.args[0]].args
    d = sel.vf.new()
    sel.emit(
        "xar",
        (Vec(d, "2d"), Vec(val[a], "2d"), Vec(val[b], "2d"), Text(f"#{64 - op.imm[0]}")),
        (d,),
        (val[a], val[b]),
        i,
    )
    return d


def savings(fn: Function) -> int:
    """How many IR ops the rules fuse away (a static count: the not(b) availability rule left out).

    dispatch.variants adds a sha3 variant where this is a sizeable share of the function."""
    ops, uses = fn.ops, use_counts(fn)

    def single(v: int, code: str) -> bool:
        return ops[v].code == code and uses[v] == 1

    n = 0
    for i, op in enumerate(ops):
        n += xar_saves(fn, i, uses)
        if op.code == "not":
            n += single(op.args[0], "xor")
        elif op.code == "xor":
            n += any(
                single(y, "and")
                and any(ops[b].code in ("not", "const") for b in ops[y].args)
                or single(y, "xor")
                or single(y, "not")
                for y in op.args
            )
    return n
