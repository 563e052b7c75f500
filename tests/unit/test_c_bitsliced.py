"""The C bitsliced schedule's parts: the S-box circuit (exhaustive), the two-sided affine forms of every
shipped table, synthesized circuits for other tables, the plane lowering of gmul, and the refusal (a
block that is not whole 8-byte groups)."""

from __future__ import annotations

import re

import pytest

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.ir import Table
from generator.c.bitslice import Planes, gmul_rows
from generator.c.schedules import bitsliced_support, parse_schedule
from generator.common.affine import aes_sbox, two_sided
from generator.common.sbox_circuit import circuit, evaluate


def test_circuit_is_the_aes_sbox_on_all_256_inputs():
    s, _ = aes_sbox()
    assert [evaluate(x) for x in range(256)] == list(s)
    assert sum(op == "&" for _, op, _, _ in circuit().middle) == 34


def test_the_113_gate_circuit_is_the_aes_sbox_and_the_c_lowering_picks_the_smallest():
    """The second circuit (113 gates: 32 ANDs) is the S-box on all 256 inputs; the C planes (gate-bound)
    lower AES's S through it with its own linear programs (both affine maps are identity), fewer plane
    operations than the depth-16 circuit merged, and still the table on every input; the default algebra
    (CUDA's) keeps the depth-16 circuit."""
    from generator.common.bitslice import PlaneAlgebra, smallest_shape

    s, si = aes_sbox()
    small = circuit("small")
    assert [evaluate(x, "small") for x in range(256)] == list(s)
    assert sum(op == "&" for _, op, _, _ in small.middle) == 32
    assert len(small.top_program) + len(small.middle) + len(small.bottom_program) == 113 + 1  # + the copy D = U7
    assert smallest_shape(tuple(s), Planes.SBOX_SHAPES) == ("small", "own")
    assert smallest_shape(tuple(s), PlaneAlgebra.SBOX_SHAPES) == ("depth16", "merged")
    for values in (s, si):
        table = Table("T", 8, 8, tuple(values))
        assert [_run_planes(table, x) for x in range(256)] == list(values)
    p = Planes("t", "P")
    p.sbox_inline([f"x{i}" for i in range(8)], Table("S", 8, 8, tuple(s)))
    assert len(p.lines) == 117  # 124 through the depth-16 circuit, merged (134 with Paar's networks only)


def _run_planes(table: Table, x: int) -> int:
    """The inline plane lowering of one lookup, interpreted on one byte (planes as Python ints)."""
    p = Planes("t", "P")
    outs = p.sbox_inline([f"x{i}" for i in range(8)], table)
    env = {f"x{i}": x >> i & 1 for i in range(8)}
    for line in p.lines:
        var, expr = line.split("const t ", 1)[1].split(";")[0].split(" = ")
        op, args = expr.split("(", 1)
        a = [env[v.strip()] for v in args.rstrip(")").split(",")]
        env[var] = {
            "P_XOR": lambda: a[0] ^ a[1],
            "P_AND": lambda: a[0] & a[1],
            "P_OR": lambda: a[0] | a[1],
            "P_NOT": lambda: 1 - a[0],
        }[op]()
    return sum((o if isinstance(o, int) else env[o]) << i for i, o in enumerate(outs))


@pytest.mark.parametrize("cipher", ["aes128", "aria128"])
def test_every_shipped_table_through_the_lowered_circuit(registry, cipher):
    for table in registry.module(cipher).tables.values():
        assert two_sided(table.values) is not None, table.name
        assert [_run_planes(table, x) for x in range(256)] == list(table.values), table.name


def test_gmul_rows_are_the_multiplication_matrix():
    for c in (2, 3, 9, 11, 13, 14):
        rows = gmul_rows(c, 0x11B)
        for x in range(256):
            y = sum((bin(x & m).count("1") & 1) << i for i, (m, _) in enumerate(rows))
            assert y == gf_mul(x, c, 0x11B)


