"""A rotation whose result is masked down to the bits of one of its two halves becomes that one shift.

rotl(x, k) is (x << k) | (x >> (w - k)); where an AND with a constant keeps only bits at or above k, only
the left shift contributes them, and where it keeps only bits below k, only the right shift.  A bit
permutation lowered to masked rotations (bitperm, PRESENT's pLayer) is made of these: on a target whose
rotation of a lane is two instructions (NEON: SHL + SRI) each such pair saves one.

    before: %3 = rotl.u8 %0, 3   %4 = const.u8 0xf8   %5 = and.u8 %3, %4
                                 %6 = const.u8 0x04   %7 = and.u8 %3, %6
    after:  %3 = rotl.u8 %0, 3   %4 = const.u8 0xf8   %8 = shl.u8 %0, 3   %5 = and.u8 %8, %4
                                 %6 = const.u8 0x04   %9 = shr.u8 %0, 5   %7 = and.u8 %9, %6
            (the rotation, now unused, is left to dce)
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, Op, Table


def _half(rot: Op, mask: int) -> tuple[str, int] | None:
    """The shift that gives the bits ``mask`` keeps of ``rot`` (a rotl), or None when both halves do."""
    k, w = rot.imm[0], rot.width
    if mask & ((1 << k) - 1) == 0:
        return ("shl", k)
    if mask >> k == 0:
        return ("shr", w - k)
    return None


def run(fn: Function, tables: dict[str, Table]) -> Function:
    ops: list[Op] = []
    repl: list[int] = []
    for op in fn.ops:
        new = replace(op, args=tuple(repl[a] for a in op.args)) if op.args else op
        if new.code == "and":
            for k in (0, 1):
                rot, const = ops[new.args[k]], ops[new.args[1 - k]]
                if rot.code == "rotl" and const.code == "const":
                    half = _half(rot, const.imm[0])
                    if half is not None:
                        ops.append(Op(half[0], rot.width, rot.args, (half[1],), rot.origin))
                        new = replace(new, args=(len(ops) - 1, new.args[1 - k]))
                    break
        ops.append(new)
        repl.append(len(ops) - 1)
    return fn.copy_with(ops, [(n, repl[v]) for n, v in fn.outputs])


def applies(fn: Function) -> bool:
    """Whether ``fn`` has a rotation masked to one of its halves (the pass would change it)."""
    for op in fn.ops:
        if op.code == "and":
            for k in (0, 1):
                rot, const = fn.ops[op.args[k]], fn.ops[op.args[1 - k]]
                if rot.code == "rotl" and const.code == "const" and _half(rot, const.imm[0]) is not None:
                    return True
    return False
