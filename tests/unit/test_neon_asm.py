"""The emitted NEON assembly, Halide simd_op_check style: the instructions each layout is meant to use are
there, every kernel assembles with both clang and gcc, each instruction says where it came from, the
output is deterministic, and register allocation keeps its invariants."""

from __future__ import annotations

import functools
import operator
import random
import re
import subprocess
from collections import Counter

import pytest
from shipped import shipped_registry
from tools import require

from cipherspec.errors import UsageError
from cipherspec.registry import Registry
from generator.mir import regalloc
from generator.neon import kernel as K
from generator.neon.emit import emit
from generator.neon.pool import Pool
from generator.neon.schedules import default, parse
from generator.neon.sliced import check_sliced

REG = shipped_registry()

# cipher -> instructions that must appear in its default kernels (simd_op_check's "expected instruction")
EXPECTED = {
    "lea128": [
        r"ld4 \{v\d+\.4s-v\d+\.4s\}",
        r"st4 \{v\d+\.4s",
        r"add v\d+\.4s",
        r"shl v\d+\.4s, v\d+\.4s, #9",
        r"sri v\d+\.4s, v\d+\.4s, #23",
        r"eor v\d+\.16b",
    ],
    "cham128_128": [r"ld4 \{v\d+\.4s", r"rev32 v\d+\.16b", r"rev32 v\d+\.8h|tbl v\d+\.16b, \{v\d+\.16b\}"],
    "cham64_128": [r"ld4 \{v\d+\.8h", r"rev16 v\d+\.16b", r"add v\d+\.8h"],
    "aria128": [
        r"ld4 \{v\d+\.16b-v\d+\.16b\}",
        r"uzp1 v\d+\.16b",
        r"uzp2 v\d+\.16b",
        r"ld1 \{v\d+\.16b-v\d+\.16b\}, \[x\d+\]",
        r"tbl v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}",
        r"tbx v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}",
        r"zip1 v\d+\.16b",
        r"st4 \{v\d+\.16b",
    ],
    "aes128": [r"tbl v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}", r"sshr v\d+\.16b, v\d+\.16b, #7"],
    "pipo64_128": [r"ld4 \{v\d+\.16b", r"uzp1", r"sri v\d+\.16b", r"bic v\d+\.16b|orn v\d+\.16b"],
    "hight": [r"add v\d+\.16b", r"sri v\d+\.16b", r"uzp1"],
}
FORBIDDEN = {"lea128": [r"\bstr q\d+, \[sp", r"uzp1"], "aria128": [r"\bstr q\d+, \[sp"]}  # no spills


