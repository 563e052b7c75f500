"""AESE/AESD forms of 256-entry tables on NEON (generator/neon/aesform.py) and the library's choice between
AESE and TBL lookups for a table with an affine map on both sides (dispatch.crypto_applies: by count)."""

from __future__ import annotations

import random

import pytest
from paths import ROOT
from shipped import shipped_registry

from cipherspec.registry import Registry
from cipherspec.sbox import aes_sbox
from generator.neon.aesform import form
from generator.neon.dispatch import crypto_applies, crypto_counts, variants
from generator.neon.schedules import default


def _apply(nib, x: int) -> int:
    return x if nib is None else nib[0][x & 15] ^ nib[1][x >> 4]


def _reproduces(f, table) -> bool:
    s, si = aes_sbox()
    box = s if f.box == "S" else si
    return all(_apply(f.after, box[_apply(f.before, x)]) == table[x] for x in range(256))


@pytest.fixture(scope="module")
def sm4():
    return Registry(extra=[ROOT / "examples" / "ciphers" / "sm4.cs"]).module("sm4")


def test_forms(sm4):
    s = sm4.tables["S"].values
    f = form(s)
    assert f is not None and f.box == "S" and f.maps == 2 and _reproduces(f, s)
    assert form(s, two_sided_forms=False) is None
    assert form(aes_sbox()[0]).maps == 0
    aria = shipped_registry().module("aria128")
    kinds = sorted((form(t.values).box, form(t.values).maps) for t in aria.tables.values())
    assert kinds == [("S", 0), ("S", 1), ("S-1", 0), ("S-1", 1)]
    assert all(_reproduces(form(t.values), t.values) for t in aria.tables.values())
    perm = list(range(256))
    random.Random(5).shuffle(perm)
    assert form(perm) is None


def test_sm4_keeps_tbl_lookups_by_instruction_count(sm4):
    base = default(sm4)
    tbl, aese = crypto_counts(sm4, base)
    assert aese > tbl  # 4 nibble TBLs + AESE + a ShiftRows TBL per register vs a 7-instruction TBL/TBX chain
    assert not any(v.schedule.get("crypto") is not None for v in variants(sm4))
    assert crypto_applies(shipped_registry().module("aria128"))  # one-sided forms: AESE as before
