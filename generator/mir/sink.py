"""Demand-driven order: each non-lookup op moves down to just before its first consumer.

Lookup batches and function outputs are the anchors, kept in their order; every other op is emitted
(depth-first, arguments first) when an anchor or a later op needs it.  Shared subexpressions (AES's
xtime of a byte used by two columns) then sit next to their first use instead of at the spec's first
mention, which shortens live ranges: MixColumns runs column by column.

    before:  t0 = xtime s0; t1 = xtime s1; ...; t15 = xtime s15; o0 = t0 ^ ...; o1 = ...
    after:   t0 = xtime s0; t1 = xtime s1; o0 = t0 ^ t1 ^ ...; ...   (each t just before its first use)
"""

from __future__ import annotations

from cipherspec.ir import Function


def sink(fn: Function, order: list[int], batches: list[list[int]]) -> list[int]:
    first = {b[0]: b for b in batches}
    in_batch = {m for b in batches for m in b}
    done: set[int] = set()
    out: list[int] = []

    def need(v: int) -> None:
        stack = [(v, False)]
        while stack:
            x, expanded = stack.pop()
            if x in done:
                continue
            if expanded:
                done.add(x)
                out.append(x)
                continue
            stack.append((x, True))
            for a in reversed(fn.ops[x].args):
                if a not in done:
                    stack.append((a, False))

    for i in order:
        if i in first:
            for m in first[i]:
                for a in fn.ops[m].args:
                    need(a)
            for m in first[i]:
                done.add(m)
                out.append(m)
        elif i not in in_batch and fn.ops[i].code == "input":
            need(i)
    for _, v in fn.outputs:
        need(v)
    for i in order:  # ops no output needs (dead code) keep a place
        need(i)
    return out
