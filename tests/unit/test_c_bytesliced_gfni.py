"""The byte-sliced aesni core's GFNI form (generator/c/aesni/bytesliced.py, gfni=True): every lookup is
VGF2P8AFFINEINVQB after an optional VGF2P8AFFINEQB with the matrices of the IR's S-box facts (checked here by
emulating the instructions on all 256 bytes), no AES instruction and no lane permutation; the kernel source
carries both forms under __GFNI__; byte-sliced libraries compile the GFNI levels; one-block calls
(aead.c: cs_serial_kernels) take the variant with the cheapest run (library.run_cost)."""

from __future__ import annotations

import re

from cipherspec.sbox import facts, inverses
from generator.c.aesni import byte_sliced_ops, kernel_source
from generator.c.aesni.bytesliced import Lowering
from generator.c.aesni.sboxes import gfni_matrix
from generator.c.library import run_cost
from generator.c.prepare import prepare
from generator.c.schedules import default_schedule
from generator.c.text import key_slots, word_index
from generator.c.variants import AESNI_LEVELS, GFNI_AESNI_LEVELS, variants

_CALL = re.compile(r"(CS_X_GF2P8AFFINE(?:INV)?)\((\w+), (0x[0-9a-f]+)ull, (0x[0-9a-f]+)\)")


def _affine(x: int, matrix: int, c: int) -> int:
    """GF2P8AFFINEQB on one byte: bit i of the result = parity(byte 7-i of the matrix & x) ^ bit i of c."""
    return c ^ sum((bin((matrix >> (8 * (7 - i))) & 0xFF & x).count("1") & 1) << i for i in range(8))


def _lowered(registry, name: str, gfni: bool) -> tuple[Lowering, object]:
    m = registry.module(name)
    prep = prepare(m, default_schedule(m))
    low = Lowering(prep.functions["encrypt"], prep.tables, key_slots(m), "cs_ek", gfni=gfni)
    outs = low.lower(lambda n: f"s[{word_index(n)}]")
    return low, (prep, outs)


def test_gfni_form_has_no_aes_instructions_and_no_lane_permutations(registry):
    low, (prep, outs) = _lowered(registry, "aria128", True)
    text = "\n".join(low.lines)
    luts = [op for op in prep.functions["encrypt"].ops if op.code == "lut"]
    assert "AESENCLAST" not in text and "AESDECLAST" not in text and "CS_X_SHUFFLE" not in text
    assert text.count("CS_X_GF2P8AFFINEINV(") == len(luts)
    two = sum(1 for op in luts if not facts(prep.tables[op.imm[0]].values).inversion.inp.identity)
    assert text.count("CS_X_GF2P8AFFINE(") == two == len(luts) // 2  # SB3, SB4: B·x ^ b first
    assert {p for _, p in outs.values()} == {0}  # every output where its block is: no ShiftRows order
    aes, _ = _lowered(registry, "aria128", False)
    assert len(low.lines) < len(aes.lines) * 4 // 5
    assert byte_sliced_ops(registry.module("aria128"), True) == len(low.lines)


def test_gfni_instructions_compute_the_tables(registry):
    """Emulate each lookup's one or two instructions on all 256 bytes: the table, for SB1..SB4."""
    low, (prep, _) = _lowered(registry, "aria128", True)
    inv = inverses()
    emitted = {(c[0], int(c[2], 16), int(c[3], 16)) for line in low.lines for c in _CALL.findall(line)}
    want = set()
    for name in ("SB1", "SB2", "SB3", "SB4"):
        form = facts(prep.tables[name].values).inversion
        want.add(("CS_X_GF2P8AFFINEINV", gfni_matrix(form.out), form.out.const))
        if not form.inp.identity:
            want.add(("CS_X_GF2P8AFFINE", gfni_matrix(form.inp), form.inp.const))
        for x in range(256):
            y = x if form.inp.identity else _affine(x, gfni_matrix(form.inp), form.inp.const)
            assert _affine(inv[y], gfni_matrix(form.out), form.out.const) == prep.tables[name].values[x], (name, x)
    assert emitted == want  # the instructions the core runs are exactly these


def test_kernel_source_carries_both_forms(registry):
    m = registry.module("aria128")
    src = kernel_source(m, default_schedule(m), "")
    first = src.index("static void cs_encrypt_n_0(")
    assert src.count("static void cs_encrypt_n_0(") == 2
    gfni, aes = src[src.rindex("#if defined(__GFNI__)", 0, first) :].split("\n#else\n", 1)
    assert "CS_X_GF2P8AFFINEINV" in gfni and "AESENCLAST" not in gfni
    assert "CS_X_AESENCLAST" in aes.split("\n#endif\n")[0] and "static void cs_encrypt_n_0(" in aes


def test_byte_sliced_libraries_compile_the_gfni_levels_and_serial_calls_take_the_cheapest(registry):
    aria, aes = registry.module("aria128"), registry.module("aes128")
    vs = variants(aria, default_schedule(aria))
    assert [v.name for v in vs][: len(GFNI_AESNI_LEVELS)] == list(GFNI_AESNI_LEVELS)
    costs = {v.name: run_cost(aria, v) for v in vs if v.name in GFNI_AESNI_LEVELS}
    assert min(costs, key=lambda n: (costs[n], n)) == "gfni_avx2"  # 256-bit GFNI: fewer ops than aesni's form
    assert costs["gfni_avx512"] == 2 * costs["gfni_avx2"] and costs["vaes_avx2"] == costs["aesni"]
    va = variants(aes, default_schedule(aes))
    assert [v.name for v in va][: len(AESNI_LEVELS)] == list(AESNI_LEVELS)  # AES rounds: no GFNI form
    assert [run_cost(aes, v) for v in va[:3]] == [32, 16, 8]  # (their blocks per run)
