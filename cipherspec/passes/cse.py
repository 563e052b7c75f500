"""Common-subexpression elimination by value numbering.

Two ops with the same opcode, width, immediates and arguments (in any order
for commutative ops) are one value; later copies are replaced by the first.

    before: %3 = xor.u8 %0, %1   %4 = xor.u8 %1, %0   %5 = and.u8 %3, %4
    after:  %3 = xor.u8 %0, %1   %4 = and.u8 %3, %3
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, Op, Table


def run(fn: Function, tables: dict[str, Table]) -> Function:
    seen: dict[tuple, int] = {}
    ops: list[Op] = []
    repl: list[int] = []
    for op in fn.ops:
        new = replace(op, args=tuple(repl[a] for a in op.args)) if op.args else op
        key = new.key() if new.code != "input" else ("input", new.imm)
        hit = seen.get(key)
        if hit is None:
            ops.append(new)
            hit = seen[key] = len(ops) - 1
        repl.append(hit)
    return fn.copy_with(ops, [(n, repl[v]) for n, v in fn.outputs])
