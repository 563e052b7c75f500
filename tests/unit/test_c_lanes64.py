"""lanes64.py, the cost model that gives a 64-bit-word ARX spec its lane width and interleave per x86
level; the sliced schedule's i and v64 parameters; the interleaved core's text."""

from __future__ import annotations

import pytest
from conformance import SPEC_DIR
from paths import ROOT

from cipherspec.errors import UsageError
from cipherspec.ir import Op
from cipherspec.registry import Registry
from generator.c import lanes64
from generator.c.portable import kernel_source
from generator.c.schedules import lanes, parse_schedule, vector_lanes
from generator.c.variants import layout_notes, portable, variants

REG = Registry(extra=[SPEC_DIR / "arx64.cs", ROOT / "examples" / "ciphers" / "speck.cs"])


def test_speck_gets_zmm_on_avx512_and_ymm_on_avx2():
    m = REG.module("speck128_128")
    p512, p2, p1 = (lanes64.plan(m, lv) for lv in ("avx512", "avx2", "sse2"))
    assert (p512.vector_bytes, p512.interleave) == (64, 4)  # 8 lanes of VPROLQ beat 4 lanes on ymm
    assert (p2.vector_bytes, p2.interleave) == (32, 4)
    assert (p1.vector_bytes, p1.interleave) == (16, 4)
    assert p512.cost.n == 5 * 32  # per round: 2 rotations (VPROLQ / byte shuffle), add, 2 xors
    assert p2.cost.n == 7 * 32  # the rotation by 3 as two shifts and an OR, the one by 56 a VPSHUFB
    assert p512.cycles_per_byte() < p512.cycles_per_byte(halves=True)
    assert p512.cycles_per_byte() < p2.cycles_per_byte() < p1.cycles_per_byte()


def test_interleave_covers_the_critical_path_within_the_registers():
    m = REG.module("speck128_128")
    p = lanes64.plan(m, "avx2")
    assert p.interleave * p.cost.n / p.isa.per_cycle >= lanes64.HIDE * p.cost.d - p.cost.n / p.isa.per_cycle
    assert p.interleave * (m.block.count + 1) <= p.isa.registers - 2


def test_rotation_costs():
    avx2 = lanes64.CANDIDATES["avx2"][0]
    sse2 = lanes64.CANDIDATES["sse2"][0]
    zmm = lanes64.CANDIDATES["avx512"][0]
    rot = lambda k: Op("rotl", 64, (0,), (k,))  # noqa: E731
    assert lanes64._op_cost(rot(56), avx2, False) == (1, 1)  # VPSHUFB
    assert lanes64._op_cost(rot(3), avx2, False) == (3, 2)
    assert lanes64._op_cost(rot(56), sse2, False) == (3, 2)  # no PSHUFB without SSSE3
    assert lanes64._op_cost(rot(3), zmm, False) == (1, 1)  # VPROLQ
    assert lanes64._op_cost(rot(32), zmm, True) == (0, 0)  # halves swap


def test_32_bit_words_get_zmm_at_avx512_only(registry):
    """LEA (32-bit ARX): 16 lanes per zmm at avx512, the interleave from the model; avx2 and sse2 keep the
    named kernel (no plan); a 16-bit-word spec is not modelled."""
    m = registry.module("lea128")
    assert lanes64.why_not(m) == ""
    p = lanes64.plan(m, "avx512")
    assert (p.vector_bytes, p.lanes, p.word_bits) == (64, 16, 32)
    assert p.cost.n == 24 * 12  # per round: three (xor, xor, add, rotate) on 32-bit words
    assert "VPROLD" in p.note() and "halves" not in p.note()
    assert lanes64.plan(m, "avx2") is None and lanes64.plan(m, "sse2") is None
    sched = parse_schedule(m, "sliced_v32")
    assert p.interleave == 2
    assert [v.kernel.name for v in variants(m, sched)] == [
        "lea128_c_sliced_i2_v64",
        "lea128_c_sliced_v32",
        "lea128_c_sliced_v16",
    ]
    assert lanes64.why_not(registry.module("cham64_128")) == "16-bit block words"


