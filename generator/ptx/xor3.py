"""XOR networks for three-input gates (LOP3): one LOP3 XORs three values, so an XOR of n leaves costs
ceil((n - 1) / 2) instructions (``tree_cost``), where Paar's greedy (cipherspec/passes/xornet.py) counts
two-input XORs.  Two uses of that cost:

``network(rows)`` builds a linear layer's rows anew (keypush.py): greedy extraction of shared pairs and
triples, each step the one with the largest saving over the rows that contain it (ties: the smallest),
until none saves anything; of a few such runs (the later ones with seeded noise on the savings, so ties
and near-ties go other ways) the cheapest network is kept.

    rows: y0 = a^b^c^d, y1 = a^b^c^e, y2 = a^b^c^f          (each 2 LOP3: 6)
    after: t = a^b^c;  y0 = t^d, y1 = t^e, y2 = t^f         (1 + 3: 4)

``unshare(fn)`` undoes sharing in a function's IR where LOP3 makes it cost nothing (lanes.py, on every
bitsliced core): a root of 4 leaves (a shared pair among them) costs 2, and the same root with the pair's
two leaves in place of the pair, 5 leaves, costs 2 as well: the pair's own instruction is then pure
overhead.  Every XOR tree is seen as the set of its leaves (the values it reads that are not single-use
XORs of its own tree); a shared XOR value all of whose readers are such trees is inlined into them (its
leaves XORed into each reader's set) when that adds fewer LOP3 to the readers than the value costs
itself.  Rebuilt roots are chains (a chain of n leaves covers as ceil((n-1)/2) LOP3, lop3map.py).

    before: p = s8 ^ s13        y0 = (p ^ k0) ^ (s6 ^ t1)      y7 = (p ^ k7) ^ (s3 ^ t3)     (1 + 2 + 2 LOP3)
    after:  y0 = s8 ^ s13 ^ k0 ^ s6 ^ t1                       y7 = s8 ^ s13 ^ k7 ^ s3 ^ t3  (2 + 2 LOP3)

(ARIA's diffusion layer with the round-key XOR, bitsliced: 46 -> 40 LOP3 per bit plane.)
"""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations

from cipherspec.ir import Function
from cipherspec.passes import dce

from .irbuild import Builder
from .lop3 import use_counts

TRIES = 24  # greedy runs per distinct network (AES MixColumns: 58 LOP3 a column with one, 56 with these)
NOISE = 1.5  # the seeded noise added to a candidate's saving in the runs after the first
_XL = ("xor", "not")


def tree_cost(n: int, inverted: int = 0) -> int:
    """LOP3 for an XOR of n leaves, ceil((n - 1) / 2) (a NOT folds into the table; a lone inverted leaf is one NOT)."""
    return n // 2 if n >= 2 else n & inverted


def network(rows: list[set], tries: int = TRIES) -> tuple[list[tuple], list[set]]:
    """(terms: tuples of 2 or 3 elements, term i named ("t", i); the rows rewritten over elements and terms):
    the cheapest of ``tries`` greedy runs, the first with exact ties, the others with seeded noise on the
    savings (deterministic)."""
    elems = sorted({e for r in rows for e in r})
    index = {e: i for i, e in enumerate(elems)}
    terms, sets = _best(tuple(frozenset(index[e] for e in r) for r in rows), tries)

    def back(e: tuple) -> tuple:
        return e if e[0] == "t" else elems[e[1]]

    return [tuple(back(e) for e in t) for t in terms], [{back(e) for e in r} for r in sets]


def cost(terms: list[tuple], rows: list[set]) -> int:
    """LOP3s of a network: one a term, k // 2 a row of k elements."""
    return len(terms) + sum(tree_cost(len(r)) for r in rows)


@cache
def _best(rows: tuple[frozenset[int], ...], tries: int) -> tuple[list[tuple], list[set]]:
    rng = random.Random(0)
    best = None
    for k in range(tries):
        got = _greedy([{("v", e) for e in r} for r in rows], rng if k else None)
        if best is None or cost(*got) < cost(*best):
            best = got
    assert best is not None
    return best


def _greedy(rows: list[set], rng: random.Random | None) -> tuple[list[tuple], list[set]]:
    terms: list[tuple] = []
    while True:
        seen: dict[tuple, list[int]] = {}  # candidate -> [rows holding it, LOP3s it saves over them]
        for r in rows:
            items, k = sorted(r), len(r)
            for n in (2, 3):
                saved = tree_cost(k) - tree_cost(k - n + 1)
                for c in combinations(items, n):
                    e = seen.get(c)
                    if e is None:
                        seen[c] = [1, saved]
                    else:
                        e[0] += 1
                        e[1] += saved
        gain = {c: g for c, (n, g) in seen.items() if n > 1 and g > 1}
        cands = list(gain)
        if not cands:
            return terms, rows
        noise = {c: rng.random() * NOISE for c in cands} if rng else dict.fromkeys(cands, 0.0)
        best = min(cands, key=lambda c: (-gain[c] - noise[c], c))
        term = ("t", len(terms))
        terms.append(best)
        for r in rows:
            if r.issuperset(best):
                r.difference_update(best)
                r.add(term)


