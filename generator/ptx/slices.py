"""Slices of a linear layer: the tie order the register-pressure scheduler (generator/mir/schedule.py) starts from.

The scheduler emits first what frees the most registers and keeps the original order among equals.  A
diffusion layer over S-box outputs frees nothing until a value's last reader runs (ARIA's: every S-box output
plane is read by 7 XOR trees), so in the IR's order (output byte by output byte) every S-box output stays live
until the end of the layer.  Bitsliced, such a layer is independent slices, one per bit plane: here the XOR
trees that read only values of wide fan-out (at least FANOUT readers), such trees, or round keys in memory are
grouped by the wide values they share, each group moved to where its first tree stands, so a slice runs whole,
its inputs die and the next slice starts.

    before: y0.b0 y0.b1 .. y0.b7 y1.b0 ..   (all 128 S-box output planes live to the end: 189 planes at the peak)
    after:  T.b0 y0.b0 y1.b0 .. y15.b0 T.b1 y0.b1 ..                            (157 at the peak, ARIA's body)
"""

from __future__ import annotations

from collections import Counter

from cipherspec.ir import Function

FANOUT = 4  # readers that make a value "wide" (ARIA: S-box output planes 7, the shared T-terms 4)


def cluster(fn: Function, nodes: list[int], operands: dict[int, tuple[int, ...]], registers: set[int]) -> list[int]:
    """``nodes`` reordered: each group of XOR trees over wide values together, at its first tree's place."""
    readers: Counter = Counter()
    for n in nodes:
        for v in set(operands[n]):
            readers[v] += 1

    def wide(v: int) -> bool:
        return v in registers and readers[v] >= FANOUT

    linear: list[int] = []  # XOR trees over wide values, over such trees, and over memory (round keys)
    member: set[int] = set()
    for n in nodes:
        reads = operands[n]
        if fn.ops[n].code in ("xor", "not") and any(v in member or wide(v) for v in reads):
            if all(v in member or wide(v) or v not in registers for v in reads):
                linear.append(n)
                member.add(n)
    sharing: dict[int, list[int]] = {}  # wide value -> the linear trees reading it
    for n in linear:
        for v in operands[n]:
            if wide(v):
                sharing.setdefault(v, []).append(n)
    pos = {n: i for i, n in enumerate(nodes)}
    group: dict[int, int] = {}  # tree -> its group's first position (groups found in program order)
    for n in linear:
        if n in group:
            continue
        group[n], todo = pos[n], [n]
        while todo:
            for v in operands[todo.pop()]:
                for m in sharing.get(v, ()):
                    if m not in group:
                        group[m] = pos[n]
                        todo.append(m)
    return sorted(nodes, key=lambda n: (group.get(n, pos[n]), pos[n]))