def test_any_table_through_the_lowered_circuit():
    """A table that is not affine-equivalent to AES's gets a synthesized circuit (sbox_synth.py)."""
    rnd = Table("R", 8, 8, tuple((x * 7 + 3) % 256 for x in range(256)))
    assert two_sided(rnd.values) is None
    assert [_run_planes(rnd, x) for x in range(256)] == list(rnd.values)


def test_4_bit_table_in_a_byte():
    """A 4-bit S-box lives in a u8: its circuit reads planes 0..3, and planes 4..7 stay constant 0."""
    from generator.c.bitslice import live_bits

    present = Table("S", 4, 8, (0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2))
    assert live_bits(present) == [0, 1, 2, 3]
    assert Planes("t", "P").sbox_inline([f"x{i}" for i in range(8)], present)[4:] == [0, 0, 0, 0]
    assert [_run_planes(present, x) for x in range(16)] == list(present.values)


def test_every_spec_with_whole_8_byte_groups_is_accepted(registry):
    for name in ("lea128", "hight", "cham64_128", "aes128"):
        assert bitsliced_support(registry.module(name)) == ""
    assert parse_schedule(registry.module("lea128"), "bitsliced").layout == "bitsliced"


def test_refusal_names_the_reason(tmp_path):
    from cipherspec.registry import Registry

    spec = tmp_path / "w96.cs"
    spec.write_text(
        "family w(rounds) { block u32[3] little; key u32[3] little;\n"
        "  key_schedule(K) -> rk: u32[rounds][3] { for i in 0..rounds { rk[i] = K; } }\n"
        "  encrypt(X, rk) { X = X ^ rk[0]; } decrypt(X, rk) { X = X ^ rk[0]; } }\n"
        "cipher w96 = w(rounds = 1);\n"
    )
    module = Registry(extra=[spec]).module("w96")
    assert "12-byte block" in bitsliced_support(module)
    with pytest.raises(UsageError, match="not available for w96: a 12-byte block"):
        parse_schedule(module, "bitsliced")


def test_ctr_runs_on_counter_planes_and_sboxes_take_planes_by_value():
    """A 16-byte block: CTR runs go through cs_ctr_n, which splats the counter's constant high word into
    planes, transposes only its low word and XORs the keystream into the input on the way out (no counter
    blocks or keystream buffer); the 8-bit S-box circuit is called with its input planes by value (no
    argument array to copy them through)."""
    from paths import ROOT

    from cipherspec.registry import Registry
    from generator.c.portable import kernel_source

    module = Registry(extra=[ROOT / "tests/conformance/sbox8.cs"]).module("sbox8_u8")
    src = kernel_source(module, parse_schedule(module, "bitsliced_v16"), "ct")
    ctr = src[src.index("CS_HIDDEN void CS_KERNEL(ctr)") :]
    assert "cs_ctr_n(ks, ctr, in + i * CS_BLOCK, out + i * CS_BLOCK);" in ctr
    assert ctr.index("cs_ctr_n(") < ctr.index("cs_ctr_fill(")  # the fill is the carry path's
    core = src[src.index("static void cs_ctr_n(") :]
    core = core[: core.index("\n}\n")]
    assert "cs_bs_load_ctr(s, ctr);" in core and "cs_bs_store_xor(out, o, in);" in core
    assert "cs_bs_load(" not in core and "cs_bs_store(" not in core
    calls = [ln.split("/*")[0].strip() for ln in src.splitlines() if "; cs_sbox_A(" in ln]
    assert calls and all(
        re.fullmatch(r"cs_p (r\d+)\[8\]; cs_sbox_A\(\1(, (p\d+|r\d+\[\d\])){8}\);", c) for c in calls
    ), calls[:2]
    assert "static void cs_sbox_A(cs_p y[8], const cs_p x0, const cs_p x1," in src
