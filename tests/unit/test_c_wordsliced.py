"""The word-sliced aesni lowering (generator/c/aesni/wordsliced.py): which IR patterns are byte substitutions
of a word, which specs it takes (and the near miss it refuses), the S-box routine's maps, and the variants
(GFNI levels only where the kernels are word-sliced)."""

from __future__ import annotations

from paths import ROOT

from cipherspec.registry import Registry
from cipherspec.sbox import aes_sbox
from generator.c.aesni import is_word_sliced
from generator.c.aesni.sboxes import nibbles, sbox_routine
from generator.c.aesni.substitution import groups
from generator.c.prepare import prepare
from generator.c.schedules import aesni_support, default_schedule
from generator.c.variants import AESNI_LEVELS, WORD_LEVELS, variants

REG = Registry(extra=[ROOT / "examples/ciphers/sm4.cs", ROOT / "tests/conformance/sbox_inv.cs"])


def _prep(name):
    m = REG.module(name)
    return m, prepare(m, default_schedule(m))


def test_sm4_rounds_are_byte_substitutions_of_words():
    m, prep = _prep("sm4")
    for kind in ("encrypt", "decrypt"):
        found = groups(prep.functions[kind], 32)
        assert len(found) == m.rounds
        assert all(g.tables == ("S",) * 4 for g in found.values())
    assert aesni_support(m) == "" and is_word_sliced(m)
    assert default_schedule(m).layout == "aesni"


def test_the_near_miss_is_refused_and_names_its_table():
    m, _ = _prep("nearinv_u32_be")
    assert "table T is not affine-equivalent to GF(2^8) inversion" in aesni_support(m)
    assert default_schedule(m).layout == "bitsliced"
    assert aesni_support(REG.module("invsub_u32_be")) == ""


def test_the_aes_route_maps_reproduce_the_table():
    """in' as nibble tables, the AES S-box, out' as nibble tables: T on all 256 bytes (what the PSHUFB route computes)."""
    m, prep = _prep("sm4")
    table = prep.tables["S"]
    from cipherspec.sbox import facts

    out_map, in_map = facts(table.values).inversion.via_aes()
    (ilo, ihi), (olo, ohi) = nibbles(in_map), nibbles(out_map)
    s, _ = aes_sbox()
    for x in range(256):
        y = s[ilo[x & 15] ^ ihi[x >> 4]]
        assert olo[y & 15] ^ ohi[y >> 4] == table.values[x]
    text = "\n".join(sbox_routine("S", table))
    assert "CS_X_GF2P8AFFINEINV" in text and "CS_X_AESENCLAST" in text


def test_gfni_levels_only_for_word_sliced_kernels():
    sm4 = REG.module("sm4")
    names = [v.name for v in variants(sm4, default_schedule(sm4))]
    assert names[: len(WORD_LEVELS)] == list(WORD_LEVELS)
    aes = REG.module("aes128")
    assert [v.name for v in variants(aes, default_schedule(aes))][: len(AESNI_LEVELS)] == list(AESNI_LEVELS)
    assert not is_word_sliced(aes)
