"""Dead machine code: drop instructions whose results nobody reads (after selection folded them away).

Selection may fold an op into its user (``and(a, not b)`` -> ``bic``; ``sub(0, shr(x, 7))`` -> ``sshr``)
after the op itself was selected; this removes what became unused.  Stores, loads that define a register
list read later, and raw instructions (``kind`` != "op") are kept.

    before:  v3 = mvn v1;  v4 = bic v2, v1;  st v4        after:  v4 = bic v2, v1;  st v4
"""

from __future__ import annotations

from .mir import Instr


def run(code: list[Instr]) -> list[Instr]:
    live: set = set()
    keep: list[bool] = [False] * len(code)
    for k in range(len(code) - 1, -1, -1):
        ins = code[k]
        needed = ins.kind != "op" or not ins.defs or any(d in live for d in ins.defs)
        if ins.extra.get("group_defs"):
            needed = True
        if needed:
            keep[k] = True
            live.update(ins.uses)
            live.update(ins.extra.get("group_uses", ()))
            if ins.tied is not None:
                live.add(ins.tied)
    return [ins for k, ins in enumerate(code) if keep[k]]
