"""Interleaving: k independent block groups of one function merged into one straight-line stream.

OpenSSL perlasm's trick made mechanical: generate one group's stream, then weave k copies so that the
copies' independent instructions sit side by side and fill the pipeline.  Inputs named in ``shared``
(round keys) stay single; every other input gets the stream's prefix.  Ops are woven round-robin, so the
result is still topologically ordered.

    before (k=2):  %0 = input X[0]; %1 = input rk[0]; %2 = xor %0, %1
    after:         %0 = input s0:X[0]; %1 = input rk[0]; %2 = input s1:X[0]; %3 = xor %0, %1; %4 = xor %2, %1
                   streams = [0, 0, 1, 0, 1]
"""

from __future__ import annotations

from dataclasses import replace

from cipherspec.ir import Function, Op


def stream_name(k: int, name: str) -> str:
    return f"s{k}:{name}"


def interleave(fn: Function, k: int, shared: set[str]) -> tuple[Function, list[int]]:
    """Returns the woven function (outputs named s<k>:<name>) and the stream index of every op."""
    ops: list[Op] = []
    streams: list[int] = []
    shared_ids: dict[str, int] = {}
    remap = [[0] * len(fn.ops) for _ in range(k)]
    for i, op in enumerate(fn.ops):
        for s in range(k):
            if op.code == "input" and op.imm[0] in shared:
                if op.imm[0] not in shared_ids:
                    shared_ids[op.imm[0]] = len(ops)
                    ops.append(op)
                    streams.append(0)
                remap[s][i] = shared_ids[op.imm[0]]
                continue
            if op.code == "input":
                new = replace(op, imm=(stream_name(s, op.imm[0]),))
            else:
                new = replace(op, args=tuple(remap[s][a] for a in op.args))
            remap[s][i] = len(ops)
            ops.append(new)
            streams.append(s)
    outputs = [(stream_name(s, name), remap[s][v]) for s in range(k) for name, v in fn.outputs]
    return Function(fn.name, ops, outputs), streams