def unshare(fn: Function) -> Function:
    """``fn`` with shared XOR values inlined into their readers wherever that saves LOP3 instructions."""
    ops = fn.ops
    uses = use_counts(fn)
    outputs = {v for _, v in fn.outputs}
    readers: dict[int, list[int]] = {}
    for v, op in enumerate(ops):
        for a in set(op.args):
            readers.setdefault(a, []).append(v)

    def inner(v: int) -> bool:  # a single-use XOR/NOT read by an XOR/NOT of its width: part of its reader's tree
        op = ops[v]
        if op.code not in _XL or uses[v] != 1 or v in outputs:
            return False
        r = ops[readers[v][0]]
        return r.code in _XL and r.width == op.width

    roots = [v for v, op in enumerate(ops) if op.code in _XL and not inner(v)]
    tree_of: dict[int, int] = {}
    leaves: dict[int, set[int]] = {}
    inv: dict[int, int] = {}
    for r in roots:
        parity: set[int] = set()
        flip, stack = 0, [r]
        while stack:
            x = stack.pop()
            if x == r or inner(x):
                tree_of[x] = r
                flip ^= ops[x].code == "not"
                stack.extend(ops[x].args)
            else:
                parity ^= {x}
        leaves[r], inv[r] = parity, flip
    users: dict[int, set[int]] = {}  # value -> the roots whose leaf sets hold it
    for r in roots:
        for x in leaves[r]:
            users.setdefault(x, set()).add(r)

    changed: set[int] = set()
    gone: set[int] = set()
    progress = True
    while progress:
        progress = False
        for p in roots:
            us = users.get(p)
            if p in gone or p in outputs or not us:
                continue
            if any(r not in tree_of or ops[r].width != ops[p].width for r in readers[p]):
                continue  # read by something that is not an XOR tree of its width
            grow = sum(
                tree_cost(len((leaves[r] - {p}) ^ leaves[p]), inv[r] ^ inv[p]) - tree_cost(len(leaves[r]), inv[r])
                for r in us
            )
            if grow >= tree_cost(len(leaves[p]), inv[p]):
                continue
            for r in sorted(us):
                leaves[r] = (leaves[r] - {p}) ^ leaves[p]
                inv[r] ^= inv[p]
                for x in leaves[p]:
                    if x in leaves[r]:
                        users.setdefault(x, set()).add(r)
                    else:
                        users.get(x, set()).discard(r)
            changed |= {tree_of[r] for r in readers[p]}  # (a tree where p cancels no longer reads it either)
            users[p] = set()
            gone.add(p)
            progress = True
    if not changed:
        return fn
    return _rebuild(fn, changed, gone, tree_of, leaves, inv, uses)


def _rebuild(fn: Function, changed, gone, tree_of, leaves, inv, uses) -> Function:
    """The function with each changed root as a chain over its leaves: one plain leaf first, then the
    single-use ANDs/ORs (each fills one LOP3 with the chain so far), then the other leaves, two a LOP3;
    inputs (round-key words, loaded from memory) first, so that a layer's loads spread over it instead of
    bunching up where its last values are made; then the latest-made leaves first, so that no partial sum
    waits, holding a register, for the last leaf."""
    ops = fn.ops
    b = Builder(fn.name)
    new: dict[int, int] = {}
    for v, op in enumerate(ops):
        b.origin = op.origin
        if op.code == "input":
            new[v] = b.input(op.imm[0])
        elif op.code == "const":
            new[v] = b.const(op.imm[0], op.width)
        elif v in changed:
            fold = sorted((x for x in leaves[v] if ops[x].code in ("and", "or") and uses[x] == 1), reverse=True)
            plain = sorted(set(leaves[v]) - set(fold), key=lambda x: (ops[x].code != "input", -x))
            order = plain[:1] + fold + plain[1:]
            if not order:
                new[v] = b.const(0xFFFFFFFF if inv[v] else 0, op.width)
                continue
            acc = new[order[0]]
            for x in order[1:]:
                acc = b.op("xor", acc, new[x], width=op.width)
            new[v] = b.op("not", acc, width=op.width) if inv[v] else acc
        elif v in gone or tree_of.get(v, v) in changed:
            continue  # inlined, or inside a rebuilt tree
        else:
            new[v] = b.op(op.code, *[new[a] for a in op.args], imm=op.imm[0] if op.imm else None, width=op.width)
    return dce.run(b.function([(n, new[v]) for n, v in fn.outputs]), {})
