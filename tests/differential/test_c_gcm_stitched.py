"""GCM's stitched CTR+GHASH kernels (<variant>_ctr_ghash: aes_rounds_ctr.c for AES rounds, byte_slices_gcm.c
for a byte-sliced core) against OpenSSL's built-in AES-128-GCM / ARIA-128-GCM through EVP, on every level
this CPU runs: lengths around the byte-sliced run (64 blocks) and the 8 KiB chunk, decryption back, streams
cut at odd places (the byte-sliced ARIA core on both its forms: GFNI at the gfni_* levels, AES instructions at
the vaes_* and aesni levels), and inc32 wrapping mid-message, including a stitched loop that ends exactly where the
counter's low 32 bits wrap (room = 64 blocks: the 96 bits above must not take the carry) and a run where
byte 15 wraps with byte 14 = 0xff (the byte-sliced counter's path through memory)."""

from __future__ import annotations

import numpy as np
import pytest
from cpu import has_level
from gcm_iv import wrapping_iv

CASES = {"aria128": "ARIA-128-GCM", "aes128": "AES-128-GCM"}
LENGTHS = (64 * 16 - 1, 64 * 16, 64 * 16 + 1, 8192 + 17, 3 * 8192 + 5)
LOWS = (0xFFFFFFBF, 0xFFFFFFF0, 0x0000FFE0)  # J0's low 32 bits: room 64 / 15 after J0 + 1; byte 14 = 0xff


@pytest.fixture(scope="module")
def evp():
    from runtime.libcrypto import libcrypto

    lib = libcrypto()
    ctx = lib.OSSL_LIB_CTX_new()
    assert lib.OSSL_PROVIDER_load(ctx, b"default")
    return lib, ctx


@pytest.fixture(scope="module")
def libs(registry):
    from generator.c import BACKEND

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = BACKEND.load(registry, name, None, None)
        return cache[name]

    return get


def _ref(evp, name: str, key: bytes, iv: bytes, aad: bytes, data: bytes) -> tuple[bytes, bytes]:
    from runtime.openssl_aead import aead_evp

    lib, ctx = evp
    c = lib.EVP_CIPHER_fetch(ctx, CASES[name].encode(), b"provider=default")
    assert c, CASES[name]
    return aead_evp(lib, c, "gcm", True, key, iv, aad=aad, data=data)


# the GFNI levels for the byte-sliced ARIA core (AES has no GFNI form: those levels run its vaes_* kernels)
LEVELS = [(n, lv) for n in CASES for lv in ("gfni_avx512", "vaes_avx512", "gfni_avx2", "vaes_avx2", "aesni")]


@pytest.mark.parametrize("name,level", [(n, lv) for n, lv in LEVELS if n == "aria128" or not lv.startswith("gfni")])
def test_stitched_gcm_against_openssl(libs, evp, name, level):
    if not has_level(level):
        pytest.skip(f"this CPU lacks {level}")
    c = libs(name).with_isa(level)
    if level.startswith("gfni") and name == "aria128":  # the byte-sliced core's GFNI form runs at these levels
        assert c.variant == level
    rng = np.random.default_rng(hash((name, level)) & 0xFFFF)
    for n in LENGTHS:
        key, iv = rng.bytes(16), rng.bytes(12)
        aad, data = rng.bytes(13), rng.bytes(n)
        rk = c.expand_key(key)
        want = _ref(evp, name, key, iv, aad, data)
        assert c.gcm_encrypt(rk, iv, aad, data) == want, (name, level, n)
        assert c.gcm_decrypt(rk, iv, aad, want[0], want[1]) == data
        cut = int(rng.integers(1, n))
        s = c.gcm_stream(rk, iv, "encrypt")
        s.aad(aad)
        assert (s.update(data[:cut]) + s.update(data[cut:]), s.finish_encrypt()) == want, (name, level, n, cut)


@pytest.mark.parametrize("low", LOWS)
@pytest.mark.parametrize("name", list(CASES))
def test_stitched_gcm_inc32_wrap(libs, evp, name, low):
    c = libs(name)
    rng = np.random.default_rng(low & 0xFFFF)
    key = rng.bytes(16)
    rk = c.expand_key(key)
    h = int.from_bytes(c.encrypt_blocks(rk, bytes(16)).tobytes(), "big")
    iv = wrapping_iv(h, rng.bytes(12), low)
    aad, data = rng.bytes(5), rng.bytes(300 * 16 + 7)
    want = _ref(evp, name, key, iv, aad, data)
    assert c.gcm_encrypt(rk, iv, aad, data) == want, (name, hex(low))
    assert c.gcm_decrypt(rk, iv, aad, want[0], want[1]) == data
