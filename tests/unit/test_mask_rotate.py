"""mask_rotate (cipherspec/passes/mask_rotate.py): a rotation masked to one of its halves becomes that
shift -- the docstring's example, a mask that needs both halves left alone, and the interpreter's results
unchanged on the specs that have the pattern (bit permutations); the NEON target runs it where it applies."""

from __future__ import annotations

import numpy as np
import pytest
from paths import ROOT

from cipherspec.interp import run
from cipherspec.ir import Function, Op
from cipherspec.passes import dce, mask_rotate
from cipherspec.registry import Registry
from generator.neon.prepare import neon_passes


def _fn(mask: int) -> Function:
    ops = [Op("input", 8, (), ("X[0]",)), Op("rotl", 8, (0,), (3,)), Op("const", 8, (), (mask,)), Op("and", 8, (1, 2))]
    return Function("encrypt", ops, [("X[0]", 3)])


@pytest.mark.parametrize("mask,code,amount", [(0xF8, "shl", 3), (0x04, "shr", 5), (0x07, "shr", 5), (0x08, "shl", 3)])
def test_one_half(mask, code, amount):
    out = dce.run(mask_rotate.run(_fn(mask), {}), {})
    assert [op.code for op in out.ops] == ["input", code, "const", "and"] or [op.code for op in out.ops] == [
        "input",
        "const",
        code,
        "and",
    ]
    shift = next(op for op in out.ops if op.code == code)
    assert shift.imm == (amount,)
    xs = np.arange(256, dtype=np.uint8)
    want = run(_fn(mask), {"X[0]": xs}, {})["X[0]"]
    assert (run(out, {"X[0]": xs}, {})["X[0]"] == want).all()


def test_both_halves_left_alone():
    # rotl by 3: bit 3 comes from the left shift, bit 2 from the right one
    assert mask_rotate.run(_fn(0x0C), {}).ops == _fn(0x0C).ops
    assert not mask_rotate.applies(_fn(0x0C)) and mask_rotate.applies(_fn(0x18))


@pytest.fixture(scope="module")
def reg():
    return Registry([ROOT / "examples" / "ciphers" / "present.cs", *(ROOT / "tests" / "conformance").glob("bit*.cs")])


@pytest.mark.parametrize("name", ["present80", "bitperm_u16", "bitlinear_near"])
def test_results_unchanged(reg, name):
    module = reg.module(name)
    assert "mask_rotate" in [p.name for p in neon_passes(module)]
    rng = np.random.default_rng(5)
    for fname in ("encrypt", "decrypt"):
        fn = module.functions[fname]
        assert mask_rotate.applies(fn)
        inputs = {n: rng.integers(0, 2**w, 64, dtype=np.uint64).astype(f"u{w // 8}") for n, w, _ in fn.inputs()}
        want, got = run(fn, inputs, module.tables), run(mask_rotate.run(fn, module.tables), inputs, module.tables)
        assert all((want[k] == got[k]).all() for k in want)


def test_known_zero_bits():
    from cipherspec.bitlinear import known_zero

    ops = [
        Op("input", 8, (), ("X[0]",)),
        Op("input", 8, (), ("X[1]",)),
        Op("const", 8, (), (0xF0,)),
        Op("and", 8, (0, 2)),
        Op("shr", 8, (1,), (4,)),
        Op("or", 8, (3, 4)),
        Op("add", 8, (3, 4)),
    ]
    fn = Function("encrypt", ops, [("X[0]", 5)])
    assert known_zero(fn, {}) == [0, 0, 0x0F, 0x0F, 0xF0, 0, 0]


def test_neon_inserts_masked_terms_with_bit(reg):
    """The pLayer of the bitlinear cell on NEON: its masked terms go in with BIT (and no SRI is left of the
    masked rotations); the cell's results are checked by the conformance matrix."""
    from generator.neon.emit import emit
    from generator.neon.schedules import default

    module = reg.module("bitlinear_perm")
    e = emit(module, default(module))
    asm = e.asm
    body = [ln.split("//")[0].split() for ln in asm.splitlines() if "bitlinear.cs:19:11" in ln]
    mnemonics = {parts[0] for parts in body if parts}
    assert "bit" in mnemonics and "sri" not in mnemonics, sorted(mnemonics)
    from generator.neon import techniques

    notes = techniques.notes(module, [e])
    assert any("bit permutation of 64 bits" in n and " 0 SRI" in n and "BIT" in n for n in notes), notes
