"""S-box facts at the IR level (cipherspec/sbox.py): the spectra, and affine equivalence to GF(2^8) inversion
with maps that reproduce every entry -- found for AES, ARIA, SM4 and Camellia tables, refused for a random
bijection and for SM4's table with two entries swapped."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from cipherspec import sbox
from cipherspec.gf import gf_mul
from cipherspec.sbox import aes_sbox, facts, inverses

ROOT = Path(__file__).resolve().parents[2]

# Camellia s1, RFC 3713 section 2.4.4 (SBOX1), typed in from the RFC
CAMELLIA_S1 = (
    112, 130, 44, 236, 179, 39, 192, 229, 228, 133, 87, 53, 234, 12, 174, 65,
    35, 239, 107, 147, 69, 25, 165, 33, 237, 14, 79, 78, 29, 101, 146, 189,
    134, 184, 175, 143, 124, 235, 31, 206, 62, 48, 220, 95, 94, 197, 11, 26,
    166, 225, 57, 202, 213, 71, 93, 61, 217, 1, 90, 214, 81, 86, 108, 77,
    139, 13, 154, 102, 251, 204, 176, 45, 116, 18, 43, 32, 240, 177, 132, 153,
    223, 76, 203, 194, 52, 126, 118, 5, 109, 183, 169, 49, 209, 23, 4, 215,
    20, 88, 58, 97, 222, 27, 17, 28, 50, 15, 156, 22, 83, 24, 242, 34,
    254, 68, 207, 178, 195, 181, 122, 145, 36, 8, 232, 168, 96, 252, 105, 80,
    170, 208, 160, 125, 161, 137, 98, 151, 84, 91, 30, 149, 224, 255, 100, 210,
    16, 196, 0, 72, 163, 247, 117, 219, 138, 3, 230, 218, 9, 63, 221, 148,
    135, 92, 131, 2, 205, 74, 144, 51, 115, 103, 246, 243, 157, 127, 191, 226,
    82, 155, 216, 38, 200, 55, 198, 59, 129, 150, 111, 75, 19, 190, 99, 46,
    233, 121, 167, 140, 159, 110, 188, 142, 41, 245, 249, 182, 47, 253, 180, 89,
    120, 152, 6, 106, 231, 70, 113, 186, 212, 37, 171, 66, 136, 162, 141, 250,
    114, 7, 185, 85, 248, 238, 172, 10, 54, 73, 42, 104, 60, 56, 241, 164,
    64, 40, 211, 123, 187, 201, 67, 193, 21, 227, 173, 244, 119, 199, 128, 158,
)  # fmt: skip


def _sm4_sbox() -> tuple[int, ...]:
    text = (ROOT / "examples/ciphers/sm4.cs").read_text().split("sbox S = [", 1)[1].split("]", 1)[0]
    return tuple(int(v, 16) for v in re.findall(r"0x[0-9a-f]+", text))


def _inverse(t):
    out = [0] * len(t)
    for x, y in enumerate(t):
        out[y] = x
    return tuple(out)


def _equivalent_tables(registry) -> dict[str, tuple[int, ...]]:
    s, si = aes_sbox()
    aria = registry.module("aria128").tables
    got = {"AES S": s, "AES S^-1": si, "SM4 S": _sm4_sbox(), "Camellia s1": CAMELLIA_S1}
    for name, t in aria.items():
        got[f"ARIA {name}"] = t.values
        got[f"ARIA {name}^-1"] = _inverse(t.values)
    return got


def test_equivalent_tables_get_maps_that_reproduce_every_entry(registry):
    tables = _equivalent_tables(registry)
    assert len(tables) >= 8
    inv = inverses()
    for name, t in tables.items():
        assert sorted(t) == list(range(256)), name
        f = facts(t)
        assert f is not None and f.inversion is not None, name
        assert (f.bijective, f.differential_uniformity, f.linearity, f.degree) == (True, 4, 32, 7), name
        form = f.inversion
        assert [form.out(inv[form.inp(x)]) for x in range(256)] == list(t), name
        # A and B are invertible: the linear parts are bijections
        for m in (form.out, form.inp):
            assert len({m(x) ^ m.const for x in range(256)}) == 256, name
        out_aes, inp_aes = form.via_aes()
        s, _ = aes_sbox()
        assert [out_aes(s[inp_aes(x)]) for x in range(256)] == list(t), name


def test_near_misses_are_refused():
    rnd = list(range(256))
    random.Random(20).shuffle(rnd)
    swapped = list(_sm4_sbox())
    swapped[7], swapped[99] = swapped[99], swapped[7]
    for t in (rnd, swapped):
        f = facts(t)
        assert f is not None and f.bijective and f.inversion is None
    assert facts(swapped).differential_uniformity > 4


def test_inversion_itself_and_a_power_map_with_the_same_uniformity():
    assert facts(inverses()).inversion is not None
    s, _ = aes_sbox()
    sq = [gf_mul(v, v, 0x11B) for v in s]  # S then the (linear) Frobenius map: still equivalent
    assert facts(sq).inversion is not None


def test_four_bit_tables_and_other_shapes():
    present = (0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2)
    f = facts(present)
    assert (f.bits, f.bijective, f.differential_uniformity, f.linearity, f.degree) == (4, True, 4, 8, 3)
    assert f.inversion is None
    assert facts([0] * 16).bijective is False
    assert facts(range(64)) is None


@pytest.mark.parametrize("which", ["SM4 S", "random"])
def test_a_table_is_decided_fast(which):
    t = list(_sm4_sbox()) if which == "SM4 S" else random.Random(3).sample(range(256), 256)
    sbox._facts.cache_clear()  # the cache is keyed by the values: time a cold decision
    start = time.perf_counter()
    assert (sbox.facts(t).inversion is not None) == (which == "SM4 S")
    assert time.perf_counter() - start < 0.5