@pytest.fixture(scope="module")
def emitted():
    return {n: emit(REG.module(n), default(REG.module(n))) for n in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_expected_instructions(emitted, name):
    asm = emitted[name].asm
    for pattern in EXPECTED[name]:
        assert re.search(pattern, asm), f"{name}: no {pattern!r} in the kernels"
    for pattern in FORBIDDEN.get(name, []):
        ecb = asm.split("_ecb_decrypt:")[0]
        assert not re.search(pattern, ecb), f"{name}: unexpected {pattern!r}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_instruction_has_an_origin_and_a_contract(emitted, name):
    asm = emitted[name].asm
    body = False
    for line in asm.splitlines():
        if line.startswith("1:"):
            body = True
        elif line.strip().startswith("subs x3"):
            body = False
        elif body and line.strip():
            assert "// " in line, f"instruction without origin: {line!r}"
    assert asm.count("// Register contract:") == len(emitted[name].kernels)


def test_deterministic():
    m = REG.module("aria128")
    assert emit(m, default(m)).asm == emit(REG.module("aria128"), default(m)).asm


def assert_assembles(asm: str, tmp_path) -> None:
    """Both assemblers the README promises (clang and GNU as through gcc) accept the text."""
    require("clang", "aarch64-linux-gnu-gcc")
    src = tmp_path / "k.S"
    src.write_text(asm)
    for cmd in (["clang", "--target=aarch64-linux-gnu", "-c"], ["aarch64-linux-gnu-gcc", "-c"]):
        r = subprocess.run(cmd + [str(src), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
        assert r.returncode == 0, f"{cmd[0]}: {r.stderr[:2000]}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_assembles_with_clang_and_gcc(emitted, name, tmp_path):
    assert_assembles(emitted[name].asm, tmp_path)


def _check_allocation(code):
    """Simulates register contents: every read finds its value, lists are consecutive, ties hold."""
    content = {}
    for ins, regs in code:
        if ins.kind == "move":
            content[regs["dst"]] = ins.operands[1].reg
            continue
        for v in list(ins.uses) + list(ins.extra.get("group_uses", ())):
            assert content.get(regs[v]) is v, f"{ins.mnemonic}: {v} is not in v{regs[v]}"
        g = ins.extra.get("group_uses") or ins.extra.get("group_defs")
        if g:
            assert [regs[v] for v in g] == list(range(regs[g[0]], regs[g[0]] + len(g)))
        if ins.tied is not None:
            assert content.get(regs[ins.defs[0]]) is ins.tied
        for d in ins.defs:
            content[regs[d]] = d
        assert all(0 <= r < 32 for r in regs.values())


@pytest.mark.parametrize(
    "name,pregs",
    [
        ("aria128", K.VREG_ORDER),
        ("lea128", K.VREG_ORDER[:6]),
        ("aes128", K.VREG_ORDER),
        ("pipo64_128", K.VREG_ORDER[:10]),
    ],
)
def test_register_allocation_invariants(name, pregs, monkeypatch):
    """Also under a reduced register file, which forces spills and reloads."""
    seen = {}
    real = regalloc.allocate

    def spy(code, _pregs, hooks):
        out = real(code, pregs, hooks)
        seen["alloc"] = out
        return out

    monkeypatch.setattr(K, "allocate", spy)
    m = REG.module(name)
    K.build_kernel(
        m, check_sliced(m.block, "test"), 1, "ecb_encrypt", Pool({t: bytes(m.tables[t].values) for t in m.tables}), "k"
    )
    _check_allocation(seen["alloc"].code)
    if len(pregs) < 16:
        assert seen["alloc"].spills > 0


# packed layout (simd_op_check style): LD1/ST1 of whole blocks, TBL gathers over several registers
# (Type 1 <-> Type 2), S-box TBL/TBX, and the permutations the compiler derived for the linear layers
PACKED_EXPECTED = {
    "aria128": [
        r"ld1 \{v\d+\.16b-v\d+\.16b\}, \[x1\], #64",
        r"st1 \{v\d+\.16b-v\d+\.16b\}, \[x2\], #64",
        r"tbl v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}, v\d+\.16b .*\(gather\)",
        r"tbl v\d+\.16b, \{v\d+\.16b\}, v\d+\.16b .*\(gather\)",
        r"tbx v\d+\.16b",
        r"eor v\d+\.16b",
    ],
    "aes128": [
        r"ld1 \{v\d+\.16b-v\d+\.16b\}, \[x1\], #64",
        r"rev32 v\d+\.(16b|8h)",
        r"rev16 v\d+\.16b",
        r"tbl v\d+\.16b, \{v\d+\.16b\}, v\d+\.16b .*\(gather\)",
        r"sshr v\d+\.16b, v\d+\.16b, #7",
    ],
    "hight": [r"ld1 \{v\d+\.16b-v\d+\.16b\}", r"add v\d+\.16b", r"sri v\d+\.16b", r"tbl v\d+\.16b"],
}


@pytest.mark.parametrize("name", sorted(PACKED_EXPECTED))
def test_packed_expected_instructions(name):
    m = REG.module(name)
    e = emit(m, parse(f"{name}_neon_packed_il1", name, None))
    for pattern in PACKED_EXPECTED[name]:
        assert re.search(pattern, e.asm), f"{name} packed: no {pattern!r}"
    assert not re.search(r"\bld4\b|\buzp1\b", e.asm)
    assert e.group_blocks == 64 // m.block.nbytes
    assert "packed, each block in" in e.asm


def test_packed_refuses_word_states():
    m = REG.module("lea128")
    with pytest.raises(UsageError, match=r"not supported by neon: packed layout for block u32\[4\]"):
        emit(m, parse("lea128_neon_packed_il1", "lea128", None))


def test_packed_schedule_names():
    s = parse("aria128_neon_packed_il2", "aria128", None)
    assert (s.layout, s.get("il"), s.name) == ("packed", 2, "aria128_neon_packed_il2")


@pytest.mark.parametrize("name", ["aria128", "aes128"])
def test_crypto_selects_aese_and_aesd(name, tmp_path):
    m = REG.module(name)
    e = emit(m, parse(f"{name}_neon_b16_crypto_il1", name, None))
    enc, dec = e.asm.split("_ecb_decrypt:")[0], e.asm.split("_ecb_decrypt:")[1].split("_ctr:")[0]
    assert re.search(r"aese v\d+\.16b, v\d+\.16b", enc) and "// realign lanes" in e.asm
    assert re.search(r"aesd v\d+\.16b, v\d+\.16b", dec)
    assert not re.search(r"\btbx\b", e.asm)  # no 256-byte table left
    if name == "aria128":  # SB2 = L∘S, SB4 = S^-1∘L: the affine map as two nibble TBLs
        assert re.search(r"tbl v\d+\.16b, \{v\d+\.16b\}, v\d+\.16b", enc) and "ushr" in enc
    assert ".arch armv8-a+crypto" in e.asm
    assert_assembles(e.asm, tmp_path)


def _differential_uniformity(table) -> int:
    """max over a != 0 and b of #{x : T(x) ^ T(x ^ a) = b}; affine equivalence preserves it (AES S: 4)."""
    return max(max(Counter(table[x] ^ table[x ^ a] for x in range(256)).values()) for a in range(1, 256))


def _random_affine(rng: random.Random) -> list[int]:
    """A random affine bijection of GF(2)^8 as a table: x -> c ^ (XOR of column i for each bit i of x)."""
    while True:
        cols, c = [rng.randrange(256) for _ in range(8)], rng.randrange(256)
        table = [c ^ functools.reduce(operator.xor, (cols[i] for i in range(8) if x >> i & 1), 0) for x in range(256)]
        if len(set(table)) == 256:
            return table


def test_affine_equivalence_detection():
    from generator.common.affine import aes_sbox, match

    s, si = aes_sbox()
    assert s[0] == 0x63 and s[0x53] == 0xED and si[0x63] == 0
    aria = REG.module("aria128").tables
    got = {t: (a.box, a.after, a.identity) for t in ("SB1", "SB2", "SB3", "SB4") for a in [match(aria[t].values)]}
    assert got == {
        "SB1": ("S", True, True),
        "SB2": ("S", True, False),
        "SB3": ("S-1", True, True),
        "SB4": ("S-1", False, False),
    }


@pytest.mark.parametrize("box,after", [("S", True), ("S", False), ("S-1", True), ("S-1", False)])
def test_affine_match_recovers_a_random_map(box, after):
    """T built as L∘S, S∘L, L∘S⁻¹ or S⁻¹∘L with a random affine L: match finds the form and L itself."""
    from generator.common.affine import aes_sbox, match

    s, si = aes_sbox()
    base = s if box == "S" else si
    rng = random.Random(f"{box}{after}")
    for _ in range(3):
        L = _random_affine(rng)
        table = [L[base[x]] for x in range(256)] if after else [base[L[x]] for x in range(256)]
        a = match(table)
        assert a is not None and (a.box, a.after) == (box, after)
        assert [a.lo[x & 15] ^ a.hi[x >> 4] for x in range(256)] == L


def test_affine_match_refuses_inequivalent_tables():
    """Tables whose differential uniformity is not the AES S-box's 4 cannot be affine-equivalent to it:
    PIPO's published S-box and its inverse (16), the AES S-box with two outputs swapped (6), the identity."""
    import independent

    from generator.common.affine import aes_sbox, match, two_sided

    s, _ = aes_sbox()
    near = list(s)
    near[0], near[1] = near[1], near[0]
    for name, table in (
        ("PIPO S", independent.PIPO_SBOX),
        ("PIPO S-1", independent.PIPO_INV),
        ("AES S, two outputs swapped", near),
        ("identity", list(range(256))),
    ):
        assert _differential_uniformity(table) != _differential_uniformity(s) == 4, name
        assert match(table) is None, name
        assert two_sided(table) is None, name


WIDE_ROUND_KEY = """family widerk(rounds) {
  block u8[4];
  key   u32[1] little;
  key_schedule(K) -> rk: u32[rounds] { for i in 0..rounds { rk[i] = K[0] <<< i; } }
  encrypt(X, rk) { for i in 0..rounds { X = [X[1], X[2], X[3], X[0] ^ u8(rk[i])]; } }
  decrypt(X, rk) {
    for r in 0..rounds { let i = rounds - 1 - r; X = [X[3] ^ u8(rk[i]), X[0], X[1], X[2]]; }
  }
}
cipher widerk4 = widerk(rounds = 4);
"""


def test_wide_round_key_is_refused_with_location(tmp_path):
    """Values wider than the block words are limbs (split_wide); a round-key word wider than the block words
    is not (the kernels broadcast each round-key word into one block word's lanes): the error names it,
    the widths, the spec line and what to do instead."""
    spec = tmp_path / "widerk.cs"
    spec.write_text(WIDE_ROUND_KEY)
    m = Registry([spec]).module("widerk4")
    with pytest.raises(
        UsageError,
        match=r"not supported by neon: a u32 round key \(rk\[0\]\) at .*widerk\.cs:5 \(a cipher whose block "
        r"words are u8: .*give the key schedule u8 outputs \(unpack_le/unpack_be\), or use --target c\)$",
    ):
        emit(m, default(m))


def test_schedule_names():
    m = REG.module("aria128")
    assert default(m).name == "aria128_neon_b16_il1"
    assert parse("aria128_neon_b16_il2", "aria128", None).get("il") == 2
    with pytest.raises(UsageError, match="b16"):
        emit(m, parse("aria128_neon_b4_il1", "aria128", None))
    with pytest.raises(UsageError, match="not a neon schedule"):
        parse("lea128_neon_b4_il1", "aria128", None)


@pytest.mark.parametrize(
    "name,schedule", [("pipo64_128", "pipo64_128_neon_b16_il2_sha3"), ("aria128", "aria128_neon_b16_crypto_il1_sha3")]
)
def test_sha3_selects_eor3_and_fewer_instructions(name, schedule, tmp_path):
    """EOR3 (xor chains, not of xor) and BCAX (xor of and-not) replace two-op sequences, never adding any."""
    m = REG.module(name)
    e = emit(m, parse(schedule, name, None))
    plain = emit(m, parse(schedule.replace("_sha3", ""), name, None))
    assert re.search(r"eor3 v\d+\.16b, v\d+\.16b, v\d+\.16b, v\d+\.16b", e.asm) and ".arch armv8.2-a+sha3" in e.asm
    for k, p in zip(e.kernels, plain.kernels):
        assert k.stats["instructions"] < 0.92 * p.stats["instructions"]
    assert_assembles(e.asm, tmp_path)


def test_xar_rotates_an_xor_of_64_bit_words(tmp_path):
    """rotl.u64(xor(a, b), r) -> XAR .2d (SPECK-128's y' <<< 3 of the next round: the eor stays for y',
    XAR replaces shl + sri); the byte rotation of the multi-use x' stays one TBL."""
    from paths import ROOT

    reg = Registry(extra=[ROOT / "examples" / "ciphers" / "speck.cs"])
    m = reg.module("speck128_128")
    e = emit(m, parse("speck128_128_neon_b2_il4_sha3", "speck128_128", None))
    plain = emit(m, parse("speck128_128_neon_b2_il4", "speck128_128", None))
    assert re.search(r"xar v\d+\.2d, v\d+\.2d, v\d+\.2d, #61", e.asm) and ".arch armv8.2-a+sha3" in e.asm
    for k, p in zip(e.kernels, plain.kernels):
        assert k.stats["instructions"] < 0.9 * p.stats["instructions"]
    assert_assembles(e.asm, tmp_path)


def test_bcax_from_and_not():
    """x ^ (a & ~c) -> one BCAX (a spec with the pattern: HIGHT has none, so a tiny IR function)."""
    from cipherspec.ir import Function, Op
    from generator.mir.mir import VRegFactory
    from generator.neon.isel import Selector
    from generator.neon.pool import Pool

    ops = [
        Op("input", 8, (), ("x",)),
        Op("input", 8, (), ("a",)),
        Op("input", 8, (), ("c",)),
        Op("not", 8, (2,)),
        Op("and", 8, (1, 3)),
        Op("xor", 8, (0, 4)),
    ]
    fn = Function("f", ops, [("y", 5)])
    vf = VRegFactory()
    sel = Selector(fn, {}, 8, vf, Pool({}), {}, {}, [0] * len(ops), sha3=True)
    sel.run({n: vf.new(n) for n in "xac"})
    assert [i.mnemonic for i in sel.code][-1] == "bcax"


def test_ldp_pairs_read_only_loads_only_when_the_register_is_free():
    from generator.neon.ldp import pair

    lines = ["ldr q3, [x0, #32]   // a", "eor v1.16b, v1.16b, v3.16b", "ldr q5, [x0, #48]   // b"]
    assert [x.split("//")[0].strip() for x in pair(lines)] == ["ldp q3, q5, [x0, #32]", "eor v1.16b, v1.16b, v3.16b"]
    busy = ["ldr q3, [x0, #48]", "eor v5.16b, v1.16b, v3.16b", "ldr q5, [x0, #32]"]  # q5 written in between
    assert pair(busy) == busy
    ranged = ["ldr q3, [x0, #32]", "st4 {v4.16b-v7.16b}, [x2], #64", "ldr q5, [x0, #48]"]  # v5 inside a range
    assert pair(ranged) == ranged
    assert pair(["ldr q3, [x0, #1024]", "ldr q4, [x0, #1040]"]) == ["ldr q3, [x0, #1024]", "ldr q4, [x0, #1040]"]
    assert pair(["ldr q3, [sp, #32]", "ldr q4, [sp, #48]"]) == ["ldr q3, [sp, #32]", "ldr q4, [sp, #48]"]


def test_bcax_from_and_with_a_constant():
    """x ^ (a & 0x1b) (AES xtime) -> bcax x, a, #0xe4: a constant's complement is a constant."""
    from cipherspec.ir import Function, Op
    from generator.mir.mir import VRegFactory
    from generator.neon.isel import Selector
    from generator.neon.pool import Pool

    ops = [
        Op("input", 8, (), ("x",)),
        Op("input", 8, (), ("a",)),
        Op("const", 8, (), (0x1B,)),
        Op("and", 8, (1, 2)),
        Op("xor", 8, (0, 3)),
    ]
    vf = VRegFactory()
    sel = Selector(Function("f", ops, [("y", 4)]), {}, 8, vf, Pool({}), {}, {}, [0] * len(ops), sha3=True)
    sel.run({n: vf.new(n) for n in "xa"})
    last = sel.code[-1]
    assert last.mnemonic == "bcax" and sel.const(0xE4, 8) in last.uses


def test_demand_order_removes_aes_mixcolumns_spills():
    """A spilling il1 kernel is rebuilt in demand-driven order (common/sink.py) when that is shorter."""
    m = REG.module("aes128")
    k = emit(m, parse("aes128_neon_b16_crypto_il1", "aes128", None)).kernels[0]
    assert k.stats["order"] == "sink" and k.stats["spills"] == 0
    lea = emit(REG.module("lea128"), parse("lea128_neon_b4_il4", "lea128", None)).kernels[0]
    assert lea.stats["order"] == "spec"  # interleaved (and spill-free): the spec's order stays
