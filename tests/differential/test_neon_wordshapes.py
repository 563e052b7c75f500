"""Word shapes beyond the shipped ciphers on NEON, vs the interpreter under qemu-aarch64.

The specs are small test ciphers in tests/data/: 64-bit-word ARX (SPECK-128-like, little- and
big-endian words: ``.2d`` lanes, two blocks per register), a 32-bit Feistel with a byte S-box on each
byte of a word (SM4-like: bytes of 32-bit lanes looked up with TBL/TBX, or AESE on the crypto
schedule, and regrouped into words), rotations of u16/u64 words by byte and non-byte amounts, and values wider than the block words (limbs).
Each schedule is one QEMU run per hypothesis example (ECB both ways, CBC decrypt, CTR), as in
test_neon.py."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neon_support import batches, check_modes
from tools import require
from wordshape_specs import REG

from driver.targets import make_cipher

CASES = [
    ("speck128le", "speck128le_neon_b2_il4"),
    ("speck128le", "speck128le_neon_b2_il1"),
    ("speck128be", "speck128be_neon_b2_il2"),
    ("rot64x4", "rot64x4_neon_b2_il4"),
    ("rot64x4", "rot64x4_neon_b2_il1_sha3"),
    ("rot16x6", "rot16x6_neon_b8_il4"),
    ("sm4like8", "sm4like8_neon_b4_il1"),
    ("sm4like8", "sm4like8_neon_b4_il2"),
    ("toy4", "toy4_neon_b4_il1"),
    ("toy4", "toy4_neon_b4_crypto_il2"),
    ("toy4", "toy4_neon"),  # dispatched
    ("ttab6", "ttab6_neon_b4_il2"),
    ("camlike6", "camlike6_neon_b2_il1"),
    ("camlike6", "camlike6_neon_b2_il2"),
    ("t64x4", "t64x4_neon_b2_il4"),
    ("wide4", "wide4_neon_b8_il4"),  # limbs (split_wide): carries, borrows, rotations across u16 limbs
    ("wide8x3", "wide8x3_neon_b16_il2"),
]
_made: dict = {}


def cipher(name: str, schedule: str):
    if (name, schedule) not in _made:
        _made[name, schedule] = (make_cipher(REG, name, None, "neon", schedule), make_cipher(REG, name, None, "ref"))
    return _made[name, schedule]


@pytest.mark.parametrize("name,schedule", CASES, ids=[s for _, s in CASES])
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_wordshape_matches_interpreter(name, schedule, data):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, ref = cipher(name, schedule)
    check_modes(c, ref, data.draw(batches(c)), schedule)
