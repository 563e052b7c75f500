"""Machine-code reordering: a selected straight-line body rescheduled for latency within a register budget.

Instruction selection emits ops in IR order (a layer at a time: all S-boxes, then the whole diffusion),
which leaves the out-of-order core a window full of one kind of work and the dependent chains serialised.
This pass builds the dataflow DAG of the machine instructions (a vreg read depends on its definition) and
hands it to the shared list scheduler (schedule.py) with the register file's size: the longest latency
path goes first while registers are free, the pressure rule takes over near the limit.  Instructions with
side effects or implicit operands -- loads and stores through a post-incremented pointer, raw GPR code --
keep their relative order (each depends on the previous one).  Values that are rematerialised (round
keys, constants, table rows) are read from memory when needed and cost no register here.

    before:  t0 = eor x0, x1;  t1 = eor x2, x3;  s0 = aese t0, k;  s1 = aese t1, k
    after:   t0 = eor x0, x1;  s0 = aese t0, k;  t1 = eor x2, x3;  s1 = aese t1, k   (if s0's chain is longer)

    run(code, registers, latency) -> code reordered (the same instructions)
"""

from __future__ import annotations

from collections.abc import Callable

from . import schedule
from .mir import Instr


def _ordered(ins: Instr) -> bool:
    return ins.kind != "op" or ins.mnemonic.startswith(("ld", "st"))


def _reads(ins: Instr) -> list:
    out = list(ins.uses)
    for v in ins.extra.get("group_uses", ()):
        if v not in out:
            out.append(v)
    return out


def dag(code: list[Instr]) -> tuple[dict[int, tuple[int, ...]], set[int], dict[int, tuple[int, ...]]]:
    """(operands per instruction index, indices whose result sits in a register, order edges): an ordered
    instruction comes after the previous ordered one."""
    defined: dict = {}
    operands: dict[int, tuple[int, ...]] = {}
    registers: set[int] = set()
    after: dict[int, tuple[int, ...]] = {}
    last = None
    for n, ins in enumerate(code):
        deps = []
        for v in _reads(ins):
            if v in defined and defined[v] not in deps:
                deps.append(defined[v])
        if _ordered(ins):
            if last is not None:
                after[n] = (last,)
            last = n
        operands[n] = tuple(deps)
        for v in ins.defs:
            defined[v] = n
        if ins.defs:
            registers.add(n)
    return operands, registers, after


def heights(code: list[Instr], operands: dict, after: dict, latency: Callable[[Instr], int]) -> dict:
    """Latency-weighted longest path from each instruction to the end of the body."""
    h: dict[int, float] = {}
    users: dict[int, list[int]] = {}
    for n, ops in operands.items():
        for a in ops + after.get(n, ()):
            users.setdefault(a, []).append(n)
    for n in range(len(code) - 1, -1, -1):
        h[n] = latency(code[n]) + max((h[u] for u in users.get(n, ())), default=0)
    return h


def run(code: list[Instr], registers: int, latency: Callable[[Instr], int]) -> list[Instr]:
    operands, regs, after = dag(code)
    nodes = list(range(len(code)))
    h = heights(code, operands, after, latency)
    seq = schedule.order(nodes, operands, regs, (), limit=registers, height=h, after=after)
    return [code[n] for n in seq]
