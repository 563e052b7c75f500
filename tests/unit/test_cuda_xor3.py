"""XOR networks for 3-input gates (generator/ptx/xor3.py): a shared XOR term is inlined into its readers where
LOP3 makes that free, the result computes the same function (random DAGs like S-box circuits, on the
interpreter), and a term whose inlining would cost more stays shared."""

from __future__ import annotations

import random

import numpy as np

from cipherspec.interp import Interpreter
from cipherspec.ir import Function, Op
from generator.ptx import lop3map, xor3
from generator.ptx.irbuild import Builder


def _same(a: Function, b: Function, seed: int = 1) -> bool:
    rng = np.random.default_rng(seed)
    ins = {n: rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32) for n, _, _ in a.inputs()}
    ra, rb = Interpreter({}).run(a, ins), Interpreter({}).run(b, ins)
    return all((np.asarray(ra[n]) == np.asarray(rb[n])).all() for n, _ in a.outputs)


def _pair_shared_by_two() -> Function:
    """The docstring's case: p = s8 ^ s13 read by y0 = (p ^ k0) ^ (s6 ^ t1) and y7 = (p ^ k7) ^ (s3 ^ t3)."""
    b = Builder("f")
    s8, s13, s6, s3, t1, t3, k0, k7 = (b.input(n) for n in ("s8", "s13", "s6", "s3", "t1", "t3", "k0", "k7"))
    p = b.op("xor", s8, s13)
    y0 = b.op("xor", b.op("xor", p, k0), b.op("xor", s6, t1))
    y7 = b.op("xor", b.op("xor", p, k7), b.op("xor", s3, t3))
    return b.function([("y0", y0), ("y7", y7)])


def test_free_pair_is_inlined():
    fn = _pair_shared_by_two()
    out = xor3.unshare(fn)
    assert _same(fn, out)
    pair = {i for i, op in enumerate(out.ops) if op.code == "input" and op.imm[0] in ("s8", "s13")}
    assert not [op for op in out.ops if op.code == "xor" and set(op.args) == pair]  # p is gone
    assert len(lop3map.cover(out)) <= len(lop3map.cover(fn))
    assert [xor3.tree_cost(n) for n in range(1, 7)] == [0, 1, 1, 2, 2, 3] and xor3.tree_cost(1, 1) == 1


def test_costly_pair_stays_shared():
    # y_i = p ^ a_i ^ b_i: 3 leaves (1 LOP3) with p, 4 without (2 LOP3): p (1 LOP3) for 3 readers stays
    b = Builder("f")
    p = b.op("xor", b.input("u"), b.input("v"))
    outs = [(f"y{i}", b.op("xor", b.op("xor", p, b.input(f"a{i}")), b.input(f"b{i}"))) for i in range(3)]
    fn = b.function(outs)
    assert xor3.unshare(fn) is fn  # nothing to gain: unchanged


def test_inverted_terms_and_cancelling_leaves():
    # q = ~(a ^ b) read by r1 = q ^ a ^ c (a cancels: ~b ^ c) and r2 = q ^ d
    b = Builder("f")
    a, bb, c, d = (b.input(n) for n in "abcd")
    q = b.op("not", b.op("xor", a, bb))
    fn = b.function([("r1", b.op("xor", b.op("xor", q, a), c)), ("r2", b.op("xor", q, d))])
    assert _same(fn, xor3.unshare(fn))


def _random_dag(rng: random.Random, n_in: int, n_ops: int) -> Function:
    ops = [Op("input", 32, (), (f"x{i}",)) for i in range(n_in)]
    for _ in range(n_ops):
        code = rng.choice(["xor", "xor", "xor", "and", "or", "not"])
        lo = max(0, len(ops) - 10)
        args = (rng.randrange(lo, len(ops)),) if code == "not" else tuple(rng.randrange(lo, len(ops)) for _ in "ab")
        ops.append(Op(code, 32, args))
    outs = [(f"y{k}", v) for k, v in enumerate(rng.sample(range(n_in, len(ops)), 6))]
    return Function("f", ops, outs)


def test_random_dags_keep_their_function():
    rng = random.Random(7)
    changed = 0
    for i in range(60):
        fn = _random_dag(rng, 6, 60)
        out = xor3.unshare(fn)
        changed += out is not fn
        assert _same(fn, out, seed=i), i
    assert changed > 10  # the rewrite fired on many of them
