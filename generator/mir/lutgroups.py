"""Batch table lookups: reorder a function so lookups into the same table at the same depth run together.

A vector target loads a table (or a slice of it) once and serves every lookup of a batch with it, so
the lookups of one S-box layer must be adjacent.  A batch is the lookups into one table at one "lookup
depth" (lookups on the longest path from the inputs).  The order is a list schedule that stays as close
to the spec's order as it can (the spec's order keeps register pressure sane): the ready item with the
smallest original index goes next, where a batch counts as ready when all its members are and takes
the index of its last member.  When nothing else is ready the lowest-depth batch always is.

    before:  a = lut S x0;  b = xor a, k;  c = lut S x1;  d = lut T x2
    after:   order [a, c, b, d] with batches [[a, c], [d]]   (a and c: same table, same depth)
"""

from __future__ import annotations

from typing import Any

from cipherspec.ir import Function


def lookup_depth(fn: Function) -> list[int]:
    depth = [0] * len(fn.ops)
    for i, op in enumerate(fn.ops):
        d = max((depth[a] for a in op.args), default=0)
        depth[i] = d + (1 if op.code == "lut" else 0)
    return depth


def schedule(fn: Function) -> tuple[list[int], list[list[int]]]:
    """(op order, lookup batches); each batch lists op ids of lookups into one table at one depth."""
    n = len(fn.ops)
    depth = lookup_depth(fn)
    users: list[list[int]] = [[] for _ in range(n)]
    waiting = [0] * n
    for i, op in enumerate(fn.ops):
        for a in set(op.args):
            users[a].append(i)
            waiting[i] += 1
    batch_of: dict[tuple, list[int]] = {}
    for i, op in enumerate(fn.ops):
        if op.code == "lut":
            batch_of.setdefault((depth[i], op.imm[0]), []).append(i)
    import heapq

    key_of = {m: key for key, members in batch_of.items() for m in members}
    prio = {key: max(members) for key, members in batch_of.items()}
    missing = {key: sum(1 for m in members if waiting[m]) for key, members in batch_of.items()}
    heap: list[tuple[int, int, Any]] = []  # (priority, kind, op id (kind 0) or batch key (kind 1))
    for i in range(n):
        if waiting[i] == 0 and fn.ops[i].code != "lut":
            heapq.heappush(heap, (i, 0, i))
    for key, k in missing.items():
        if k == 0:
            heapq.heappush(heap, (prio[key], 1, key))
    order: list[int] = []
    batches: list[list[int]] = []

    def done(i: int):
        order.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                if fn.ops[u].code == "lut":
                    key = key_of[u]
                    missing[key] -= 1
                    if missing[key] == 0:
                        heapq.heappush(heap, (prio[key], 1, key))
                else:
                    heapq.heappush(heap, (u, 0, u))

    while heap:
        _, kind, item = heapq.heappop(heap)
        if kind == 0:
            done(item)
            continue
        members = batch_of[item]
        batches.append(members)
        for m in members:
            done(m)
    if len(order) != n:
        raise RuntimeError("lookup batching: ops left unscheduled (cyclic function?)")
    return order, batches
