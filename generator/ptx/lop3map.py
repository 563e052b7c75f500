"""LOP3 covering with shared cones: a 3-input cut mapping of the logic DAG (area flow, then exact area).

lop3.cover absorbs a logic op only into its single user, so an op read twice stays an instruction of its
own.  Here every logic op gets up to ``keep`` cuts of at most three leaves (the cuts of its operands,
merged); a cover picks one cut per needed root, first by area flow (an op's cost shared among its
readers), then by exact area (the instructions a choice adds to the cover, with reference counts).  An op
read by several roots may sit inside each of their cones, recomputed inside each LOP3, and then costs no
instruction of its own.  Cones never cross a change of width, and only values read by something other than
a same-width logic op (or returned) must be roots.

    before: %3 = xor %0, %1   %4 = and %3, %2   %5 = or %3, %2        (%3 read twice: 3 LOP3 with cover)
    after:  %4 = lop3 %0, %1, %2, 0x28   %5 = lop3 %0, %1, %2, 0xbe     (2 LOP3; %3 recomputed in both)
"""

from __future__ import annotations

from cipherspec.ir import Function

from ..common.memo import by_shape
from .lop3 import LOGIC, Tree, _table, use_counts

KEEP = 8  # cuts kept per op (the best by area flow)


@by_shape(32)  # (one core in several kernels, one round-loop body in several ciphers: covered once)
def cover(fn: Function, max_width: int = 32, keep: int = KEEP) -> dict[int, Tree]:
    """Trees by root value id, like lop3.cover; a non-root logic op may be a member of several trees (the
    result is shared: callers must not change it)."""
    ops = fn.ops

    def logic(v: int) -> bool:
        return ops[v].code in LOGIC and ops[v].width <= max_width

    uses = use_counts(fn)
    cuts: dict[int, list[tuple[int, ...]]] = {}
    flow: dict[int, float] = {}
    for v, op in enumerate(ops):
        if not logic(v):
            continue

        def options(a: int, w: int = op.width) -> list[tuple[int, ...]]:
            return [*cuts[a], (a,)] if a in cuts and ops[a].width == w else [(a,)]

        if len(op.args) == 1:
            cand = set(options(op.args[0]))
        else:
            cand = set()
            for c1 in options(op.args[0]):
                for c2 in options(op.args[1]):
                    merged = tuple(sorted(set(c1) | set(c2)))
                    if len(merged) <= 3:
                        cand.add(merged)

        def area_flow(c: tuple[int, ...]) -> float:
            return 1.0 + sum(flow[x] / max(1, uses[x]) for x in c if x in flow)

        ranked = sorted(cand, key=lambda c: (area_flow(c), len(c), c))[:keep]
        cuts[v] = ranked
        flow[v] = area_flow(ranked[0])

    best = {v: c[0] for v, c in cuts.items()}
    refs = [0] * len(ops)

    def ref(c: tuple[int, ...]) -> int:  # instructions that cut c (its root's) brings into the cover
        added, stack = 1, list(c)
        while stack:
            x = stack.pop()
            if x in best:
                refs[x] += 1
                if refs[x] == 1:
                    added += 1
                    stack.extend(best[x])
        return added

    def deref(c: tuple[int, ...]) -> None:
        stack = list(c)
        while stack:
            x = stack.pop()
            if x in best:
                refs[x] -= 1
                if refs[x] == 0:
                    stack.extend(best[x])

    roots = {v for _, v in fn.outputs if v in cuts}
    for reader, op in enumerate(ops):
        roots |= {a for a in op.args if a in cuts and not (reader in cuts and op.width == ops[a].width)}
    for r in sorted(roots):
        ref((r,))
    for v in cuts:  # exact-area recovery, in topological order
        if refs[v] == 0:
            continue
        deref(best[v])
        scored = []
        for c in cuts[v]:
            scored.append((ref(c), len(c), c))
            deref(c)
        best[v] = min(scored)[2]
        ref(best[v])

    trees: dict[int, Tree] = {}
    for v in cuts:
        if refs[v] == 0:
            continue
        leaves = best[v]
        members: set[int] = set()
        stack = [v]
        while stack:
            x = stack.pop()
            if x in members or x in leaves:
                continue
            members.add(x)
            stack.extend(ops[x].args)
        trees[v] = Tree(v, leaves, _table(fn, v, leaves, members), tuple(sorted(members)))
    return trees
