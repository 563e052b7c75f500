"""The shared-cone LOP3 cover (generator/ptx/lop3map.py): each tree computes its root from its leaves,
every value read outside logic of its width is a root, and it never needs more LOP3s than lop3.cover."""

from __future__ import annotations

import random

import pytest

from cipherspec.ir import Function, Op
from generator.ptx import lop3, lop3map

M = 0xFFFFFFFF


def _eval(op: Op, a: list[int]) -> int:
    return {"xor": lambda: a[0] ^ a[1], "and": lambda: a[0] & a[1], "or": lambda: a[0] | a[1]}.get(
        op.code, lambda: ~a[0] & M
    )()


def _lut(table: int, xs: list[int]) -> int:
    out = 0
    for bit in range(32):
        idx = 0
        for k in range(3):
            idx = idx << 1 | ((xs[k] >> bit) & 1 if k < len(xs) else 0)
        out |= ((table >> idx) & 1) << bit
    return out


def _random_dag(rng: random.Random, n_in: int, n_ops: int) -> Function:
    ops = [Op("input", 32, (), (f"x{i}",)) for i in range(n_in)]
    for _ in range(n_ops):
        code = rng.choice(["xor", "xor", "and", "or", "not"])
        lo = max(0, len(ops) - 12)  # mostly local reads: deep, shared cones like an S-box circuit
        args = (rng.randrange(lo, len(ops)),) if code == "not" else tuple(rng.randrange(lo, len(ops)) for _ in "ab")
        ops.append(Op(code, 32, args))
    outs = [(f"y{k}", v) for k, v in enumerate(rng.sample(range(n_in, len(ops)), 6))]
    return Function("f", ops, outs)


def test_shared_operand_is_recomputed_in_each_reader():
    ops = [Op("input", 32, (), (n,)) for n in "abc"]
    ops += [Op("xor", 32, (0, 1)), Op("and", 32, (3, 2)), Op("or", 32, (3, 2))]
    fn = Function("f", ops, [("x", 4), ("y", 5)])
    trees = lop3map.cover(fn)
    assert sorted(trees) == [4, 5] and len(lop3.cover(fn)) == 3  # %3 costs no LOP3 of its own
    assert trees[4].leaves == (0, 1, 2) and trees[4].table == (0xF0 ^ 0xCC) & 0xAA
    assert trees[5].table == (0xF0 ^ 0xCC) | 0xAA


@pytest.mark.parametrize("seed", range(12))
def test_random_circuits_compute_the_same_outputs(seed):
    rng = random.Random(seed)
    fn = _random_dag(rng, 8, 120)
    trees = lop3map.cover(fn)
    x = [rng.getrandbits(32) for _ in range(8)]
    ref: list[int] = []
    for op in fn.ops:
        ref.append(x[int(op.imm[0][1:])] if op.code == "input" else _eval(op, [ref[a] for a in op.args]))
    got: dict[int, int] = {i: ref[i] for i in range(8)}
    for v in sorted(trees):  # roots in topological order, each from its leaves only
        t = trees[v]
        assert all(leaf in got for leaf in t.leaves), "a leaf is neither an input nor a root"
        got[v] = _lut(t.table, [got[leaf] for leaf in t.leaves])
    for _, v in fn.outputs:
        assert got[v] == ref[v]
    assert len(trees) <= len(lop3.cover(fn))


def test_cones_stop_at_a_change_of_width():
    ops = [Op("input", 8, (), ("a",)), Op("input", 8, (), ("b",)), Op("xor", 8, (0, 1))]
    ops += [Op("zext", 32, (2,)), Op("input", 32, (), ("c",)), Op("xor", 32, (3, 4))]
    trees = lop3map.cover(Function("f", ops, [("y", 5)]))
    assert sorted(trees) == [2, 5] and trees[5].leaves == (3, 4)
