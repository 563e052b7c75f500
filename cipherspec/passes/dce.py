"""Dead-code elimination: drop every op no output depends on (inputs stay: they are the signature).

before: %2 = xor.u8 %0, %1   %3 = and.u8 %0, %1   out "X[0]" = %2
after:  %2 = xor.u8 %0, %1                        out "X[0]" = %2
"""

from __future__ import annotations

from ..ir import Function, Table, rebuild


def run(fn: Function, tables: dict[str, Table]) -> Function:
    live = [op.code == "input" for op in fn.ops]
    for _, v in fn.outputs:
        live[v] = True
    for i in range(len(fn.ops) - 1, -1, -1):
        if live[i]:
            for a in fn.ops[i].args:
                live[a] = True
    return rebuild(fn, live)
