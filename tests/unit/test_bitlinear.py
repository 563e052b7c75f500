"""The bit-linear layer analysis (cipherspec/bitlinear.py): its forms agree with the IR evaluated on random
inputs, it finds the bit permutation of tests/conformance/bitlinear.cs (and of PRESENT) and calls the
near miss (two bits XORed into one position) linear, not a permutation; the C bitsliced core spends no
statement on a permutation; the build notes name the technique; the demand order of split.py keeps
every read of a slot before its overwrite."""

from __future__ import annotations

import random
import re

import pytest
from paths import ROOT

from cipherspec import bitlinear
from cipherspec.gf import gf_mul
from cipherspec.registry import Registry
from generator.c import techniques
from generator.c.schedules import resolve
from generator.c.split import Stmt, split

SPEC = ROOT / "tests" / "conformance" / "bitlinear.cs"
PRESENT = ROOT / "examples" / "ciphers" / "present.cs"


@pytest.fixture(scope="module")
def reg():
    return Registry([SPEC, PRESENT])


def _evaluate(fn, tables, inputs: dict[str, int]) -> list[int]:
    """Every op's value (a tiny IR evaluator, independent of cipherspec/interp.py)."""
    vals: list[int] = []
    for op in fn.ops:
        m = (1 << op.width) - 1
        a = [vals[x] for x in op.args]
        c = op.code
        if c == "input":
            v = inputs[op.imm[0]] & m
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
            k = op.imm[0]
            v = (a[0] << k) | (a[0] >> (op.width - k))
        elif c == "lut":
            v = tables[op.imm[0]].values[a[0]]
        elif c == "gmul":
            v = gf_mul(a[0], op.imm[0], op.imm[1])
        else:  # zext, trunc
            v = a[0]
        vals.append(v & m)
    return vals


@pytest.mark.parametrize("name", ["bitlinear_perm", "bitlinear_near", "present80", "aes128"])
def test_forms_agree_with_the_ir(reg, name):
    """Every affine op's bit forms, evaluated on the values its sources take, give the op's value."""
    module = reg.module(name)
    keys = tuple(a.name for a in module.key_arrays)
    rng = random.Random(name)
    for fname in ("encrypt", "decrypt"):
        fn = module.functions[fname]
        forms, base, _ = bitlinear._forms(fn, module.tables, lambda n: n.split("[")[0] in keys)
        for _ in range(2):
            vals = _evaluate(fn, module.tables, {n: rng.getrandbits(w) for n, w, _ in fn.inputs()})
            env = 1  # bit 0: the constant 1
            for i, b in base.items():
                env |= vals[i] << b
            for i, f in enumerate(forms):
                if f is not None:
                    got = sum((bin(form & env).count("1") & 1) << b for b, form in enumerate(f))
                    assert got == vals[i], (name, fname, i, fn.ops[i])


def test_permutation_is_found_and_the_near_miss_is_not_one(reg):
    perm = bitlinear.module_layers(reg.module("bitlinear_perm"))["encrypt"]
    near = bitlinear.module_layers(reg.module("bitlinear_near"))["encrypt"]
    assert [lay.kind for lay in perm] == ["bit permutation"] * 4
    assert all(lay.out_bits == lay.data_bits == 64 and lay.key_bits == 64 for lay in perm)
    # the round's layer in the near miss: one output bit is two data bits XORed
    mid = [lay for lay in near if len(lay.rounds) == 2]
    assert mid and all(lay.kind == "linear" and lay.ones == 65 for lay in mid)
    assert sum(sorted(bin(r).count("1") for r in mid[0].rows)[-2:]) == 3  # one row of 2, the rest 1
    assert all(lay.xor_bits == 65 for lay in mid)  # its one extra bit-XOR (a plane XOR when bitsliced)


def test_permutation_rows_are_the_spec_permutation(reg):
    """The bitlinear_perm round layer maps each S-box output bit to exactly one next-round S-box input
    bit and the map is a bijection on 64 bits (the spec's P, through the nibble split)."""
    lay = next(x for x in bitlinear.module_layers(reg.module("bitlinear_perm"))["encrypt"] if len(x.rounds) == 2)
    assert sorted(lay.rows) == sorted(1 << (r.bit_length() - 1) for r in lay.rows)
    assert len(set(lay.rows)) == 64


def test_present_player_is_a_permutation(reg):
    lays = bitlinear.module_layers(reg.module("present80"))
    for fname in ("encrypt", "decrypt"):
        assert len(lays[fname]) == 32 and {lay.kind for lay in lays[fname]} == {"bit permutation"}


def test_notes_name_the_technique(reg):
    module = reg.module("present80")
    notes = techniques.notes(module, resolve(module, None))
    assert any("bit permutation of 64 bits" in n and "plane renaming, 0 instructions" in n for n in notes)
    assert any(n.startswith("present80 table S (4-bit") and "circuit of" in n for n in notes)
    near = reg.module("bitlinear_near")
    assert any("GF(2)-linear map 64 -> 64 bits" in n for n in techniques.notes(near, resolve(near, None)))


def test_bitsliced_core_spends_nothing_on_the_permutation(reg):
    """No statement of the bitsliced C core comes from the permutation's spec position (bitperm_be, line
    19 col 11): its planes are renamed.  The near miss costs exactly its one extra plane XOR per round."""
    from generator.c import BACKEND

    xors = {}
    for name in ("bitlinear_perm", "bitlinear_near"):
        module = reg.module(name)
        files = BACKEND.generate(module, resolve(module, None))
        core = next(t for p, t in files.items() if p.endswith("_bitsliced_v32.c"))
        stmts = [ln for ln in core.splitlines() if re.search(r"= CS_P_\w+\(", ln) and " encrypt" in ln]
        assert not [ln for ln in stmts if "/* bitlinear.cs:19:11 " in ln], name
        xors[name] = sum("CS_P_XOR(" in ln for ln in stmts)
    assert xors["bitlinear_near"] - xors["bitlinear_perm"] == 3  # rounds = 3 (no piece re-rolled: 3 rounds)


def test_demand_order_reads_v_writes_w_and_defines_before_use():
    """Values handed on between pieces are read from v and written to w (the caller alternates the two
    arrays, so no store waits for a read of its slot); each value handed on is stored right after it is
    defined, and every value is defined before it is used."""
    stmts = [
        Stmt("    const t p0 = f(s[0]); /* r0 */", ("p0",), (), 0),
        Stmt("    const t p1 = f(s[1]); /* r0 */", ("p1",), (), 0),
        Stmt("    const t p2 = g(p1); /* r1 */", ("p2",), ("p1",), 1),
        Stmt("    const t p3 = g(p0); /* r1 */", ("p3",), ("p0",), 1),
        Stmt("    o[0] = h(p2, p3); /* out */", (), ("p2", "p3"), "out"),
    ]
    pieces = split(stmts, 600, "t", order=True)
    assert len(pieces.calls) == 3
    for body in pieces.functions:
        assert not [ln for ln in body if re.match(r"\s*v\[\d+\] =", ln)], body  # nothing written to v
        defined: set[str] = set()
        for k, line in enumerate(body):
            code = line.split("/*")[0]
            lhs, _, rhs = code.partition("=")
            for u in re.findall(r"\bp\d+\b", rhs):
                assert u in defined, (u, body)
            new = re.findall(r"\bp\d+\b", lhs) if "w[" not in lhs else []
            defined.update(new)
            for u in new:  # a value handed on is stored on the next line
                if any(f"= {u};" in ln and "w[" in ln for ln in body):
                    assert f"= {u};" in body[k + 1], body
