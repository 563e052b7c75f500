"""split_wide (cipherspec/passes/split_wide.py): values wider than the block words as limbs of the word width.

Each rule is checked against the interpreter on the original function: the docstring's example over every
input, carries and borrows of limb sums over every pair of 16-bit operands, shifts and rotations by every
amount, a table with entries wider than the limbs, and the functions it must leave alone."""

from __future__ import annotations

import numpy as np
import pytest

from cipherspec.interp import run
from cipherspec.ir import Function, Module, Op, Table, WordLayout
from cipherspec.passes import constfold, cse, dce, split_wide

TABLES: dict[str, list[str]] = {}


def _clean(fn: Function, tables: dict[str, Table]) -> Function:
    for p in (constfold, cse, dce):
        fn = p.run(fn, tables)
    return fn


def _same(a: Function, b: Function, inputs: dict, tables: dict[str, Table] | None = None) -> None:
    want, got = run(a, inputs, tables or {}), run(b, inputs, tables or {})
    for name, _ in a.outputs:
        w, g = np.broadcast_arrays(want[name], got[name])  # a constant output is one value
        assert np.array_equal(w, g), name


def _two_u8_as_u16(code: str, extra: tuple = ()) -> list[Op]:
    """x = x0 | x1 << 8 as a u16 (ops 0..5), then ``code`` applied to it (op 6)."""
    return [
        Op("input", 8, (), ("X[0]",)),
        Op("input", 8, (), ("X[1]",)),
        Op("zext", 16, (0,)),
        Op("zext", 16, (1,)),
        Op("shl", 16, (3,), (8,)),
        Op("or", 16, (2, 4)),
        Op(code, 16, (5,), extra),
    ]


def _every_pair() -> dict:
    g = np.arange(1 << 16, dtype=np.uint32)
    return {"X[0]": (g & 0xFF).astype(np.uint8), "X[1]": (g >> 8).astype(np.uint8)}


def _outputs(ops: list[Op], v: int) -> Function:
    """Both bytes of u16 value v as outputs."""
    ops = ops + [Op("trunc", 8, (v,)), Op("shr", 16, (v,), (8,))]
    ops.append(Op("trunc", 8, (len(ops) - 1,)))
    return Function("encrypt", ops, [("X[0]", len(ops) - 3), ("X[1]", len(ops) - 1)])


def test_docstring_example_is_limb_renaming():
    """rotl.u16 of two packed bytes then trunc.u8: one shl, one shr, one or on bytes (every input)."""
    ops = _two_u8_as_u16("rotl", (3,)) + [Op("trunc", 8, (6,))]
    fn = Function("encrypt", ops, [("X[0]", 7)])
    out = _clean(split_wide.split(fn, TABLES, 8), {})
    assert [(op.code, op.width, op.imm) for op in out.ops if op.code != "input"] == [
        ("shl", 8, (3,)),
        ("shr", 8, (5,)),
        ("or", 8, ()),
    ]
    _same(fn, out, _every_pair())


@pytest.mark.parametrize("code", ["add", "sub"])
def test_carries_and_borrows_across_limbs(code):
    """x + y and x - y on u16 values made of u8 limbs, for every x (and y = x rotated: every carry pattern)."""
    ops = _two_u8_as_u16("rotl", (5,))  # y = rotl(x, 5), op 6
    ops.append(Op(code, 16, (5, 6)))
    fn = _outputs(ops, 7)
    out = split_wide.split(fn, TABLES, 8)
    assert max(op.width for op in out.ops) == 8
    _same(fn, out, _every_pair())


@pytest.mark.parametrize("code", ["shl", "shr", "rotl"])
def test_shifts_and_rotations_by_every_amount(code):
    for k in range(1, 16):
        fn = _outputs(_two_u8_as_u16(code, (k,)), 6)
        out = split_wide.split(fn, TABLES, 8)
        assert max(op.width for op in out.ops) == 8
        _same(fn, out, _every_pair())


def test_wide_table_entries_become_limb_tables():
    """lut.u32 of a u8 -> u32 table in a u8 cipher: four u8 -> u8 lookups in T_l0..T_l3 (a table named
    T_l0 already exists: the limb tables take another underscore)."""
    rng = np.random.default_rng(3)
    t = Table("T", 8, 32, tuple(int(v) for v in rng.integers(0, 2**32, 256, dtype=np.uint64)))
    clash = Table("T_l0", 8, 8, tuple(range(256)))
    ops = [Op("input", 8, (), ("X[0]",)), Op("lut", 32, (0,), ("T",)), Op("shr", 32, (1,), (20,))]
    ops.append(Op("trunc", 8, (2,)))
    fn = Function("encrypt", ops, [("X[0]", 3)])
    u8 = WordLayout(8, 1, "little")
    module = Module("t", "t", {}, "", u8, u8, [], {"T": t, "T_l0": clash}, {"encrypt": fn, "decrypt": fn})
    out = split_wide.run_module(module)
    assert {"T__l0", "T__l1", "T__l2", "T__l3"} <= set(out.tables)
    luts = [op.imm[0] for op in out.functions["encrypt"].ops if op.code == "lut"]
    assert luts == ["T__l0", "T__l1", "T__l2", "T__l3"]
    x = {"X[0]": np.arange(256, dtype=np.uint8)}
    want = run(fn, x, module.tables)["X[0]"]
    assert np.array_equal(run(out.functions["encrypt"], x, out.tables)["X[0]"], want)


def test_functions_it_leaves_alone():
    """No wider value: the same object; a wider input or output: unchanged (the backend refuses it)."""
    narrow = Function("encrypt", [Op("input", 8, (), ("X[0]",)), Op("not", 8, (0,))], [("X[0]", 1)])
    assert split_wide.split(narrow, TABLES, 8) is narrow
    wide_in = Function("encrypt", [Op("input", 32, (), ("rk[0]",)), Op("trunc", 8, (0,))], [("X[0]", 1)])
    assert split_wide.split(wide_in, TABLES, 8) is wide_in
    wide_out = Function("encrypt", [Op("input", 8, (), ("X[0]",)), Op("zext", 32, (0,))], [("X[0]", 1)])
    assert split_wide.split(wide_out, TABLES, 8) is wide_out
