"""XAR (FEAT_SHA3: rotate right of an XOR, generator/neon/sha3.py) on 64-bit ARX under qemu-aarch64 (its
default cpu has FEAT_SHA3) against the interpreter: the conformance spec arx64_u64_le and SPECK-128/128 on
their _sha3 schedules, ECB both ways, CBC decryption and CTR in one QEMU run each."""

from __future__ import annotations

import pytest
from conformance import SPEC_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neon_support import batches, check_modes
from paths import ROOT
from tools import require

from cipherspec.registry import Registry
from driver.targets import make_cipher

pytestmark = pytest.mark.qemu
REG = Registry(extra=[SPEC_DIR / "arx64.cs", ROOT / "examples" / "ciphers" / "speck.cs"])
CASES = [("arx64_u64_le", "arx64_u64_le_neon_b2_il4_sha3"), ("speck128_128", "speck128_128_neon_b2_il4_sha3")]


@pytest.mark.parametrize("name,schedule", CASES, ids=[s for _, s in CASES])
@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_xar_kernels_match_interpreter(name, schedule, data):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c = make_cipher(REG, name, None, "neon", schedule)
    assert "xar " in c.emitted.asm
    check_modes(c, make_cipher(REG, name, None, "ref"), data.draw(batches(c)), schedule)
