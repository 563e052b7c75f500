"""Circuits for any table (generator/common/sbox_synth.py): exhaustively equal to their tables, shared
sub-functions, sizes recorded so a regression in the synthesis shows."""

from __future__ import annotations

import random

import pytest

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


@pytest.mark.parametrize(
    "values,out_bits,max_gates",
    [
        (PRESENT, 4, 20),  # optimal: 14 (Ullrich et al. 2011)
        (tuple(PRESENT.index(i) for i in range(16)), 4, 25),
        (GIFT, 4, 18),
        (_random_table(1, 4, 4, False), 4, 22),  # any function, not only permutations
        (_random_table(2, 8, 8, True), 8, 623),  # a random 8-bit permutation
        (_random_table(3, 8, 32, False), 32, 2145),  # a byte -> u32 table (T-table-like)
    ],
)
def test_circuit_equals_table_on_every_input(values, out_bits, max_gates):
    c = synthesize(values, out_bits)
    assert [c.evaluate(x) for x in range(len(values))] == list(values)
    assert c.size() <= max_gates, c.size()
    assert {op for _, op, _, _ in c.gates} <= {"^", "&", "|", "~"}


def test_cached_per_table_content():
    assert synthesize(PRESENT, 4) is synthesize(tuple(PRESENT), 4)
