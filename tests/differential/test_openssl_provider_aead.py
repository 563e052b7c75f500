"""The provider's GCM, CCM and XTS in real OpenSSL, no mocks: against OpenSSL's own AES/ARIA byte for byte,
against the oracle (cipherspec.aead) for a cipher OpenSSL lacks, and in TLS 1.2 between `openssl s_server`
and `openssl s_client` with our provider preferred on one side and OpenSSL's built-in ciphers on the other.

- EVP one-shot and chunked: IV lengths 12 and others, truncated tags, CCM nonce and tag sizes, XTS with
  ciphertext stealing, lengths 0..4099; decryption back; a flipped bit in ciphertext, AAD or tag fails;
- bad parameters refused (XTS equal key halves or a short data unit, CCM nonce of 6 bytes, GCM empty IV);
- TLS 1.2 ECDHE-ARIA128-GCM-SHA256 and ECDHE-RSA-AES128-GCM-SHA256 records (tlsaad, tlsivfixed, the
  explicit nonce) both ways, 1 MiB of random bytes checked end to end, and the name libssl fetches
  (OBJ_nid2sn: "id-aes128-GCM", "ARIA-128-GCM") resolving to our provider under that configuration.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_support import random_bytes
from openssl_support import PROVIDER_DIR, require_openssl
from openssl_tls import provider_config, tls_transfer

from cipherspec.errors import AuthenticationError, UsageError
from driver import cli

CIPHERS = ["aria128", "aes128", "lea128", "hight"]  # as test_openssl_provider (its objects are cached)
OPENSSL_HAS = {("aes128", "gcm"), ("aes128", "ccm"), ("aes128", "xts"), ("aria128", "gcm"), ("aria128", "ccm")}
NAMES = {"aria128": "ARIA-128", "aes128": "AES-128", "lea128": "LEA-128"}
LENGTHS = (0, 1, 15, 16, 17, 63, 64, 65, 255, 4099)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    require_openssl()
    out = tmp_path_factory.mktemp("ossl-aead") / "out"
    assert cli.run(["build", *CIPHERS, "--target", "openssl-provider", "-o", str(out)]) == 0
    return out


class Evp:
    """One libcrypto handle; ciphers fetched from our provider or from OpenSSL's default one."""

    def __init__(self, built):
        from runtime.libcrypto import libcrypto

        self.lib = lib = libcrypto()
        self.ours_ctx = lib.OSSL_LIB_CTX_new()
        self.theirs_ctx = lib.OSSL_LIB_CTX_new()
        assert lib.OSSL_PROVIDER_load(self.ours_ctx, str(built / PROVIDER_DIR / "cipherspec.so").encode())
        assert lib.OSSL_PROVIDER_load(self.theirs_ctx, b"default")

    def fetch(self, name: str, ours: bool):
        ctx, prop = (self.ours_ctx, b"provider=cipherspec") if ours else (self.theirs_ctx, b"provider=default")
        c = self.lib.EVP_CIPHER_fetch(ctx, name.encode(), prop)
        assert c, name
        return c

    def run(self, name: str, ours: bool, mode: str, encrypt: bool, key, iv, **kw):
        from runtime.openssl_aead import aead_evp

        return aead_evp(self.lib, self.fetch(name, ours), mode, encrypt, key, iv, name=name, **kw)


@pytest.fixture(scope="module")
def evp(built):
    return Evp(built)


def _cases(mode: str):
    """(IV or nonce length, tag length) pairs and data lengths for one mode."""
    if mode == "gcm":
        return [(12, 16), (12, 12), (1, 16), (60, 8), (16, 4)]
    if mode == "ccm":
        return [(7, 16), (13, 4), (12, 10), (11, 16)]
    return [(16, 0)]


@pytest.mark.parametrize("name,mode", sorted(OPENSSL_HAS))
def test_equal_to_openssl_builtin(evp, name, mode):
    rng = np.random.default_rng(hash((name, mode)) & 0xFFFF)
    alg = f"{NAMES[name]}-{mode.upper()}"
    keylen = 32 if mode == "xts" else 16
    for ivlen, taglen in _cases(mode):
        for n in LENGTHS:
            if mode == "xts" and n < 16:
                continue
            key, iv = random_bytes(rng, keylen), random_bytes(rng, ivlen)
            aad = random_bytes(rng, int(rng.integers(0, 40))) if mode != "xts" else b""
            data = random_bytes(rng, n)
            kw = {} if mode == "xts" else {"aad": aad, "tag_len": taglen}
            ours = evp.run(alg, True, mode, True, key, iv, data=data, **kw)
            theirs = evp.run(alg, False, mode, True, key, iv, data=data, **kw)
            assert ours == theirs, (alg, ivlen, taglen, n)
            ct, tag = ours
            dk = {} if mode == "xts" else {"aad": aad, "tag": tag}
            assert evp.run(alg, True, mode, False, key, iv, data=ct, **dk)[0] == data
            assert evp.run(alg, False, mode, False, key, iv, data=ct, **dk)[0] == data


