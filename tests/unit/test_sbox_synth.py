"""Circuits for any table (generator/common/sbox_synth.py): exhaustively equal to their tables, shared
sub-functions, sizes recorded so a regression in the synthesis shows."""
from __future__ import annotations

import random

import pytest

from cipherspec.ir import Table
from generator.c.bitslice import Planes, live_bits
from generator.common.sbox_synth import synthesize

PRESENT = (0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2)
GIFT = (0x1, 0xA, 0x4, 0xC, 0x6, 0xF, 0x3, 0x9, 0x2, 0xD, 0xB, 0x7, 0x5, 0x0, 0x8, 0xE)


def _random_table(seed: int, n: int, out_bits: int, bijective: bool) -> tuple[int, ...]:
    rnd = random.Random(seed)
    if bijective:
        v = list(range(1 << n))
        rnd.shuffle(v)
        return tuple(v)
    return tuple(rnd.randrange(1 << out_bits) for _ in range(1 << n))


@pytest.mark.parametrize("values,out_bits,max_gates", [
    (PRESENT, 4, 20),                                   # optimal: 14 (Ullrich et al. 2011)
    (tuple(PRESENT.index(i) for i in range(16)), 4, 25),
    (GIFT, 4, 18),
    (_random_table(1, 4, 4, False), 4, 22),             # any function, not only permutations
    (_random_table(2, 8, 8, True), 8, 623),             # a random 8-bit permutation
    (_random_table(3, 8, 32, False), 32, 2145),         # a byte -> u32 table (T-table-like)
])
def test_circuit_equals_table_on_every_input(values, out_bits, max_gates):
    c = synthesize(values, out_bits)
    assert [c.evaluate(x) for x in range(len(values))] == list(values)
    assert c.size() <= max_gates, c.size()
    assert {op for _, op, _, _ in c.gates} <= {"^", "&", "|", "~"}


def test_cached_per_table_content():
    assert synthesize(PRESENT, 4) is synthesize(tuple(PRESENT), 4)


def test_plane_lowering_of_a_4_bit_table_in_a_byte():
    """A 4-bit S-box lives in a u8: the lowering reads planes 0..3 and leaves planes 4..7 constant 0."""
    table = Table("S", 4, 8, PRESENT)
    assert live_bits(table) == [0, 1, 2, 3]
    p = Planes("t", "P")
    outs = p.sbox_inline([f"x{i}" for i in range(4)] + [0] * 4, table)
    assert outs[4:] == [0, 0, 0, 0]
    for x in range(16):
        env = {f"x{i}": x >> i & 1 for i in range(4)}
        for line in p.lines:
            var, expr = line.split("const t ", 1)[1].split(";")[0].split(" = ")
            op, args = expr.split("(", 1)
            a = [env[v.strip()] for v in args.rstrip(")").split(",")]
            env[var] = {"P_XOR": lambda: a[0] ^ a[1], "P_AND": lambda: a[0] & a[1], "P_OR": lambda: a[0] | a[1],
                        "P_NOT": lambda: 1 - a[0]}[op]()
        assert sum((o if isinstance(o, int) else env[o]) << i for i, o in enumerate(outs)) == PRESENT[x]
