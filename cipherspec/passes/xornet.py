"""XOR-network optimisation: Paar's greedy common-pair elimination over every XOR network.

A network is a maximal tree of xor ops whose inner nodes have exactly one use.  Its
leaves are everything else: inputs, lookups, and xor values with several uses — so a
shared term the spec author wrote as a ``let`` (ARIA's T1..T4) stays a shared term.
Each root is the XOR of a set of leaves (pairs cancel).  Across all roots of one
connected group, the pair of elements that occurs in the most roots is computed once
and substituted, until no pair occurs twice (Paar 1997).  Each root is then rebuilt
as a balanced tree, which gives the backends independent XORs to overlap.

    before: %4 = xor a, b   %5 = xor %4, c   %6 = xor a, c   %7 = xor %6, d   %8 = xor b, %6 ...
            y0 = a^b^c, y1 = a^c^d, y2 = a^b^c^d            (6 XORs)
    after:  t = a^c   y0 = t^b   y1 = t^d   y2 = y0^d ...    (4 XORs: t shared; y2 reuses b^t)

Deterministic: ties between pairs are broken by the smallest pair (leaf order).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..ir import Function, Op, Table

MAX_GROUP = 4096  # roots per connected group; larger groups are left as written


def _uses(fn: Function) -> tuple[list[int], list[bool]]:
    count = [0] * len(fn.ops)
    xor_only = [True] * len(fn.ops)
    for op in fn.ops:
        for a in op.args:
            count[a] += 1
            if op.code != "xor":
                xor_only[a] = False
    for _, v in fn.outputs:
        count[v] += 1
        xor_only[v] = False
    return count, xor_only


def _leaves(fn: Function, root: int, absorbed: list[bool]) -> frozenset:
    """The set of leaf ids whose XOR the root computes (a leaf reached twice cancels)."""
    acc: set[int] = set()
    stack = [root]
    while stack:
        v = stack.pop()
        for a in fn.ops[v].args:
            if absorbed[a]:
                stack.append(a)
            else:
                acc ^= {a}
    return frozenset(("v", a) for a in acc)


def paar(targets: list[set]) -> tuple[list[tuple], list[set]]:
    """Greedy pair elimination.  Returns (new terms as (x, y) element pairs, rewritten targets)."""
    terms: list[tuple] = []
    while True:
        counts: Counter = Counter()
        for t in targets:
            items = sorted(t)
            for i in range(len(items)):
                for j in range(i + 1, len(items)):
                    counts[(items[i], items[j])] += 1
        if not counts:
            break
        best = max(counts.values())
        if best < 2:
            break
        pair = min(p for p, c in counts.items() if c == best)
        term = ("t", len(terms))
        terms.append(pair)
        for t in targets:
            if pair[0] in t and pair[1] in t:
                t.discard(pair[0])
                t.discard(pair[1])
                t.add(term)
    return terms, targets


def _groups(roots: list[int], leafsets: dict[int, frozenset]) -> list[list[int]]:
    """Connected groups of roots (roots sharing a leaf), in program order."""
    parent = {r: r for r in roots}

    def find(r):
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    owner: dict = {}
    for r in roots:
        for leaf in leafsets[r]:
            if leaf in owner:
                a, b = find(owner[leaf]), find(r)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[leaf] = r
    groups: dict[int, list[int]] = {}
    for r in roots:
        groups.setdefault(find(r), []).append(r)
    return list(groups.values())


def run(fn: Function, tables: dict[str, Table]) -> Function:
    count, xor_only = _uses(fn)
    is_xor = [op.code == "xor" for op in fn.ops]
    absorbed = [is_xor[i] and count[i] == 1 and xor_only[i] for i in range(len(fn.ops))]
    roots = [i for i in range(len(fn.ops)) if is_xor[i] and not absorbed[i]]
    leafsets = {r: _leaves(fn, r, absorbed) for r in roots}

    plan: dict[int, tuple[int, set]] = {}  # root -> (group index, final element set)
    group_terms: list[list[tuple]] = []
    for g in _groups(roots, leafsets):
        targets = [set(leafsets[r]) for r in g]
        terms, targets = paar(targets) if len(g) <= MAX_GROUP else ([], targets)
        gi = len(group_terms)
        group_terms.append(terms)
        for r, t in zip(g, targets):
            plan[r] = (gi, t)

    ops: list[Op] = []
    repl: list[int] = [-1] * len(fn.ops)
    emitted: dict[tuple[int, int], int] = {}  # (group, term index) -> new id
    existing: dict[tuple, int] = {}  # (width, a, b) -> new id, to reuse an xor already emitted

    def xor(a: int, b: int, width: int, origin) -> int:
        key = (width, min(a, b), max(a, b))
        if key not in existing:
            ops.append(Op("xor", width, (a, b), (), origin))
            existing[key] = len(ops) - 1
        return existing[key]

    def element(gi: int, e: tuple, width: int, origin) -> int:
        if e[0] == "v":
            return repl[e[1]]
        key = (gi, e[1])
        if key not in emitted:
            x, y = group_terms[gi][e[1]]
            emitted[key] = xor(element(gi, x, width, origin), element(gi, y, width, origin), width, origin)
        return emitted[key]

    for i, op in enumerate(fn.ops):
        if absorbed[i]:
            continue
        if not is_xor[i]:
            new = replace(op, args=tuple(repl[a] for a in op.args)) if op.args else op
            ops.append(new)
            repl[i] = len(ops) - 1
            continue
        gi, elems = plan[i]
        vals = [element(gi, e, op.width, op.origin) for e in sorted(elems)]
        if not vals:
            ops.append(Op("const", op.width, (), (0,), op.origin))
            repl[i] = len(ops) - 1
            continue
        while len(vals) > 1:  # balanced: independent XORs first
            nxt = [xor(vals[k], vals[k + 1], op.width, op.origin) for k in range(0, len(vals) - 1, 2)]
            if len(vals) % 2:
                nxt.append(vals[-1])
            vals = nxt
        repl[i] = vals[0]
    return fn.copy_with(ops, [(n, repl[v]) for n, v in fn.outputs])
