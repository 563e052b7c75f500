"""Slices of a linear layer (generator/ptx/slices.py): XOR trees over wide fan-out values are grouped by what they
share, so the register-pressure order runs a bitsliced diffusion layer one bit plane at a time."""

from __future__ import annotations

from generator.mir import schedule as pressure
from generator.ptx import slices
from generator.ptx.irbuild import Builder

ROWS = 8  # outputs per slice; every input is read by FANOUT or more of them


def _layer(planes: int):
    """``planes`` independent slices: out[r][p] = x[r][p] ^ x[r+1][p] ^ x[r+2][p] ^ x[r+3][p] (indices mod ROWS), in
    the IR's order output row by output row (as a byte-wise layer lowers: row r's planes together)."""
    b = Builder("f")
    x = [[b.input(f"x{r}.b{p}") for p in range(planes)] for r in range(ROWS)]
    outs = []
    for r in range(ROWS):
        for p in range(planes):
            acc = x[r][p]
            for d in (1, 2, 3):
                acc = b.op("xor", acc, x[(r + d) % ROWS][p])
            outs.append((f"y{r}.b{p}", acc))
    return b.function(outs)


def test_slices_lower_the_peak():
    fn = _layer(8)
    nodes = [v for v, op in enumerate(fn.ops) if op.code == "xor"]
    # each output as one node over its four inputs (as the LOP3 cover hands them to the scheduler)
    roots = [v for _, v in fn.outputs]
    operands = {}
    for r in roots:
        leaves, stack = [], [r]
        while stack:
            v = stack.pop()
            if fn.ops[v].code == "input":
                leaves.append(v)
            else:
                stack.extend(fn.ops[v].args)
        operands[r] = tuple(sorted(leaves))
    regs = set(roots) | {v for v, op in enumerate(fn.ops) if op.code == "input"}
    keep = set(roots)
    plain = pressure.order(roots, operands, regs, keep)
    grouped = pressure.order(slices.cluster(fn, roots, operands, regs), operands, regs, keep)
    assert sorted(grouped) == sorted(roots) and len(nodes) == 3 * len(roots)
    # outputs are kept (live to the end), so the peak is 64 + the inputs still live: all 64 in row order
    assert pressure.live_peak(grouped, operands, regs, keep) < pressure.live_peak(plain, operands, regs, keep)
    slice_of = {r: fn.outputs[i][0].split(".")[1] for i, r in enumerate(roots)}
    seq = [slice_of[r] for r in grouped]
    assert seq == sorted(seq, key=lambda s: seq.index(s))  # one slice after another, each whole
