"""The C bitsliced schedule's parts: the S-box circuit (exhaustive), the two-sided affine forms of every
shipped table, the plane lowering of gmul, and the refusals (wide words, add, non-AES tables)."""
from __future__ import annotations

import pytest

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.ir import Table
from generator.c.bitslice import Planes, gmul_rows
from generator.common.sbox_circuit import circuit, evaluate
from generator.c.schedules import bitsliced_support, parse_schedule
from generator.common.affine import aes_sbox, two_sided


def test_circuit_is_the_aes_sbox_on_all_256_inputs():
    s, _ = aes_sbox()
    assert [evaluate(x) for x in range(256)] == list(s)
    assert sum(op == "&" for _, op, _, _ in circuit().middle) == 34


def _run_planes(table: Table, x: int) -> int:
    """The inline plane lowering of one lookup, interpreted on one byte (planes as Python ints)."""
    p = Planes("t", "P")
    outs = p.sbox_inline([f"x{i}" for i in range(8)], table)
    env = {f"x{i}": x >> i & 1 for i in range(8)}
    for line in p.lines:
        var, expr = line.split("const t ", 1)[1].split(";")[0].split(" = ")
        op, args = expr.split("(", 1)
        a = [env[v.strip()] for v in args.rstrip(")").split(",")]
        env[var] = {"P_XOR": lambda: a[0] ^ a[1], "P_AND": lambda: a[0] & a[1], "P_OR": lambda: a[0] | a[1],
                    "P_NOT": lambda: 1 - a[0]}[op]()
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


def test_refusals_name_the_reason(registry):
    assert "wider than 8 bits" in bitsliced_support(registry.module("lea128"))
    assert "add" in bitsliced_support(registry.module("hight"))
    with pytest.raises(UsageError, match="not available for lea128"):
        parse_schedule(registry.module("lea128"), "bitsliced")
    rnd = Table("R", 8, 8, tuple((x * 7 + 3) % 256 for x in range(256)))
    assert two_sided(rnd.values) is None
    with pytest.raises(UsageError, match="table R"):
        Planes("t", "P").sbox([f"x{i}" for i in range(8)], rnd)
