"""XOR networks for 3-input gates: undo the sharing of an XOR term where LOP3 makes it cost nothing.

Paar's greedy (cipherspec/passes/xornet.py) shares every pair of leaves two roots have in common: right
for 2-input XORs, not for ``lop3.b32``, which XORs three values at once.  A root of n leaves costs
ceil((n-1)/2) LOP3, so a root of 4 leaves (a shared pair among them) costs 2, and the same root with the
pair's two leaves in place of the pair, 5 leaves, costs 2 as well: the pair's own instruction is then
pure overhead.  Here every XOR tree is seen as the set of its leaves (the values it reads that are not
single-use XORs of its own tree); a shared XOR value all of whose readers are such trees is inlined into
them (its leaves XORed into each reader's set) when that adds fewer LOP3 to the readers than the value
costs itself.  Rebuilt roots are chains (a chain of n leaves covers as ceil((n-1)/2) LOP3, lop3map.py).

    before: p = s8 ^ s13        y0 = (p ^ k0) ^ (s6 ^ t1)      y7 = (p ^ k7) ^ (s3 ^ t3)     (1 + 2 + 2 LOP3)
    after:  y0 = s8 ^ s13 ^ k0 ^ s6 ^ t1                       y7 = s8 ^ s13 ^ k7 ^ s3 ^ t3  (2 + 2 LOP3)

(ARIA's diffusion layer with the round-key XOR, bitsliced: 46 -> 40 LOP3 per bit plane.)  Only the
bitsliced cores use it (lanes.py): their logic is all LOP3.
"""

from __future__ import annotations

from cipherspec.ir import Function
from cipherspec.passes import dce

from .irbuild import Builder
from .lop3 import use_counts

_XL = ("xor", "not")


def cost(n: int, inverted: int = 0) -> int:
    """LOP3 for an XOR of n leaves (a NOT folds into the table; a lone inverted leaf is one NOT)."""
    return n // 2 if n >= 2 else n & inverted


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
                cost(len((leaves[r] - {p}) ^ leaves[p]), inv[r] ^ inv[p]) - cost(len(leaves[r]), inv[r]) for r in us
            )
            if grow >= cost(len(leaves[p]), inv[p]):
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
