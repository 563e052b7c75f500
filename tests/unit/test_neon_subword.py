"""NEON word shapes beyond the shipped ciphers, simd_op_check style: 64-bit lanes, byte views of wider
words (subword.py) and the lookup plan.  The results are checked against the interpreter under QEMU in
tests/differential/test_neon_wordshapes.py; here: the instructions each shape is meant to get, that
they assemble with clang and gcc, and the plan's choices."""

from __future__ import annotations

import re
import subprocess

import pytest
from tools import require
from wordshape_specs import REG

from generator.neon.emit import emit
from generator.neon.schedules import default, parse
from generator.neon.subword import plan

EXPECTED = {  # schedule -> patterns in the ECB encryption kernel; None: must not appear
    "speck128le_neon_b2_il4": [
        r"ld2 \{v\d+\.2d-v\d+\.2d\}, \[x1\], #32",
        r"add v\d+\.2d",
        r"shl v\d+\.2d, v\d+\.2d, #3",
        r"sri v\d+\.2d, v\d+\.2d, #61",
        r"tbl v\d+\.16b, \{v\d+\.16b\}, v\d+\.16b .*",
        r"st2 \{v\d+\.2d-v\d+\.2d\}, \[x2\], #32",
        (None, r"\bstr q\d+, \[sp"),
    ],
    "speck128be_neon_b2_il2": [r"rev64 v\d+\.16b, v\d+\.16b .*big-endian words"],
    "rot64x4_neon_b2_il1": [r"rev64 v\d+\.4s", r"movi v\d+\.2d, #0xff00ff00ffff0000", r"sshr v\d+\.2d|ushr v\d+\.2d"],
    "rot16x6_neon_b8_il1": [r"rev16 v\d+\.16b", r"add v\d+\.8h", r"ld4 \{v\d+\.8h"],
    # SM4's tau: the 4 byte lookups of a word are one chain on the word itself; no extraction, no packing
    "sm4like8_neon_b4_il1": [
        r"tbl v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}",
        r"tbx v\d+\.16b",
        (None, r"byte gather"),
        (None, r"\bushr\b"),
        (None, r"\bstr q\d+, \[sp"),
    ],
    # toy: (x & 0xffffff00) | S[u8(x)]: AESE on bytes gathered from two rounds' words, a BIT blend back
    "toy4_neon_b4_crypto_il1": [
        r"aese v\d+\.16b",
        r"tbl v\d+\.16b, \{v\d+\.16b-v\d+\.16b\}, v\d+\.16b .*byte gather",
        r"bit v\d+\.16b",
        (None, r"\btbx\b"),
    ],
    # a u8 -> u32 table: four byte planes, one chain each
    "ttab6_neon_b4_il1": [r"table T\.b0 bytes", r"table T\.b3 bytes", r"table S bytes"],
    # 8 bytes of a 64-bit word through 4 S-boxes, byte XORs across positions, 32-bit halves (.4s)
    "camlike6_neon_b2_il2": [r"table S4 bytes", r"eor v\d+\.16b", r"byte gather", r"\.4s"],
}


def _kernel(schedule: str) -> str:
    name = schedule.split("_neon_")[0]
    m = REG.module(name)
    return emit(m, parse(schedule, name, None)).asm


@pytest.mark.parametrize("schedule", sorted(EXPECTED))
def test_expected_instructions(schedule):
    enc = _kernel(schedule).split("_ecb_decrypt:")[0]
    for p in EXPECTED[schedule]:
        if isinstance(p, tuple):
            assert not re.search(p[1], enc), f"{schedule}: unexpected {p[1]!r}"
        else:
            assert re.search(p, enc), f"{schedule}: no {p!r}"


@pytest.mark.parametrize("schedule", sorted(EXPECTED))
def test_assembles_with_clang_and_gcc(schedule, tmp_path):
    require("clang", "aarch64-linux-gnu-gcc")
    src = tmp_path / "k.S"
    src.write_text(_kernel(schedule))
    for cmd in (["clang", "--target=aarch64-linux-gnu", "-c"], ["aarch64-linux-gnu-gcc", "-c"]):
        r = subprocess.run(cmd + [str(src), "-o", str(tmp_path / "k.o")], capture_output=True, text=True, check=False)
        assert r.returncode == 0, f"{cmd[0]}: {r.stderr[:2000]}"


def test_default_schedules():
    """Two 64-bit blocks per register; table ciphers interleave half as deep (the slices take 16 registers)."""
    names = {n: default(REG.module(n)).name for n in ("speck128le", "rot16x6", "sm4like8", "toy4", "camlike6")}
    assert names == {
        "speck128le": "speck128le_neon_b2_il4",
        "rot16x6": "rot16x6_neon_b8_il4",
        "sm4like8": "sm4like8_neon_b4_il2",
        "toy4": "toy4_neon_b4_il4",
        "camlike6": "camlike6_neon_b2_il4",
    }


def test_plan_whole_register_is_its_own_index():
    items, where = plan([("x", 0), ("x", 1), ("x", 2), ("x", 3)], 4, 7, False)
    assert items == [({0: ("x", 0), 1: ("x", 1), 2: ("x", 2), 3: ("x", 3)}, ("x", 0))]
    assert where == {("x", q): (0, q) for q in range(4)}


def test_plan_gathers_scattered_bytes_when_that_saves_chains():
    items, where = plan([("a", 3), ("b", 3), ("c", 3), ("d", 3)], 4, 7, False)
    assert len(items) == 1 and sorted(where.values()) == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert where[("a", 3)] == (0, 3)  # a source keeps its byte where it is free
    items, _ = plan([("a", 0), ("b", 0)], 4, 1, True)  # AESE (1 instruction) + the permuting TBL each
    assert len(items) == 1
    items, _ = plan([("a", 0), ("a", 2)], 4, 7, False)  # one register: nothing to gather
    assert len(items) == 1 and items[0][0] == {0: ("a", 0), 2: ("a", 2)}


def test_gathered_index_fills_all_bytes_of_64_bit_lanes():
    srcs = [(r, q) for r in "abcd" for q in (1, 6)]
    items, where = plan(srcs, 8, 7, False)
    assert len(items) == 1 and len(items[0][0]) == 8 and len(set(where.values())) == 8
