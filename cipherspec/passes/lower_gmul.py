"""Lower ``gmul`` (GF(2^8) multiply by a constant) to shifts, masks and XORs, for targets without tables.

xtime(x) = (x << 1) ^ ((0 - (x >> 7)) & (poly & 0xff)); gmul(x, c) is the XOR of xtime^k(x) over the bits
k of c.  Branch-free and constant-time; CSE shares the xtime chain between gmuls of the same x.

    before: %1 = gmul.u8 %0, 0x3 mod 0x11b
    after:  %1 = shl.u8 %0, 1   %2 = shr.u8 %0, 7   %3 = const.u8 0   %4 = sub.u8 %3, %2
            %5 = const.u8 0x1b   %6 = and.u8 %4, %5   %7 = xor.u8 %1, %6   %8 = xor.u8 %7, %0
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, Op, Table


def run(fn: Function, tables: dict[str, Table]) -> Function:
    ops: list[Op] = []
    repl: list[int] = []

    def emit(op: Op) -> int:
        ops.append(op)
        return len(ops) - 1

    for op in fn.ops:
        new = replace(op, args=tuple(repl[a] for a in op.args)) if op.args else op
        if new.code != "gmul":
            repl.append(emit(new))
            continue
        c, poly = new.imm
        o = new.origin
        x = new.args[0]
        acc = None
        zero = emit(Op("const", 8, (), (0,), o))
        red = emit(Op("const", 8, (), (poly & 0xFF,), o))
        power = x
        for k in range(8):
            if c >> k & 1:
                acc = power if acc is None else emit(Op("xor", 8, (acc, power), (), o))
            if c >> (k + 1) == 0:
                break
            hi = emit(Op("shr", 8, (power,), (7,), o))
            m = emit(Op("and", 8, (emit(Op("sub", 8, (zero, hi), (), o)), red), (), o))
            power = emit(Op("xor", 8, (emit(Op("shl", 8, (power,), (1,), o)), m), (), o))
        repl.append(acc if acc is not None else zero)
    return fn.copy_with(ops, [(n, repl[v]) for n, v in fn.outputs])
