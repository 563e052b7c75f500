"""NEON kernels vs the interpreter, under qemu-aarch64: every cipher × schedule × mode × direction.

Each hypothesis example is a batch of cases (random keys, data lengths around the kernel's group size,
IVs near the 2^64 and 2^128 counter wraps) served by ONE QEMU run, so the whole layer stays fast."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neon_support import batches, check_modes
from shipped import shipped_registry
from tools import require

from cipherspec import modes
from driver.targets import make_cipher
from generator.neon.schedules import default

pytestmark = pytest.mark.qemu
REG = shipped_registry()
CIPHERS = REG.names()


def _schedules(name: str) -> list[str]:
    d = default(REG.module(name))
    il = d.get("il")
    other = d.__class__(d.cipher, d.target, d.layout, (("il", 1 if il != 1 else 2),))
    return [d.name, other.name]


# the packed layout (packed.py): byte-state ciphers; PIPO and HIGHT work but mix byte positions in every op
PACKED = [
    "aria128_neon_packed_il1",
    "aria128_neon_packed_il2",
    "aes128_neon_packed_il1",
    "aes256_neon_packed_il1",
    "hight_neon_packed_il1",
    "pipo64_128_neon_packed_il1",
]
# AESE/AESD S-boxes (affine.py): AES's S and S^-1, ARIA's SB1..SB4 (affine-equivalent to S)
CRYPTO = [
    "aria128_neon_b16_crypto_il1",
    "aes128_neon_b16_crypto_il1",
    "aes256_neon_b16_crypto_il2",
    # EOR3/BCAX (sha3.py; qemu-aarch64's default cpu has FEAT_SHA3)
    "pipo64_128_neon_b16_il2_sha3",
    "aria128_neon_b16_crypto_il1_sha3",
    "hight_neon_b16_il2_sha3",
]
CASES = [(n, s) for n in CIPHERS for s in _schedules(n)] + [(s.split("_neon_")[0], s) for s in PACKED + CRYPTO]
_made: dict = {}


def cipher(name: str, schedule: str):
    key = (name, schedule)
    if key not in _made:
        _made[key] = (make_cipher(REG, name, None, "neon", schedule), make_cipher(REG, name, None, "ref"))
    return _made[key]


@pytest.mark.parametrize("name,schedule", CASES, ids=[s for _, s in CASES])
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_neon_matches_interpreter(name, schedule, data):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, ref = cipher(name, schedule)
    check_modes(c, ref, data.draw(batches(c)), schedule)


@pytest.mark.parametrize("name", ["lea128", "aria128", "pipo64_128"])
def test_neon_api_lane_keys_and_cbc_encrypt(name):
    """The target interface: per-lane keys (the KAT runner's batch), CBC encryption, bytes input."""
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, ref = cipher(name, default(REG.module(name)).name)
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 256, (5, c.key_bytes), dtype=np.uint8)
    blocks = rng.integers(0, 256, (5, c.block_bytes), dtype=np.uint8)
    assert (c.encrypt_blocks(c.expand_key(keys), blocks) == ref.encrypt_blocks(ref.expand_key(keys), blocks)).all()
    key, iv = keys[0].tobytes(), blocks[1].tobytes()
    data = blocks.tobytes()
    assert modes.run_mode(c, c.expand_key(key), "cbc", "encrypt", data, iv) == modes.cbc_encrypt(
        ref, ref.expand_key(key), iv, data
    )
    assert c.encrypt_blocks(c.expand_key(key), data).tobytes() == modes.ecb_encrypt(ref, ref.expand_key(key), data)


@pytest.mark.parametrize("name", CIPHERS)
def test_library_key_schedule_matches_interpreter(name):
    """The library's own <prefix>_key_schedule (constant-time C, generator/neon/keysched.py), cross-compiled
    into the same harness and run under QEMU: the interpreter's round keys for random keys, and the error
    codes for a wrong key length (test_neon_constant_time.py checks it under valgrind on the host)."""
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, _ = cipher(name, default(REG.module(name)).name)
    keys = [bytes(np.random.default_rng(k).integers(0, 256, c.key_bytes, dtype=np.uint8)) for k in range(3)]
    got = c.library_key_schedule(keys + [bytes(c.key_bytes - 1), bytes(c.key_bytes + 1)])
    for key, (status, rk) in zip(keys, got):
        assert status == 0 and np.array_equal(rk.words, c.expand_key(key).words), name
    assert [status for status, _ in got[3:]] == [-3, -3]
