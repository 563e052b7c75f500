"""The C library's GCM/GMAC, CCM, XTS and CMAC against the oracle (cipherspec.aead over the interpreter) for
ciphers `cryptography` lacks: ARIA-128 and LEA-128 (shipped, default libraries), SM4 (the example spec),
and CMAC on a 64-bit block (CHAM-64/128); and the AES-128 NIST CAVP GCM files through the C library.
The interpreter is slow, so the lengths are short (up to a few dozen blocks) but cross every boundary that
does not need length: 0, 1, 15, 16, 17, two blocks +- 1, non-96-bit IVs, truncated tags, XTS stealing."""

from __future__ import annotations

import numpy as np
import pytest
from cavp import hexbytes, read_cases
from paths import ROOT

from cipherspec import aead
from cipherspec.errors import AuthenticationError
from cipherspec.registry import Registry

EXAMPLES = ROOT / "examples" / "ciphers"
LENGTHS = (0, 1, 15, 16, 17, 31, 33, 100)


@pytest.fixture(scope="module")
def pair(registry):
    """(C library as shipped, interpreter) for a cipher, built once per module."""
    from driver.targets import make_cipher
    from generator.c import BACKEND

    extra = Registry(extra=[EXAMPLES / "sm4.cs"])
    cache = {}

    def make(name: str):
        if name not in cache:
            reg = extra if name == "sm4" else registry
            cache[name] = (BACKEND.load(reg, name, None, None), make_cipher(reg, name, None, "ref"))
        return cache[name]

    return make


def _b(rng, n: int) -> bytes:
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("name", ["aria128", "lea128", "sm4"])
def test_gcm_ccm_xts_cmac_against_the_oracle(pair, name):
    c, ref = pair(name)
    rng = np.random.default_rng(len(name))
    for i, n in enumerate(LENGTHS):
        key, data, aad = _b(rng, c.key_bytes), _b(rng, n), _b(rng, (7 * i) % 40)
        rk, rr = c.expand_key(key), ref.expand_key(key)
        iv = _b(rng, [12, 12, 1, 16, 20][i % 5])
        tag_len = [16, 12, 8, 4, 13][i % 5]
        want = aead.gcm_encrypt(ref, rr, iv, aad, data, tag_len)
        assert c.gcm_encrypt(rk, iv, aad, data, tag_len) == want, (name, "GCM", n)
        assert c.gcm_decrypt(rk, iv, aad, *want) == data
        s = c.gcm_stream(rk, iv, "encrypt")
        s.aad(aad)
        assert s.update(data[: n // 2]) + s.update(data[n // 2 :]) == want[0]
        assert s.finish_encrypt(tag_len) == want[1]
        assert c.gmac(rk, iv, aad) == aead.gmac(ref, rr, iv, aad)
        nonce = _b(rng, 7 + i % 7)
        want = aead.ccm_encrypt(ref, rr, nonce, aad, data, 4 + 2 * (i % 7))
        assert c.ccm_encrypt(rk, nonce, aad, data, 4 + 2 * (i % 7)) == want, (name, "CCM", n)
        assert c.ccm_decrypt(rk, nonce, aad, *want) == data
        assert c.cmac(rk, data) == aead.cmac(ref, rr, data), (name, "CMAC", n)
        if n >= 16:
            xkey = _b(rng, 2 * c.key_bytes)
            tweak = _b(rng, 16)
            want_x = aead.xts_encrypt(ref, xkey, tweak, data)
            assert c.xts_encrypt(xkey, tweak, data) == want_x, (name, "XTS", n)
            assert c.xts_decrypt(xkey, tweak, want_x) == data
    ct, tag = c.gcm_encrypt(rk, iv, aad, data)
    with pytest.raises(AuthenticationError):
        c.gcm_decrypt(rk, iv, aad, ct, bytes([tag[0] ^ 1]) + tag[1:])


def test_cmac_64_bit_block_against_the_oracle(pair):
    c, ref = pair("cham64_128")
    rng = np.random.default_rng(64)
    for n in (0, 1, 7, 8, 9, 16, 17, 40):
        key, msg = _b(rng, c.key_bytes), _b(rng, n)
        rk, rr = c.expand_key(key), ref.expand_key(key)
        want = aead.cmac(ref, rr, msg)
        assert c.cmac(rk, msg) == want, n
        s = c.cmac_stream(rk)
        s.update(msg[:3])
        s.update(msg[3:])
        assert s.finish(4) == want[:4]


def test_aes_gcm_cavp_through_the_c_library(pair):
    """NIST's gcmEncryptExtIV128 (8-, 96- and 1024-bit IVs, every tag length) and gcmDecrypt128 (with
    its FAIL cases) on the C library."""
    c, _ = pair("aes128")
    data = ROOT / "tests" / "data" / "aead"
    for case in read_cases(data / "gcmEncryptExtIV128.rsp"):
        key, tag = hexbytes(case, "Key"), hexbytes(case, "Tag")
        got = c.gcm_encrypt(
            c.expand_key(key), hexbytes(case, "IV"), hexbytes(case, "AAD"), hexbytes(case, "PT"), len(tag)
        )
        assert got == (hexbytes(case, "CT"), tag), f"Count {case['Count']}"
    for case in read_cases(data / "gcmDecrypt128.rsp"):
        key = hexbytes(case, "Key")
        args = (
            c.expand_key(key),
            hexbytes(case, "IV"),
            hexbytes(case, "AAD"),
            hexbytes(case, "CT"),
            hexbytes(case, "Tag"),
        )
        if case.get("FAIL"):
            with pytest.raises(AuthenticationError):
                c.gcm_decrypt(*args)
        else:
            assert c.gcm_decrypt(*args) == hexbytes(case, "PT"), f"Count {case['Count']}"