def test_not_applied_where_the_structure_is_missing(registry):
    near = REG.module("arx64_lut_u64")
    assert lanes64.why_not(near) == "encrypt has trunc.u8 at arx64.cs:37 (not 64-bit ARX)"
    sched = parse_schedule(near, "sliced_v32")
    assert [v.kernel.name for v in variants(near, sched)] == [
        "arx64_lut_u64_c_sliced_v32",
        "arx64_lut_u64_c_sliced_v32",
        "arx64_lut_u64_c_sliced_v16",
    ]
    assert "does not apply" in layout_notes(near, sched)[0]


def test_shipped_ciphers_change_only_at_avx512(registry):
    """No shipped cipher has 64-bit words (PIPO's 64-bit block is u8[8]): PIPO keeps its kernels; the 32-bit
    ARX ones (LEA, CHAM-128) change at avx512 alone (zmm), every other level and the portable variant stay."""
    for name in ("lea128", "cham128_128", "pipo64_128"):
        m = registry.module(name)
        for s in (parse_schedule(m, "sliced_v32"), parse_schedule(m, "sliced_v16")):
            vs = variants(m, s)
            changed = [v.name for v in vs if v.kernel.get("i") is not None]
            assert changed == ([] if name == "pipo64_128" else ["avx512"]), name
            assert portable(m, s).kernel.get("i") is None


def test_schedule_params_i_and_v64():
    m = REG.module("speck128_128")
    s = parse_schedule(m, "sliced_v64_i4")
    assert s.name == "speck128_128_c_sliced_i4_v64" and parse_schedule(m, s.name) == s
    assert (lanes(m, s), vector_lanes(m, s)) == (32, 8)
    with pytest.raises(UsageError, match="param i must be 1..8"):
        parse_schedule(m, "sliced_i9")
    with pytest.raises(UsageError, match="unknown schedule params"):
        parse_schedule(m, "scalar_i2")
    assert [v.kernel.name for v in variants(m, s)] == [  # an explicit i: every level uses it
        "speck128_128_c_sliced_i4_v64",
        "speck128_128_c_sliced_i4_v64",
        "speck128_128_c_sliced_i4_v16",
    ]
    assert "given" in layout_notes(m, s)[0]


def test_interleaved_core_text():
    m = REG.module("arx64_u64_le")
    text = kernel_source(m, parse_schedule(m, "sliced_v32_i2"), "ct")
    assert "#define CS_LANES 8\n#define CS_VLANES 4" in text
    assert "typedef uint64_t cs_v64 __attribute__((vector_size(32)));" in text
    assert "typedef struct { uint64_t l[CS_VLANES]; } cs_v64;" in text  # the plain-array fallback
    body = [ln for ln in text.splitlines() if "_v8 = " in ln]
    assert body[0].startswith("        const cs_v64 s0_v8 =") and body[1].startswith("         const cs_v64 s1_v8 =")
    assert "/* lane group 1: blocks 4..7 */" in text
    assert "in + 4 * CS_BLOCK + 0 * sizeof t0_0" in text
    single = kernel_source(m, parse_schedule(m, "sliced_v32_i1"), "ct")
    assert "CS_VLANES" not in single and "s0_v" not in single


def test_counter_core_builds_the_counter_blocks_in_lanes(registry):
    """CTR on 64-bit block words: cs_ctr_n makes word X[1] = bswap(lo + lane) (little-endian words) with one
    add and one byte shuffle per group, X[0] the counter's high bytes; the walk falls back to the counter
    bytes in memory where the low 64 bits carry.  32-bit-word kernels keep the memory path."""
    m = REG.module("speck128_128")
    text = kernel_source(m, parse_schedule(m, "sliced_v32_i2"), "ct")
    assert "static void cs_ctr_n(" in text and "if (lo <= UINT64_MAX - CS_LANES)" in text
    assert "x1_1 = CS_V64_SPLAT(lo + 4) + (cs_v64){0, 1, 2, 3};" in text
    assert "x0_1 = CS_V64_SPLAT(cs_load64le(in + 0));" in text
    assert "w[l] = cs_bswap64(lo + 4 + (uint64_t)l);" in text  # the plain-array form
    lea = registry.module("lea128")
    assert "cs_ctr_n" not in kernel_source(lea, parse_schedule(lea, "sliced_v32"), "ct")
