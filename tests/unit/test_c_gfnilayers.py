"""The GFNI lowering of bit-linear layers in sliced C kernels (generator/c/gfnilayers.py): the qword encoding
follows GF2P8AFFINEQB's definition; every chosen output, evaluated as its terms, equals the IR evaluated on
random inputs (an evaluator independent of cipherspec/bitlinear.py); tests/conformance/gfnilayer.cs's byte
variant gets the technique where it costs fewer ops and its u16 near miss never does; the kernel source, the
variant table and the build notes say so."""

from __future__ import annotations

import random

import pytest
from paths import ROOT

from cipherspec.registry import Registry
from generator.c import gfnilayers, techniques, variants
from generator.c.portable import kernel_source
from generator.c.prepare import prepare
from generator.c.schedules import parse_schedule

SPEC = ROOT / "tests" / "conformance" / "gfnilayer.cs"
PRESENT = ROOT / "examples" / "ciphers" / "present.cs"


@pytest.fixture(scope="module")
def reg():
    return Registry([SPEC, PRESENT])


def _prepared(reg, name: str, sched: str = "sliced_v16"):
    m = reg.module(name)
    s = parse_schedule(m, sched)
    return m, s, prepare(m, s)


def _keys(m) -> tuple[str, ...]:
    return tuple(a.name for a in m.key_arrays)


def _evaluate(fn, tables, rng: random.Random) -> list[int]:
    """Every op's value on random inputs."""
    vals: list[int] = []
    for op in fn.ops:
        w, c, m = op.width, op.code, (1 << op.width) - 1
        a = [vals[x] for x in op.args]
        if c == "input":
            v = rng.getrandbits(w)
        elif c == "const":
            v = op.imm[0]
        elif c in ("xor", "and", "or", "add", "sub"):
            v = {"xor": a[0] ^ a[1], "and": a[0] & a[1], "or": a[0] | a[1], "add": a[0] + a[1], "sub": a[0] - a[1]}[c]
        elif c == "not":
            v = ~a[0]
        elif c == "shl":
            v = a[0] << op.imm[0]
        elif c == "shr":
            v = a[0] >> op.imm[0]
        elif c == "rotl":
            k = op.imm[0] % w
            v = (a[0] << k) | (a[0] >> (w - k)) if k else a[0]
        elif c == "lut":
            v = tables[op.imm[0]].values[a[0]]
        elif c in ("zext", "trunc"):
            v = a[0]
        else:
            raise AssertionError(f"op {c} not in the evaluator")
        vals.append(v & m)
    return vals


def test_matrix_encoding_is_the_instructions():
    rng = random.Random(1)
    assert all(gfnilayers.affine_byte(gfnilayers.IDENTITY, x, 0) == x for x in range(256))
    assert gfnilayers.affine_byte(gfnilayers.IDENTITY, 0x00, 0x63) == 0x63
    for _ in range(50):
        rows = [rng.getrandbits(8) for _ in range(8)]
        a = gfnilayers.matrix(rows)
        for x in rng.sample(range(256), 16):
            want = sum((bin(rows[i] & x).count("1") & 1) << i for i in range(8))
            assert gfnilayers.affine_byte(a, x, 0) == want


@pytest.mark.parametrize("name", ["gfnilayer_u8", "present80"])
def test_chosen_outputs_equal_the_ir(reg, name):
    m, _, prep = _prepared(reg, name)
    rng = random.Random(3)
    checked = 0
    for kind in ("encrypt", "decrypt"):
        fn = prep.functions[kind]
        found = gfnilayers.chosen(fn, prep.tables, _keys(m))
        for _ in range(4):
            vals = _evaluate(fn, prep.tables, rng)
            for vid, out in found.items():
                got = out.const
                for t in out.terms:
                    x = 0
                    for s in t.srcs:
                        x ^= vals[s]
                    got ^= gfnilayers.affine_byte(t.matrix, x, 0)
                assert got == vals[vid], f"{name} {kind} op {vid}"
                checked += 1
    assert checked > 0


def test_byte_layer_gets_gfni_and_u16_near_miss_does_not(reg):
    m8, _, p8 = _prepared(reg, "gfnilayer_u8")
    plans8 = [p for kind in ("encrypt", "decrypt") for p in gfnilayers.plans(p8.functions[kind], p8.tables, _keys(m8))]
    chosen = [p for p in plans8 if p.chosen]
    assert chosen and all(p.gfni_ops < p.shift_ops for p in chosen)
    # where GFNI costs more (the layer read as nibble indices) the shifts stay
    assert any(not p.chosen and not p.why_not and p.gfni_ops >= p.shift_ops for p in plans8)
    m16, _, p16 = _prepared(reg, "gfnilayer_u16")
    plans16 = [
        p for kind in ("encrypt", "decrypt") for p in gfnilayers.plans(p16.functions[kind], p16.tables, _keys(m16))
    ]
    assert plans16 and not any(p.chosen for p in plans16)
    assert all("u16" in p.why_not for p in plans16)


def test_kernel_variants_and_notes(reg):
    m8, s8, _ = _prepared(reg, "gfnilayer_u8")
    src = kernel_source(m8, s8, "")
    assert "#define CS_V8_GFA(x, m, c) ((cs_v8)_mm_gf2p8affine_epi64_epi8(" in src
    assert "CS_GFNI_OR(" in src and "CS_V8_GFA(v" in src
    assert [v.name for v in variants.variants(m8, s8)] == list(variants.GFNI_SLICED_LEVELS)
    notes = techniques.layer_notes(m8, s8)
    assert any("GFNI where the CPU has it" in n and "GF2P8AFFINEQB" in n for n in notes), notes
    m16, s16, _ = _prepared(reg, "gfnilayer_u16")
    assert "CS_GFNI_OR" not in kernel_source(m16, s16, "")
    assert [v.name for v in variants.variants(m16, s16)] == list(variants.PORTABLE_LEVELS)


def test_present_notes_say_which_layer_got_gfni(reg):
    m = reg.module("present80")
    notes = techniques.layer_notes(m, parse_schedule(m, "sliced_v32"))
    enc = next(n for n in notes if "present80 encrypt" in n)
    dec = next(n for n in notes if "present80 decrypt" in n)
    assert "GFNI where the CPU has it: 144 vector ops" in enc and "instead of 208" in enc
    # decrypt: the key is XORed before the permutation, so a lookup and a key byte share a block: one multiply
    assert "GFNI where the CPU has it: 208 vector ops" in dec and "instead of 216" in dec


def test_a_bit_permutation_across_the_block_gets_gfni():
    """bitlinear.cs's permutation of all 64 bits (every bit moves between bytes) in the sliced kernel: one
    8x8 block per (output byte, source byte) pair, cheaper than its masks and shifts."""
    reg = Registry([ROOT / "tests" / "conformance" / "bitlinear.cs"])
    m, s, prep = _prepared(reg, "bitlinear_perm")
    plans = gfnilayers.plans(prep.functions["encrypt"], prep.tables, _keys(m))
    assert any(p.chosen and p.layer.kind == "bit permutation" for p in plans)
    assert [v.name for v in variants.variants(m, s)] == list(variants.GFNI_SLICED_LEVELS)
