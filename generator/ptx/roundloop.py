"""Round loops: find the repeated round body of a straight-line core and run it in a loop.

Lowering unrolls the spec's round loop, so a bitsliced AES core is one basic block of ~27 000 plane
operations with 128 planes live throughout: register allocation and scheduling in ptxas (and nvcc's
own optimiser) are super-linear in a block that size.  This transform re-rolls what lowering unrolled,
from the IR alone (no per-cipher code):

  1. cut the core into segments at changes of the ops' ``origin.round`` (the spec's outermost loop
     variable; ops outside the loop form the segments before and after it);
  2. for a period p (1 for AES; 2 for ARIA, whose odd and even rounds differ), compare groups of p
     consecutive segments in canonical form: each op as (code, width, imm, args) with an argument
     written as a local op index, a constant, the j-th key word the group reads or the q-th value it
     reads from before it (both in first-use order); where that finds no loop, again with a commutative op's
     arguments ordered by kind (``_commuted``: round 0's ``x ^ k`` and round 1's ``k ^ x`` are the same op);
  3. keep the longest run of equal groups whose dataflow chains: the q-th value group i+1 reads from
     before it is, for every i, the same op of group i (or the same value group i read, passed on), so
     that one carried vector S[0..L) holds what each iteration reads;
  4. the same with each cut of step 1 moved forward to where the fewest values are live (``narrowest``:
     a round key XORed into the last round's linear layer tags that layer's roots with the next round);
     of two runs that re-roll as much, the one that carries fewer values (ARIA: 128 planes, not 192).

    before: core  = r0; r1; r2; ...; r9; last                (one basic block)
    after:  pre   = r0                      inputs -> S[p] (the values r1 reads), E[q] (others post reads)
            body  = r1 over S[p], K[j]      S[p] -> S[p]      (run ``count`` times; iteration i reads as
                                                               K[j] the key word keys[i][j])
            post  = last over S[p], E[q]    -> the core's outputs

Contract: post(body^count(pre(x))) == core(x) for every input, a plain dataflow identity (tested on the
interpreter).  Keys and constants are leaves every part reads directly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cipherspec.ir import COMMUTATIVE, Function

from .abswitch import former_rounds
from .irbuild import Builder

LEAVES = ("input", "const")
MAX_PERIOD = 4  # rounds per loop iteration tried (ARIA needs 2)
PLAIN_FIRST = True  # find: the comparison as written first, by kind only where it finds no loop (False: by kind only)


@dataclass(frozen=True)
class RoundLoop:
    pre: Function  # the core's inputs -> S[0..L), E[0..NE)
    body: Function  # S[0..L), K[0..NK) -> S[0..L)
    post: Function  # S[0..L), E[0..NE), key words -> the core's outputs
    count: int  # iterations
    keys: tuple[tuple[str, ...], ...]  # keys[i][j]: the key word iteration i reads as K[j]
    period: int  # rounds per iteration

    @property
    def carried(self) -> int:
        return len(self.body.outputs)

    @property
    def extras(self) -> int:
        return sum(1 for n, _ in self.pre.outputs if n.startswith("E["))

    def stride(self, index: dict[str, int]) -> tuple[list[int], int] | None:
        """(word of K[j] in iteration 0, step per iteration) when ``index`` (key word -> struct word)
        places every iteration's keys at one stride from the first's; else None (they need slots)."""
        first = [index[k] for k in self.keys[0]]
        if len(self.keys) < 2:
            return first, 0
        step = index[self.keys[1][0]] - first[0]
        for i, ks in enumerate(self.keys):
            if [index[k] for k in ks] != [f + i * step for f in first]:
                return None
        return first, step


@dataclass(frozen=True)
class _Group:
    ops: tuple[int, ...]  # non-leaf op ids, in order
    sig: tuple  # canonical form
    live_in: tuple[int, ...]  # value ids read from before the group, first use first
    keys: tuple[int, ...]  # key input op ids, first use first
    local: dict[int, int]  # op id -> index in ops


def segments(fn: Function) -> list[list[int]]:
    """Non-leaf op ids cut where ``origin.round`` changes."""
    out: list[list[int]] = []
    prev: object = object()
    for v, op in enumerate(fn.ops):
        if op.code in LEAVES:
            continue
        r = op.origin.round if op.origin is not None else None
        if not out or r != prev:
            out.append([])
        out[-1].append(v)
        prev = r
    return out


def narrowest(fn: Function, segs: list[list[int]]) -> list[list[int]]:
    """Move each cut between two segments forward, over a prefix of the second, to the first place with the
    fewest values live across it (made before, read after): the carried vector of a loop cut there.

    An XOR network rooted in round r+1 (the round key XORed into round r's linear layer) starts the next
    round with round r's shared terms still live; past it only the state is:
        before: ... S-box_r | T = s3^s4^s9^s14; y0 = s6^s8^s13^T^k0 ...; S-box_r+1   (192 planes live at |)
        after:  ... S-box_r; T = ...; y0 = ... | S-box_r+1                           (128 planes live at |)
    """
    if len(segs) < 2:
        return segs
    order = [v for seg in segs for v in seg]
    pos = {v: i for i, v in enumerate(order)}
    last = {}  # value -> position of its last non-leaf reader (len(order): an output)
    for i, v in enumerate(order):
        for a in fn.ops[v].args:
            if a in pos:
                last[a] = i
    for _, v in fn.outputs:
        if v in pos:
            last[v] = len(order)
    delta = [0] * (len(order) + 2)  # live across the cut before position i: made before i, read at or after i
    for a, i in last.items():
        if i > pos[a]:
            delta[pos[a] + 1] += 1
            delta[i + 1] -= 1
    live = []
    n = 0
    for i in range(len(order)):
        n += delta[i]
        live.append(n)
    cuts = [pos[seg[0]] for seg in segs[1:]]
    ends = cuts[1:] + [len(order)]
    moved = []
    for c, e in zip(cuts, ends):
        best = min(range(c, e), key=lambda i: (live[i], i))
        moved.append(best)
    out, start = [], 0
    for c in moved:
        out.append(order[start:c])
        start = c
    out.append(order[start:])
    return out


class _View:
    """What ``_group`` reads of each op of ``fn``, looked up once per function (a group's canonical form is made
    for thousands of ops, for every period and cut that ``find`` tries)."""

    def __init__(self, fn: Function, is_key):
        self.head = [(op.code, op.width, op.imm) for op in fn.ops]
        self.args = [op.args for op in fn.ops]
        # a leaf argument's canonical form: a constant's own, a key word's marker (numbered per group)
        self.const = {v: ("c", op.width, op.imm[0]) for v, op in enumerate(fn.ops) if op.code == "const"}
        self.key = {v for v, op in enumerate(fn.ops) if op.code == "input" and is_key(op.imm[0])}


def _group(view: _View, ops: list[int], commute: bool = False) -> _Group:
    """``ops`` in canonical form: an argument is the index of the group's op that makes it (an int), a constant
    ("c", width, value), the j-th key word the group reads ("k", j) or the q-th value from before it ("i", q);
    ``commute``: a commutative op's arguments ordered by kind first (``_commuted``)."""
    local = {v: i for i, v in enumerate(ops)}
    live: dict[int, int] = {}
    keys: dict[int, int] = {}
    head, args_of, const, key = view.head, view.args, view.const, view.key
    sig = []
    for v in ops:
        args: list = []
        order = _commuted(view, head[v][0], args_of[v], local, live, keys) if commute else args_of[v]
        for a in order:
            i = local.get(a)
            if i is not None:
                args.append(i)
            elif a in const:
                args.append(const[a])
            elif a in key:
                args.append(("k", keys.setdefault(a, len(keys))))
            else:
                args.append(("i", live.setdefault(a, len(live))))
        sig.append((head[v], tuple(args)))
    return _Group(tuple(ops), tuple(sig), tuple(live), tuple(keys), local)


def _commuted(
    view: _View, code: str, args: tuple[int, ...], local: dict[int, int], live: dict[int, int], keys
) -> tuple:
    """A commutative op's arguments in an order that does not depend on value ids: by kind (a value of the group,
    a constant, a live-in or key word already numbered, then new ones), so that round 0's ``x ^ k`` (its state an
    input, numbered before the key) and round 1's ``k ^ x`` (its state made after the key) compare equal.  Ties
    (two new live-ins) keep their order and are numbered in it: the signature is the same either way.  Other
    ops: their arguments as they are."""
    if code not in COMMUTATIVE:
        return args

    def rank(a: int) -> tuple:
        if a in local:
            return (0, local[a])
        if a in view.const:
            return (1, *view.const[a][1:])
        if a in view.key:
            return (3, keys[a]) if a in keys else (5,)
        return (2, live[a]) if a in live else (4,)

    return tuple(sorted(args, key=rank))


def _chain(groups: list[_Group]) -> list[tuple[str, int]] | None:
    """out[p] = ("op", l) or ("in", q): where the value iteration i+1 reads at live-in p comes from in
    iteration i (its l-th op, or what it read at live-in q); None when the groups do not chain."""
    g0, g1 = groups[0], groups[1]
    out = []
    for p, v in enumerate(g1.live_in):
        if v in g0.local:
            out.append(("op", g0.local[v]))
        elif g0.live_in[p] == v:
            out.append(("in", p))
        elif v in g0.live_in:
            out.append(("in", g0.live_in.index(v)))
        else:
            return None
    for a, b in zip(groups, groups[1:]):
        if any(b.live_in[p] != _resolve(a, src) for p, src in enumerate(out)):
            return None
    return out


def _resolve(g: _Group, src: tuple[str, int]) -> int:
    kind, i = src
    return g.ops[i] if kind == "op" else g.live_in[i]


def _users(fn: Function) -> dict[int, list[int]]:
    """Value -> the ops that read it, in ascending order (so the last one is the latest reader)."""
    users: dict[int, list[int]] = {}
    for v, op in enumerate(fn.ops):
        for a in op.args:
            users.setdefault(a, []).append(v)
    return users


def _escapes_ok(run: list[_Group], out: list[tuple[str, int]], users, outputs: set[int]) -> bool:
    """Every value made in the run and read after it (or an output) is in the final carried vector.  (Reads
    inside the run go through live-ins, which _chain checked against the carried vector.)"""
    final = {_resolve(run[-1], s) for s in out}
    last = run[-1].ops[-1]
    for g in run:
        for v in g.ops:
            if v not in final and (v in outputs or users.get(v, (-1,))[-1] > last):
                return False
    return True


def find(fn: Function, is_key, narrow: bool = True) -> RoundLoop | None:
    """The best round loop of ``fn`` (most ops re-rolled; at least two iterations), or None.
    ``is_key(name)``: the input is a key word (read per iteration through K[j]), not a value; ``narrow``: also
    try the cuts moved to where the fewest values are live (``narrowest``), and keep them where they save as much.
    Rounds are compared as written first, and with commutative arguments by kind (``_commuted``) only where that
    finds no loop: every loop found without it stays as it was (the measured defaults' kernels, byte for byte)."""
    view = _View(fn, is_key)
    users = _users(fn)  # (both passes read them: made once)
    outputs = {v for _, v in fn.outputs}
    for commute in (False,) if former_rounds() else (False, True) if PLAIN_FIRST else (True,):
        loop = _find(fn, view, is_key, narrow, commute, users, outputs)
        if loop is not None:
            return loop
    return None


def _find(fn: Function, view: _View, is_key, narrow: bool, commute: bool, users, outputs: set[int]) -> RoundLoop | None:
    best: tuple[int, int, int, list[_Group], list] | None = None
    raw = segments(fn)
    for segs in (raw, narrowest(fn, raw)) if narrow else (raw,):  # as tagged, or cut where the fewest are live
        for p in range(1, MAX_PERIOD + 1):
            if best is not None and _most_saved(view, segs, p) < best[0]:
                continue  # (no run of this period can re-roll as much: its canonical forms are not made)
            for saved, run, out in _runs(view, segs, p, users, outputs, commute):
                if best is None or (saved, -len(out)) > (best[0], -best[1]):  # most re-rolled, then fewest carried
                    best = (saved, len(out), p, run, out)
    if best is None:
        return None
    _, _, p, run, out = best
    if os.environ.get("CIPHERSPEC_PTX_ROTATE") == "1":  # A/B switch (bench/results/gpu-ct64.md), off by default
        rotated = _rotated(fn, view, run, p, is_key, users, outputs, commute)
        if rotated is not None:
            return rotated
    return _build(fn, run, out, p, is_key)


def _heads(fn: Function, g: _Group, is_key) -> set[int]:
    """The ops of a group that read a key word and otherwise only values from before it (a round's key addition)."""
    out = set()
    for v in g.ops:
        kinds = set()
        for a in fn.ops[v].args:
            op = fn.ops[a]
            key = op.code == "input" and is_key(op.imm[0])
            kinds.add("k" if key else "c" if op.code == "const" else "l" if a in g.local else "i")
        if "k" in kinds and "l" not in kinds:
            out.add(v)
    return out


def _rotated(
    fn: Function, view: _View, run: list[_Group], p: int, is_key, users, outputs: set[int], commute: bool
) -> RoundLoop | None:
    """The loop turned by a round's key addition: iteration i runs round i's rest and round i+1's key addition, so
    the key XOR sits beside the ops making its operand (one LOP3 may take both); pre adds round 0's key, post runs
    the last round's rest.  None where the rounds open with no key addition or the turned groups do not chain."""
    heads = [_heads(fn, g, is_key) for g in run]
    if not heads[0] or len(run) < 3:
        return None
    turned = [
        _group(view, [v for v in run[i].ops if v not in heads[i]] + sorted(heads[i + 1]), commute)
        for i in range(len(run) - 1)
    ]
    if any(g.sig != turned[0].sig for g in turned):
        return None
    out = _chain(turned)
    if out is None:
        return None
    inside = {v for g in turned for v in g.ops}
    final = {_resolve(turned[-1], s) for s in out}
    if any(v not in final and (v in outputs or any(u not in inside for u in users.get(v, ()))) for v in inside):
        return None
    pre = list(range(run[0].ops[0])) + sorted(heads[0])
    post = sorted(set(run[-1].ops) - heads[-1]) + list(range(run[-1].ops[-1] + 1, len(fn.ops)))
    return _build(fn, turned, out, p, is_key, (pre, inside, post))


def _most_saved(view: _View, segs: list[list[int]], p: int) -> int:
    """An upper bound of the ops a run of period ``p`` can re-roll (what _runs yields as ``saved``): the longest chains
    of consecutive p-segment groups whose ops are equal without their arguments -- _runs' first, cheap test -- each
    (n - 1) times its first group's ops.  The canonical forms can only shorten a chain.
        AES, p = 1: rounds 1..9 chain (9 groups) -> 8 rounds' ops;  p = 2: (1,2) (3,4) (5,6) (7,8) -> 6 rounds' ops"""
    heads = [tuple(view.head[v] for v in seg) for seg in segs]
    most = 0
    for start in range(len(segs) - 2 * p + 1):
        n = 1
        while (
            start + (n + 1) * p <= len(segs) and heads[start : start + p] == heads[start + n * p : start + (n + 1) * p]
        ):
            n += 1
        if n >= 2:
            most = max(most, (n - 1) * sum(len(seg) for seg in segs[start : start + p]))
    return most


def _runs(view: _View, segs: list[list[int]], p: int, users, outputs, commute: bool):
    """(ops saved, groups, chain) of each maximal run of equal, chaining groups of ``p`` segments."""
    cache: dict[int, _Group] = {}

    def grp(s: int) -> _Group:
        if s not in cache:
            cache[s] = _group(view, [v for seg in segs[s : s + p] for v in seg], commute)
        return cache[s]

    # each segment's ops without their arguments: equal canonical forms need equal ones (ARIA's odd and even
    # rounds, different S-box layers, differ here already), and they are compared without making the forms
    heads = [tuple(view.head[v] for v in seg) for seg in segs]

    def same(a: int, b: int) -> bool:  # the ops first (cheap), then the canonical forms
        return heads[a : a + p] == heads[b : b + p] and grp(a).sig == grp(b).sig

    covered = -1  # a run found from an earlier start covers the starts up to here
    for start in range(len(segs) - 2 * p + 1):
        if start <= covered:
            continue
        n = 1
        while start + (n + 1) * p <= len(segs) and same(start, start + n * p):
            n += 1
        while n >= 2:
            run = [grp(start + i * p) for i in range(n)]
            out = _chain(run)
            if out is not None and _escapes_ok(run, out, users, outputs):
                covered = start + (n - 1) * p
                yield (n - 1) * len(run[0].ops), run, out
                break
            n -= 1


def _build(fn: Function, run: list[_Group], out: list[tuple[str, int]], period: int, is_key, parts=None) -> RoundLoop:
    """``parts``: (pre's ops, the loop's ops, post's ops) where they are not the spans before, of and after the run."""
    first, last = run[0].ops[0], run[-1].ops[-1]
    pre_ops, inside, post_ops = parts or (range(first), set(range(first, last + 1)), range(last + 1, len(fn.ops)))
    after = set(post_ops)
    carried = [_resolve(run[-1], s) for s in out]  # value ids after the loop, by position
    bound = {v: f"S[{p}]" for p, v in reversed(list(enumerate(carried)))}
    extra: dict[int, str] = {}  # values from before the run that post reads (and the loop does not carry)
    reads = [a for v in post_ops for a in fn.ops[v].args] + [v for _, v in fn.outputs]
    for a in reads:
        op = fn.ops[a]
        if a in bound or a in after or op.code == "const" or (op.code == "input" and is_key(op.imm[0])):
            continue
        if op.code != "input" and a in inside:
            raise AssertionError(f"round loop: %{a} is read after the loop but not carried")  # (_escapes_ok)
        extra.setdefault(a, f"E[{len(extra)}]")

    g = run[0]
    pre = _part(fn, pre_ops, {}, [(f"S[{p}]", v) for p, v in enumerate(g.live_in)] + [(n, v) for v, n in extra.items()])
    b = Builder("body")
    ids = {v: b.input(f"S[{p}]") for p, v in enumerate(g.live_in)}
    ids |= {k: b.input(f"K[{j}]") for j, k in enumerate(g.keys)}
    _replay(fn, b, g.ops, ids)
    body = b.function([(f"S[{p}]", ids[_resolve(g, s)]) for p, s in enumerate(out)])
    post = _part(fn, post_ops, bound | extra, list(fn.outputs))
    keys = tuple(tuple(fn.ops[k].imm[0] for k in grp.keys) for grp in run)
    return RoundLoop(pre, body, post, len(run), keys, period)


def _replay(fn: Function, b: Builder, ops, ids: dict[int, int]) -> None:
    """Copy ``ops`` into ``b``; their arguments are in ``ids`` (bound or copied before) or leaves."""

    def arg(a: int) -> int:
        if a not in ids:
            op = fn.ops[a]
            if op.code == "input":
                ids[a] = b.input(op.imm[0])
            elif op.code == "const":
                ids[a] = b.const(op.imm[0], op.width)
            else:
                raise AssertionError(f"round loop: %{a} is read outside the part that makes it")
        return ids[a]

    for v in ops:
        op = fn.ops[v]
        b.origin = op.origin
        if op.code in LEAVES:
            arg(v)
        elif v not in ids:
            ids[v] = b.op(op.code, *(arg(a) for a in op.args), imm=op.imm[0] if op.imm else None, width=op.width)


def _part(fn: Function, span, bound: dict[int, str], outputs: list[tuple[str, int]]) -> Function:
    """The non-leaf ops of ``span`` (and the leaves they read) as a function; values in ``bound`` are its
    inputs of those names."""
    b = Builder("part")
    ids = {v: b.input(name) for v, name in bound.items()}
    _replay(fn, b, [v for v in span if fn.ops[v].code not in LEAVES], ids)
    _replay(fn, b, [v for _, v in outputs if fn.ops[v].code in LEAVES], ids)
    return b.function([(n, ids[v]) for n, v in outputs])
