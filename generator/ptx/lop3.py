"""LOP3 fusion: cover trees of and/or/xor/not with at most 3 distinct leaves by one ``lop3.b32``.

A logic op whose only use is another logic op of the same width is absorbed into its user's tree
while the tree still has at most 3 distinct leaves.  The truth table is the tree evaluated on the
leaf columns a=0xF0, b=0xCC, c=0xAA (PTX's immLut convention).

    before: %3 = xor %0, %1   %4 = and %3, %2   %5 = not %4      (%3, %4 used once)
    after:  %5 = lop3 %0, %1, %2, 0x87                             = ~((a ^ b) & c)
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function

LOGIC = ("xor", "and", "or", "not")
COLUMNS = (0xF0, 0xCC, 0xAA)


@dataclass(frozen=True)
class Tree:
    root: int
    leaves: tuple[int, ...]  # distinct value ids, at most 3
    table: int  # 8-bit immLut
    members: tuple[int, ...]  # the logic ops it covers (root included)

    @property
    def simple(self) -> str | None:
        """'xor'/'and'/'or'/'not' when the tree is that single two-input (one-input) op."""
        if len(self.members) != 1:
            return None
        return {(2, 0x3C): "xor", (2, 0xC0): "and", (2, 0xFC): "or", (1, 0x0F): "not"}.get(
            (len(self.leaves), self.table)
        )


def use_counts(fn: Function) -> list[int]:
    uses = [0] * len(fn.ops)
    for op in fn.ops:
        for a in op.args:
            uses[a] += 1
    for _, v in fn.outputs:
        uses[v] += 1  # an output is a use that needs the value itself
    return uses


def _table(fn: Function, root: int, leaves: tuple[int, ...], members: set[int]) -> int:
    col = {v: COLUMNS[i] for i, v in enumerate(leaves)}

    def ev(v: int) -> int:
        if v not in members:
            return col[v]
        op = fn.ops[v]
        if op.code == "not":
            return ~ev(op.args[0]) & 0xFF
        a, b = ev(op.args[0]), ev(op.args[1])
        return {"xor": a ^ b, "and": a & b, "or": a | b}[op.code]

    return ev(root)


def cover(fn: Function, max_width: int = 32) -> dict[int, Tree]:
    """Trees by root value id; every logic op of width <= max_width is a root or a member of one tree."""
    uses = use_counts(fn)
    absorbed: set[int] = set()
    trees: dict[int, Tree] = {}
    for v in range(len(fn.ops) - 1, -1, -1):
        op = fn.ops[v]
        if op.code not in LOGIC or op.width > max_width or v in absorbed:
            continue
        members = {v}
        leaves = list(dict.fromkeys(op.args))
        changed = True
        while changed:
            changed = False
            for leaf in list(leaves):
                lop = fn.ops[leaf]
                if (
                    lop.code not in LOGIC
                    or lop.width != op.width
                    or uses[leaf] != 1
                    or leaf in absorbed
                    or leaf in members
                ):
                    continue
                trial = list(dict.fromkeys([x for x in leaves if x != leaf] + list(lop.args)))
                if len(trial) <= 3:
                    leaves = trial
                    members.add(leaf)
                    changed = True
                    break
        absorbed |= members - {v}
        leaves_t = tuple(leaves)
        trees[v] = Tree(v, leaves_t, _table(fn, v, leaves_t, members), tuple(sorted(members)))
    return trees
