"""The C library's set_key routes (generator/c/keysched.py, library.py): an S-box the IR's facts call
affine-equivalent to GF(2^8) inversion (cipherspec/sbox.py) is looked up through AESENCLAST on CPUs with
AES-NI, the others keep their circuits; the bit planes are made only for bitsliced variants; a short
CTR/ECB call takes the variant that pads it least.  Source-level checks (cheap); that both routes give the
same keys is checked by every C test that runs a key under several ISA levels (test_c_modes: each variant
against the reference, the portable ones on the circuit route)."""

from __future__ import annotations

import re

import pytest

from cipherspec.ir import Table
from cipherspec.sbox import aes_sbox, facts
from generator.c.keysched import aesni_tables, encryption_arrays, key_prep, lookup_tables
from generator.c.library import library_source
from generator.c.schedules import resolve


def _tables(registry, name):
    module = registry.module(name)
    prep = key_prep(module, resolve(module, None))
    return module, lookup_tables(prep, ["key_schedule"])


@pytest.mark.parametrize("name,want", [("aes128", 1), ("aria128", 4)])
def test_inversion_equivalent_key_schedule_sboxes_take_the_aes_route(registry, name, want):
    _, tables = _tables(registry, name)
    fast = aesni_tables(tables)
    assert len(fast) == want
    assert all(facts(tables[t].values).inversion is not None for t in fast)


def test_other_sboxes_keep_their_circuits(registry):
    s, _ = aes_sbox()
    swapped = list(s)
    swapped[1], swapped[2] = swapped[2], swapped[1]  # a bijection no longer affine-equivalent to inversion
    odd = Table("T", 8, 8, tuple(swapped))
    assert facts(odd.values).inversion is None and not aesni_tables({"T": odd})
    assert aesni_tables({"S": Table("S", 8, 8, tuple(s))}) == {"S"}
    four = Table("Q", 4, 4, tuple((7 * x + 3) % 16 for x in range(16)))  # a 4-bit S-box
    assert not aesni_tables({"Q": four})
    # no table in the key schedule (LEA): no AES-NI route emitted
    lea = registry.module("lea128")
    src = library_source(lea, resolve(lea, None), "")
    assert "static void cs_key_schedule_aesni" not in src and "#define CS_KS_AESNI" not in src


def test_library_source_routes(registry):
    module = registry.module("aria128")
    src = library_source(module, resolve(module, None), "")
    aesni = src[src.index("static void cs_key_schedule_aesni") :]
    aesni = aesni[: aesni.index("\n}\n")]
    plain = src[src.index("static void cs_key_schedule(") :]
    plain = plain[: plain.index("\n}\n")]
    # the same statements; every lookup of the AES route goes through AESENCLAST, none of the plain one does
    assert len(re.findall(r"cs_ctn8?_aesni_\w+\(", aesni)) == len(re.findall(r"cs_ctn_\w+\(", plain)) > 0
    assert "_aesni_" not in plain
    # batches of <= 8 lookups (ARIA's, AES's: 4) pass their bytes in a register, not through a buffer
    assert re.search(r"const uint64_t b\d+_out = cs_ctn8_aesni_SB\d\(\(uint64_t\)v\d+ \| \(uint64_t\)v\d+ << 8", aesni)
    assert "_in[" not in aesni
    assert "_mm_aesenclast_si128" in src and "CS_KS_AESNI_TARGET" in src
    # the AES route is taken only under a ceiling that allows AES-NI and SSSE3
    assert "if ((allowed & (CS_F_AES | CS_F_V2)) == (CS_F_AES | CS_F_V2))" in src
    # bit planes: made for the bitsliced variants only, no longer at the end of every key schedule
    assert "cs_key_planes(ks);" not in plain and "if (cs_variant_planes(v)) cs_key_planes(ks);" in src
    assert "cs_kernels_short(ks, k, whole + (rest != 0))" in src


@pytest.mark.parametrize("name,want", [("aria128", {"ek"}), ("aes128", None), ("lea128", None), ("hight", None)])
def test_encryption_arrays_are_what_encrypt_reads_when_fewer(registry, name, want):
    assert encryption_arrays(registry.module(name)) == (frozenset(want) if want else None)


def _body(src: str, head: str) -> str:
    body = src[src.index(head) :]
    return body[: body.index("\n}\n")]


def test_encrypt_only_schedule_is_the_first_part_of_the_one_body(registry):
    """ARIA's encrypt-only key (the DRBG's) is the key schedule's first part: every ek word, no dk word, then
    dk zeroed and a return; the dk words follow in the same body (one copy of the schedule, not two);
    LEA's schedule has no split."""
    module = registry.module("aria128")
    src = library_source(module, resolve(module, None), "")
    assert "cs_key_schedule_enc" not in src
    for suffix in ("", "_aesni"):
        full = _body(src, f"static void cs_key_schedule{suffix}(")
        first, rest = full.split("    if (enc_only) {\n", 1)
        assert first.count("ks->ek[") == 13 * 16 and "ks->dk[" not in first
        assert rest.count("ks->dk[") == 13 * 16 and "ks->ek[" not in rest
        assert rest.startswith("        memset(ks->dk, 0, sizeof ks->dk);\n        return;\n    }\n")
        assert rest.count("\n") > 11 * 16  # the 11 diffusion layers that make dk are in the second part only
        assert src.count(f"static void cs_key_schedule{suffix}(") == 1
    assert "cs_set_key_as(ks, key, key_len, NULL, 1)" in src and 'visibility("hidden")' in src
    lea = registry.module("lea128")
    plain = _body(library_source(lea, resolve(lea, None), ""), "static void cs_key_schedule(")
    assert "if (enc_only)" not in plain and "(void)enc_only;" in plain
