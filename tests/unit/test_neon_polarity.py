"""Values held inverted for BCAX (generator/neon/polarity.py): the rewrite computes the same function under
any polarity plan, and the plan turns an OR/AND feeding a single-use XOR into one BCAX."""

from __future__ import annotations

import random

from cipherspec.ir import Function, Op
from generator.neon import polarity


def _fn(ops: list[Op], outs: list[int]) -> Function:
    return Function("encrypt", ops, [(f"y{k}", v) for k, v in enumerate(outs)])


def _eval(fn: Function, env: dict[str, int]) -> list[int]:
    val: list[int] = []
    for op in fn.ops:
        a = [val[x] for x in op.args]
        if op.code == "input":
            v = env[op.imm[0]]
        elif op.code == "const":
            v = op.imm[0]
        elif op.code == "not":
            v = ~a[0]
        elif op.code == "and":
            v = a[0] & a[1]
        elif op.code == "or":
            v = a[0] | a[1]
        elif op.code == "xor":
            v = a[0] ^ a[1]
        elif op.code == "rotl":
            v = (a[0] << op.imm[0]) | (a[0] >> (8 - op.imm[0]))
        elif op.code == "add":
            v = a[0] + a[1]
        else:
            raise AssertionError(op.code)
        val.append(v & 0xFF)
    return [val[v] for _, v in fn.outputs]


def _random_fn(rng: random.Random, n: int = 40) -> Function:
    ops = [Op("input", 8, (), (f"x{k}",)) for k in range(4)] + [Op("const", 8, (), (0x5A,))]
    for _ in range(n):
        code = rng.choice(["and", "or", "xor", "xor", "not", "rotl", "add"])
        a, b = rng.randrange(len(ops)), rng.randrange(len(ops))
        if code == "not":
            ops.append(Op("not", 8, (a,)))
        elif code == "rotl":
            ops.append(Op("rotl", 8, (a,), (rng.randrange(1, 8),)))
        else:
            ops.append(Op(code, 8, (a, b)))
    return _fn(ops, [len(ops) - 1, len(ops) - 2, len(ops) - 7])


def test_rewrite_is_the_same_function_under_any_plan():
    rng = random.Random(3)
    for _ in range(40):
        fn = _random_fn(rng)
        p = [rng.randrange(2) for _ in fn.ops]
        g = polarity._Graph(fn)
        polarity._follow(fn, g, p)  # rotations keep their operand's polarity
        new = polarity.rewrite(fn, p)
        for _ in range(8):
            env = {f"x{k}": rng.randrange(256) for k in range(4)}
            assert _eval(new, env) == _eval(fn, env)


def test_plan_fuses_or_into_bcax():
    # y = a ^ (c & (x ^ (a | b))): ORR, EOR, AND, EOR -> ORR, EOR3 (x ^ (a | b) held inverted), BCAX
    ops = [Op("input", 8, (), (n,)) for n in ("a", "b", "c", "x")]
    ops += [Op("or", 8, (0, 1)), Op("xor", 8, (3, 4)), Op("and", 8, (2, 5)), Op("xor", 8, (0, 6))]
    fn = _fn(ops, [7])
    p, best, base = polarity.plan(fn)
    assert best < base
    new = polarity.rewrite(fn, p)
    ops = new.ops
    bcax = [  # xor(x, and(m, not a)): sha3.py's BCAX pattern, the and read once
        i
        for i, op in enumerate(ops)
        if op.code == "xor"
        and any(ops[t].code == "and" and any(ops[u].code == "not" for u in ops[t].args) for t in op.args)
    ]
    assert bcax  # the AND reads the XOR held inverted: one BCAX for AND + XOR
    for a in range(0, 256, 17):
        env = {"a": a, "b": 0x3C, "c": 0xF0 ^ a, "x": 0x99}
        assert _eval(new, env) == _eval(fn, env)
