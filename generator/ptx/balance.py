"""Pipe balancing: move some 32-bit rotations from the ALU pipe (SHF) to the FMA pipe (IMAD).

On sm_80/sm_90 LOP3 and SHF share the ALU pipe (half rate) while 32-bit adds already go to the
FMA pipe as IMAD.IADD.  An ARX round is then ALU-bound.  A rotation whose every use is a logic op
can be written as two FMA-pipe multiplies whose disjoint halves each consumer's LOP3 absorbs:

    before: %5 = rotl %4, 1          %6 = xor %5, %rk            (SHF + LOP3: 2 ALU)
    after:  %5a = shl %4, 1 [imad]   %5b = shr %4, 31 [imad]     (IMAD.SHL + IMAD.HI: 2 FMA)
            %5c = or %5a, %5b        %6 = xor %5c, %rk           (one LOP3 (a|b)^rk: 1 ALU)

Rotations are converted, in program order, while the estimated ALU count exceeds the FMA count by
more than one (each conversion: ALU -1, FMA +2).  A value used several times gets one ``or`` per use
so that every use can absorb it.  ``shl``/``shr`` in the returned set are selected as
``mul.lo.u32``/``mul.hi.u32`` by a power of two (isel.py).
"""

from __future__ import annotations

from dataclasses import replace

from cipherspec.ir import Function, Op

from . import lop3

LOGIC = ("xor", "and", "or", "not")


def estimate(fn: Function) -> tuple[int, int]:
    """(ALU, FMA) instruction estimate: one LOP3 per logic tree (lop3.py), rotates/shifts on the ALU
    pipe, 32-bit adds/subs on the FMA pipe (ptxas emits them as IMAD.IADD)."""
    alu = len(lop3.cover(fn)) + sum(1 for op in fn.ops if op.code in ("rotl", "shl", "shr", "lut"))
    fma = sum(1 for op in fn.ops if op.code in ("add", "sub"))
    return alu, fma


def balance(fn: Function) -> tuple[Function, frozenset[int]]:
    uses: list[list[int]] = [[] for _ in fn.ops]
    for i, op in enumerate(fn.ops):
        for a in op.args:
            uses[a].append(i)
    outs = {v for _, v in fn.outputs}
    alu, fma = estimate(fn)
    convert: set[int] = set()
    for v, op in enumerate(fn.ops):
        if alu <= fma + 1:
            break
        if (
            op.code == "rotl"
            and op.width == 32
            and uses[v]
            and v not in outs
            and all(fn.ops[u].code in ("xor", "and", "or") for u in uses[v])
        ):
            convert.add(v)
            alu, fma = alu - 1, fma + 2
    if not convert:
        return fn, frozenset()
    ops: list[Op] = []
    imad: set[int] = set()
    remap: dict[int, int] = {}
    pending: dict[int, list[int]] = {}
    for v, op in enumerate(fn.ops):
        args = []
        for a in op.args:
            args.append(pending[a].pop() if a in pending else remap[a])
        new = replace(op, args=tuple(args)) if op.args else op
        if v not in convert:
            remap[v] = len(ops)
            ops.append(new)
            continue
        k, x, o = op.imm[0], new.args[0], op.origin
        lo = len(ops)
        ops.append(Op("shl", 32, (x,), (k,), o))
        ops.append(Op("shr", 32, (x,), (32 - k,), o))
        imad |= {lo, lo + 1}
        pending[v] = []
        for _ in uses[v]:
            pending[v].append(len(ops))
            ops.append(Op("or", 32, (lo, lo + 1), (), o))
        remap[v] = pending[v][0]
    return fn.copy_with(ops, [(n, remap[v]) for n, v in fn.outputs]), frozenset(imad)