def _one_context(evp, alg: str, ours: bool, steps) -> list[bytes]:
    """One EVP_CIPHER_CTX for several GCM messages, as `openssl speed` and TLS drive it: per step, init
    with (key or None, IV), 5 bytes of AAD, the data, the tag; a step "copy" duplicates the context
    (EVP_CIPHER_CTX_copy: our dupctx) and goes on in the copy.  Returns ciphertext || tag per message."""
    lib = evp.lib
    lib.EVP_CIPHER_CTX_copy.argtypes, lib.EVP_CIPHER_CTX_copy.restype = [ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int
    ctx = lib.EVP_CIPHER_CTX_new()
    assert lib.EVP_CipherInit_ex2(ctx, evp.fetch(alg, ours), None, None, 1, None)
    n, out, made = ctypes.c_int(0), [], [ctx]
    try:
        for step in steps:
            if step == "copy":
                dup = lib.EVP_CIPHER_CTX_new()
                made.append(dup)
                assert lib.EVP_CIPHER_CTX_copy(dup, ctx)
                ctx = dup
                continue
            key, iv, data = step
            kb = ctypes.create_string_buffer(key, len(key)) if key is not None else None
            assert lib.EVP_CipherInit_ex2(ctx, None, kb, ctypes.create_string_buffer(iv, 12), -1, None)
            assert lib.EVP_CipherUpdate(ctx, None, ctypes.byref(n), ctypes.create_string_buffer(b"hdr45", 5), 5)
            buf = ctypes.create_string_buffer(len(data) + 16)
            assert lib.EVP_CipherUpdate(
                ctx, buf, ctypes.byref(n), ctypes.create_string_buffer(data, len(data)), len(data)
            )
            assert lib.EVP_CipherFinal_ex(ctx, ctypes.create_string_buffer(32), ctypes.byref(n))
            tag = ctypes.create_string_buffer(16)
            assert lib.EVP_CIPHER_CTX_ctrl(ctx, 0x10, 16, tag) > 0  # EVP_CTRL_AEAD_GET_TAG
            out.append(buf.raw[: len(data)] + tag.raw)
    finally:
        for c in made:
            lib.EVP_CIPHER_CTX_free(c)
    return out


@pytest.mark.parametrize("name", ["aes128", "aria128"])
def test_gcm_context_reused_across_keys_and_ivs(evp, name):
    """The provider keeps the key schedule and H powers across inits: the same key again (skipped
    re-keying), no key (NULL), a new key, the first key back, and a duplicated context all give OpenSSL's
    bytes."""
    rng = np.random.default_rng(8)
    k1, k2 = random_bytes(rng, 16), random_bytes(rng, 16)
    steps = [
        (k1, random_bytes(rng, 12), random_bytes(rng, 100)),
        (k1, random_bytes(rng, 12), random_bytes(rng, 4099)),
        (None, random_bytes(rng, 12), random_bytes(rng, 17)),
        (k2, random_bytes(rng, 12), random_bytes(rng, 600)),
        "copy",
        (k2, random_bytes(rng, 12), random_bytes(rng, 33)),
        (None, random_bytes(rng, 12), random_bytes(rng, 1)),
        (k1, random_bytes(rng, 12), random_bytes(rng, 5000)),
    ]
    alg = f"{NAMES[name]}-GCM"
    assert _one_context(evp, alg, True, steps) == _one_context(evp, alg, False, steps)


@pytest.mark.parametrize("name,mode", [("aria128", "gcm"), ("aes128", "ccm")])
def test_tampering_fails(evp, name, mode):
    rng = np.random.default_rng(3)
    alg = f"{NAMES[name]}-{mode.upper()}"
    key, iv, aad, data = random_bytes(rng, 16), random_bytes(rng, 12), b"header", random_bytes(rng, 100)
    ct, tag = evp.run(alg, True, mode, True, key, iv, aad=aad, data=data)
    flip = lambda b, i: b[:i] + bytes([b[i] ^ 1]) + b[i + 1 :]  # noqa: E731
    for args in (
        {"aad": aad, "data": flip(ct, 37), "tag": tag},
        {"aad": flip(aad, 0), "data": ct, "tag": tag},
        {"aad": aad, "data": ct, "tag": flip(tag, 15)},
    ):
        with pytest.raises(AuthenticationError):
            evp.run(alg, True, mode, False, key, iv, **args)


def test_lea_against_the_oracle(evp, make_ref):
    aead = pytest.importorskip("cipherspec.aead")
    ref = make_ref("lea128")
    rng = np.random.default_rng(11)
    for n in (0, 17, 4099):
        key, iv, data = random_bytes(rng, 16), random_bytes(rng, 12), random_bytes(rng, n)
        rk = ref.expand_key(key)
        assert evp.run("LEA-128-GCM", True, "gcm", True, key, iv, aad=b"a", data=data) == aead.gcm_encrypt(
            ref, rk, iv, b"a", data
        )
        assert evp.run("LEA-128-CCM", True, "ccm", True, key, iv[:11], aad=b"a", data=data, tag_len=8) == (
            aead.ccm_encrypt(ref, rk, iv[:11], b"a", data, 8)
        )
        if n >= 16:
            xkey = random_bytes(rng, 32)
            assert evp.run("LEA-128-XTS", True, "xts", True, xkey, iv + iv[:4], data=data)[0] == aead.xts_encrypt(
                ref, xkey, iv + iv[:4], data
            )


def test_bad_parameters_are_refused(evp):
    key = bytes(range(16))
    with pytest.raises(UsageError, match="key and IV"):  # equal XTS halves
        evp.run("AES-128-XTS", True, "xts", True, key + key, bytes(16), data=bytes(32))
    with pytest.raises(UsageError, match="update"):  # under one block
        evp.run("AES-128-XTS", True, "xts", True, key + key[::-1], bytes(16), data=bytes(15))
    with pytest.raises(UsageError, match="IV length"):
        evp.run("ARIA-128-CCM", True, "ccm", True, key, bytes(6), data=bytes(4))
    with pytest.raises(UsageError):
        evp.run("ARIA-128-GCM", True, "gcm", True, key, b"", data=bytes(4))
    assert not evp.lib.EVP_CIPHER_fetch(evp.ours_ctx, b"HIGHT-GCM", b"provider=cipherspec")  # 64-bit block


# ---- TLS 1.2 through libssl


def test_libssl_names_resolve_to_our_provider(evp, built, tmp_path):
    """Under the preferring configuration, the names libssl fetches (OBJ_nid2sn of the suite's cipher)
    come from our provider; under the other, from the default one (so the check can fail)."""
    lib = evp.lib
    lib.OSSL_LIB_CTX_load_config.argtypes, lib.OSSL_LIB_CTX_load_config.restype = (
        [ctypes.c_void_p, ctypes.c_char_p],
        int,
    )
    lib.EVP_CIPHER_get0_provider.argtypes, lib.EVP_CIPHER_get0_provider.restype = [ctypes.c_void_p], ctypes.c_void_p
    lib.OSSL_PROVIDER_get0_name.argtypes, lib.OSSL_PROVIDER_get0_name.restype = [ctypes.c_void_p], ctypes.c_char_p
    for prefer, want in ((True, b"cipherspec"), (False, b"default")):
        ctx = lib.OSSL_LIB_CTX_new()
        assert lib.OSSL_LIB_CTX_load_config(ctx, str(_config(tmp_path, built, prefer)).encode()) == 1
        for name in (b"id-aes128-GCM", b"ARIA-128-GCM", b"AES-128-GCM"):
            c = lib.EVP_CIPHER_fetch(ctx, name, None)
            assert c, name
            assert lib.OSSL_PROVIDER_get0_name(lib.EVP_CIPHER_get0_provider(c)) == want, (name, prefer)
            lib.EVP_CIPHER_free(c)
        lib.OSSL_LIB_CTX_free(ctx)


def _config(tmp_path, built, prefer: bool):
    return provider_config(tmp_path / f"prefer-{prefer}.cnf", built / PROVIDER_DIR / "cipherspec.so", prefer)


@pytest.mark.parametrize("suite", ["ECDHE-ARIA128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"])
def test_tls12_records_both_ways(built, tmp_path, suite):
    payload = random_bytes(np.random.default_rng(7), 1 << 20)
    src = tmp_path / "payload"
    src.write_bytes(payload)
    ours, builtin = _config(tmp_path, built, True), _config(tmp_path, built, False)
    modules = built / PROVIDER_DIR
    assert tls_transfer(tmp_path, src, suite, ours, builtin, modules)[0].read_bytes() == payload  # ours decrypts
    assert tls_transfer(tmp_path, src, suite, builtin, ours, modules)[0].read_bytes() == payload  # ours encrypts
