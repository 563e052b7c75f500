"""Independent table lookups of a straight-line function grouped into batches, so a constant-time key
schedule evaluates an S-box circuit once per batch instead of once per byte.

A circuit on uint64_t masks computes 64 lookups at once when lookup i lives in bit i of every mask; the
key schedule's lookups are mostly independent (AES SubWord: 4 bytes; an ARIA round: 16).  A lookup's
*depth* is the number of lookups on its longest input path plus one; lookups of one table and one depth
never depend on each other.  The function is re-ordered stage by stage: for depth k, the ops of depth k
that need no depth-k lookup, then the depth-k lookups (one batch per table, at most 64 each), then the
rest of depth k.  Every op still follows its operands.

    before: %4 = lut.u8 S %0   %5 = xor.u8 %4, %1   %6 = lut.u8 S %2   %7 = lut.u8 S %5
    after:  [batch S: %4, %6]  %5 = xor.u8 %4, %1  [batch S: %7]      (depths 1, 1, 2)

    order = batched_order(fn)      # items: an op index (no lookup), or a LookupBatch of 1..64 lookups
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function

MAX_BATCH = 64  # lanes of a uint64_t mask


@dataclass(frozen=True)
class LookupBatch:
    table: str
    ops: tuple[int, ...]  # indices of the lut ops, each computed in one lane of the same circuit run


def batched_order(fn: Function) -> list[int | LookupBatch]:
    depth: list[int] = []  # lookups on the longest path into each op, itself included
    after_lut: list[bool] = []  # depends on a lookup of its own depth (or is one)
    for op in fn.ops:
        d = max((depth[a] for a in op.args), default=0)
        if op.code == "lut":
            d += 1
        depth.append(d)
        after_lut.append(op.code == "lut" or any(after_lut[a] and depth[a] == d for a in op.args))
    stages: dict[int, tuple[list[int], dict[str, list[int]], list[int]]] = {}
    for i, op in enumerate(fn.ops):
        pre, luts, post = stages.setdefault(depth[i], ([], {}, []))
        if op.code == "lut":
            luts.setdefault(op.imm[0], []).append(i)
        else:
            (post if after_lut[i] else pre).append(i)
    order: list[int | LookupBatch] = []
    for d in sorted(stages):
        pre, luts, post = stages[d]
        order += pre
        for table, idx in luts.items():
            for k in range(0, len(idx), MAX_BATCH):
                order.append(LookupBatch(table, tuple(idx[k : k + MAX_BATCH])))
        order += post
    return order
