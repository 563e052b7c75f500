"""The C library's GCM/GMAC, CCM, XTS and CMAC (runtime/c_aead.py over fragments/aead.c and ghash.c)
against an independent implementation: AES-128 vs the `cryptography` package (OpenSSL).  Lengths 0, 1,
15, 16, 17 and the stitching chunk (4 KiB) and XTS batch (128 blocks) +-1 (the fused kernels' 32-block
batches inside them); 12-byte and other IVs;
truncated tags; CCM's nonce and tag sizes; XTS with ciphertext stealing; inc32 across the counter's
32-bit wrap (an IV solved for a chosen J0); incremental GCM/CMAC under random chunkings == one-shot;
a tampered tag, ciphertext or AAD -> AuthenticationError with the C output zeroed; every GHASH variant
this CPU runs (keys set up under each ISA level) agrees.  One library (aes128, as shipped) for all."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from cpu import cpu_flags, has_level
from gcm_iv import wrapping_iv

from cipherspec.errors import AuthenticationError
from runtime.c_abi import ERR_AUTH

crypto = pytest.importorskip("cryptography.hazmat.primitives.ciphers")
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM  # noqa: E402
from cryptography.hazmat.primitives.cmac import CMAC  # noqa: E402

CHUNK = 4096  # bytes per stitched GCM step (CS_GCM_CHUNK blocks)
LENGTHS = [0, 1, 15, 16, 17, 255, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 17]
LEVELS = ["sse2", "aesni", "avx2", "vaes_avx2", "avx512", "vaes_avx512"]


@pytest.fixture(scope="module")
def aes(registry):
    from generator.c import BACKEND

    return BACKEND.load(registry, "aes128", None, None)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(21)


def _bytes(rng, n: int) -> bytes:
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def _gcm_ref(key, iv, aad, data) -> tuple[bytes, bytes]:
    e = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    e.authenticate_additional_data(aad)
    ct = e.update(data) + e.finalize()
    return ct, e.tag


def expected_ghash(level: str) -> str:
    """The GHASH variant a level should pick on this CPU, from /proc/cpuinfo (not the library's CPUID)."""
    flags = cpu_flags()
    if level == "sse2" or "pclmulqdq" not in flags:
        return "portable"
    if level == "aesni" or "vpclmulqdq" not in flags:
        return "pclmul"
    return "vpclmul_avx512" if level.endswith("avx512") else "vpclmul_avx2"


# ---------------------------------------------------------------------------------------------- GCM
@pytest.mark.parametrize("level", LEVELS)
def test_gcm_every_ghash_variant(aes, rng, level):
    if not has_level(level):
        pytest.skip(f"this CPU lacks {level}")
    c = aes.with_isa(level)
    assert c.ghash_variant == expected_ghash(level)
    for n in LENGTHS:
        key, iv, aad, data = _bytes(rng, 16), _bytes(rng, 12), _bytes(rng, n % 41), _bytes(rng, n)
        rk = c.expand_key(key)
        ct, tag = c.gcm_encrypt(rk, iv, aad, data)
        assert (ct, tag) == _gcm_ref(key, iv, aad, data), (level, n)
        assert c.gcm_decrypt(rk, iv, aad, ct, tag) == data
        assert ct + tag == AESGCM(key).encrypt(iv, data, aad)


@pytest.mark.parametrize("iv_len", [8, 13, 16, 17, 60, 128])
def test_gcm_other_iv_lengths(aes, rng, iv_len):
    for n in (0, 17, CHUNK + 1):
        key, iv, aad, data = _bytes(rng, 16), _bytes(rng, iv_len), _bytes(rng, 20), _bytes(rng, n)
        rk = aes.expand_key(key)
        assert aes.gcm_encrypt(rk, iv, aad, data) == _gcm_ref(key, iv, aad, data)


def test_gcm_truncated_tags_and_gmac(aes, rng):
    key, iv, aad, data = _bytes(rng, 16), _bytes(rng, 12), _bytes(rng, 33), _bytes(rng, 100)
    rk = aes.expand_key(key)
    full = _gcm_ref(key, iv, aad, data)[1]
    for t in (16, 15, 14, 13, 12, 8, 4):
        ct, tag = aes.gcm_encrypt(rk, iv, aad, data, t)
        assert tag == full[:t]
        assert aes.gcm_decrypt(rk, iv, aad, ct, tag) == data
        d = Cipher(algorithms.AES(key), modes.GCM(iv, tag, min_tag_length=4)).decryptor()
        d.authenticate_additional_data(aad)
        assert d.update(ct) + d.finalize() == data
    assert aes.gmac(rk, iv, aad) == _gcm_ref(key, iv, aad, b"")[1]
    assert aes.gmac(rk, iv, aad, 8) == _gcm_ref(key, iv, aad, b"")[1][:8]


@pytest.mark.parametrize("low", [0xFFFFFFF0, 0xFFFFFFFE, 0xFFFFFFFF])
def test_gcm_inc32_wraps_mid_message(aes, rng, low):
    """A 16-byte IV solved for J0 = R || low (J0 = ((IV H) ^ L) H, L the length block): the counter's low
    32 bits wrap to 0 inside the message while the high 96 stay (inc32, not the library's full CTR)."""
    key = _bytes(rng, 16)
    rk = aes.expand_key(key)
    h = int.from_bytes(aes.encrypt_blocks(rk, bytes(16)).tobytes(), "big")
    iv = wrapping_iv(h, _bytes(rng, 12), low)
    data, aad = _bytes(rng, 40 * 16 + 7), _bytes(rng, 5)
    assert aes.gcm_encrypt(rk, iv, aad, data) == _gcm_ref(key, iv, aad, data)
    s = aes.gcm_stream(rk, iv, "encrypt")
    s.aad(aad)
    ct = s.update(data[:250]) + s.update(data[250:])
    assert (ct, s.finish_encrypt()) == _gcm_ref(key, iv, aad, data)


@pytest.mark.parametrize("level", ["sse2", "aesni", "vaes_avx2", "vaes_avx512"])
def test_gcm_key_context_reused_over_messages(aes, rng, level):
    """<P>_gcm_key_init once, then <P>_gcm_init_key per message (IV only: the H powers copied from the
    key context) == OpenSSL, for several messages, IV lengths and both directions under each GHASH
    variant (each reads a different number of powers)."""
    if not has_level(level):
        pytest.skip(f"this CPU lacks {level}")
    c = aes.with_isa(level)
    key = _bytes(rng, 16)
    rk = c.expand_key(key)
    gk = c.gcm_key(rk)
    for n, iv_len in ((0, 12), (17, 12), (CHUNK + 33, 12), (700, 20), (3 * CHUNK, 12)):
        iv, aad, data = _bytes(rng, iv_len), _bytes(rng, n % 29), _bytes(rng, n)
        s = c.gcm_stream(rk, iv, "encrypt", gk)
        s.aad(aad)
        ct = s.update(data[: n // 3]) + s.update(data[n // 3 :])
        assert (ct, s.finish_encrypt()) == _gcm_ref(key, iv, aad, data), (level, n, iv_len)
        s = c.gcm_stream(rk, iv, "decrypt", gk)
        s.aad(aad)
        assert s.update(ct) == data
        s.finish_decrypt(_gcm_ref(key, iv, aad, data)[1])
    assert c._aead("gcm_init_key", "GCM")(ctypes.create_string_buffer(4096), ctypes.create_string_buffer(4096),
                                          b"x" * 12, 12) != 0  # fmt: skip


def _pieces(rng, data: bytes) -> list[bytes]:
    cuts = sorted(rng.integers(0, len(data) + 1, int(rng.integers(0, 8))).tolist())
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]


def test_gcm_stream_any_chunking_equals_one_shot(aes, rng):
    for n in (0, 1, 17, CHUNK + 33, 3 * CHUNK):
        key, iv, aad, data = _bytes(rng, 16), _bytes(rng, 12 if n % 2 else 20), _bytes(rng, n % 77), _bytes(rng, n)
        rk = aes.expand_key(key)
        ct, tag = aes.gcm_encrypt(rk, iv, aad, data)
        for _ in range(3):
            s = aes.gcm_stream(rk, iv, "encrypt")
            for a in _pieces(rng, aad):
                s.aad(a)
            assert b"".join(s.update(p) for p in _pieces(rng, data)) == ct
            assert s.finish_encrypt() == tag
            s = aes.gcm_stream(rk, iv, "decrypt")
            for a in _pieces(rng, aad):
                s.aad(a)
            assert b"".join(s.update(p) for p in _pieces(rng, ct)) == data
            s.finish_decrypt(tag)


def _raw_decrypt(aes, mode: str, rk, iv, aad, ct, tag) -> tuple[int, bytes]:
    """The C one-shot decryption itself, into a buffer pre-filled with 0xAA: (return code, buffer)."""
    out = ctypes.create_string_buffer(b"\xaa" * max(len(ct), 1), max(len(ct), 1))
    f = aes._aead(f"{mode}_decrypt", mode.upper())
    rc = f(rk, iv, len(iv), aad, len(aad), ct, out, len(ct), tag, len(tag))
    return rc, out.raw[: len(ct)]


def test_gcm_tampering_is_refused_and_output_zeroed(aes, rng):
    key, iv, aad, data = _bytes(rng, 16), _bytes(rng, 12), _bytes(rng, 9), _bytes(rng, 1000)
    rk = aes.expand_key(key)
    ct, tag = aes.gcm_encrypt(rk, iv, aad, data)
    flip = lambda b, i: b[:i] + bytes([b[i] ^ 1]) + b[i + 1 :]  # noqa: E731
    for args in [
        (aad, ct, flip(tag, 15)),
        (aad, flip(ct, 500), tag),
        (flip(aad, 0), ct, tag),
        (aad, ct, flip(tag[:12], 3)),
    ]:
        with pytest.raises(AuthenticationError, match="^authentication failed$"):
            aes.gcm_decrypt(rk, iv, *args)
        rc, out = _raw_decrypt(aes, "gcm", rk, iv, *args)
        assert rc == ERR_AUTH and out == bytes(len(ct))
        s = aes.gcm_stream(rk, iv, "decrypt")
        s.aad(args[0])
        s.update(args[1])
        with pytest.raises(AuthenticationError):
            s.finish_decrypt(args[2])
    rc, out = _raw_decrypt(aes, "gcm", rk, iv, aad, ct, tag)
    assert rc == 0 and out == data


# ---------------------------------------------------------------------------------------------- CCM
@pytest.mark.parametrize("nonce_len", [7, 8, 11, 12, 13])
def test_ccm(aes, rng, nonce_len):
    for tag_len in (4, 6, 8, 10, 12, 14, 16):
        for n in (0, 1, 16, 17, 300) if tag_len != 16 else LENGTHS:
            key, nonce = _bytes(rng, 16), _bytes(rng, nonce_len)
            aad, data = _bytes(rng, [0, 1, 14, 15, 16, 300][n % 6]), _bytes(rng, n)
            rk = aes.expand_key(key)
            ct, tag = aes.ccm_encrypt(rk, nonce, aad, data, tag_len)
            assert ct + tag == AESCCM(key, tag_len).encrypt(nonce, data, aad), (nonce_len, tag_len, n)
            assert aes.ccm_decrypt(rk, nonce, aad, ct, tag) == data


@pytest.mark.parametrize("level", ["sse2", "aesni", "vaes_avx2", "vaes_avx512"])
def test_ccm_one_pass_kernel_every_level(aes, rng, level):
    """CCM's one-pass CBC-MAC+CTR kernel (<variant>_ccm, run on the narrowest variant of the key's family)
    and the per-block fallback (sse2: bitsliced, no such kernel): CCM both ways and CMAC == OpenSSL, with
    nonces of 7 and 13 bytes (a counter field of 8 and 2 bytes) and counters whose low bytes carry."""
    if not has_level(level):
        pytest.skip(f"this CPU lacks {level}")
    c = aes.with_isa(level)
    for nonce_len, n in ((7, 16 * 300 + 5), (13, 16 * 257), (12, 31), (8, 4096 + 16)):
        key, nonce, aad, data = _bytes(rng, 16), _bytes(rng, nonce_len), _bytes(rng, n % 50), _bytes(rng, n)
        rk = c.expand_key(key)
        ct, tag = c.ccm_encrypt(rk, nonce, aad, data)
        assert ct + tag == AESCCM(key).encrypt(nonce, data, aad), (level, nonce_len, n)
        assert c.ccm_decrypt(rk, nonce, aad, ct, tag) == data
        with pytest.raises(AuthenticationError):
            c.ccm_decrypt(rk, nonce, aad, ct[:-1] + bytes([ct[-1] ^ 4]), tag)
        m = CMAC(algorithms.AES(key))
        m.update(data)
        assert c.cmac(rk, data) == m.finalize()


def test_ccm_long_aad_and_tampering(aes, rng):
    key, nonce, aad, data = _bytes(rng, 16), _bytes(rng, 12), _bytes(rng, 0xFF00 + 3), _bytes(rng, 5000)
    rk = aes.expand_key(key)
    ct, tag = aes.ccm_encrypt(rk, nonce, aad, data)  # AAD >= 2^16 - 2^8: the 0xfffe length form
    assert ct + tag == AESCCM(key).encrypt(nonce, data, aad)
    with pytest.raises(AuthenticationError):
        aes.ccm_decrypt(rk, nonce, aad, ct, tag[:-1] + bytes([tag[-1] ^ 0x80]))
    rc, out = _raw_decrypt(aes, "ccm", rk, nonce, aad, ct[:-1] + bytes([ct[-1] ^ 1]), tag)
    assert rc == ERR_AUTH and out == bytes(len(ct))


# ---------------------------------------------------------------------------------------------- XTS
@pytest.mark.parametrize("level", ["sse2", "vaes_avx2", "avx512", None])
def test_xts_with_stealing(aes, rng, level):
    """sse2/vaes_avx2: tweaks in C; avx512 (bitsliced kernels, AVX-512 allowed): tweaks and XORs on zmm;
    the default here (vaes_avx512 where the CPU has it): the kernel's own one-pass loop."""
    if level is not None and not has_level(level):
        pytest.skip(f"this CPU lacks {level}")
    c = aes.with_isa(level)
    for n in (16, 17, 31, 32, 33, 47, 2048 - 1, 2048, 2048 + 1, 2048 + 16, 2048 + 17, 3 * 2048 + 5):
        key, tweak, data = _bytes(rng, 32), _bytes(rng, 16), _bytes(rng, n)
        ct = c.xts_encrypt(key, tweak, data)
        assert ct == Cipher(algorithms.AES(key), modes.XTS(tweak)).encryptor().update(data), n
        assert c.xts_decrypt(key, tweak, ct) == data


# ---------------------------------------------------------------------------------------------- CMAC
def test_cmac_and_stream(aes, rng):
    for n in (0, 1, 15, 16, 17, 32, 33, 1000):
        key, msg = _bytes(rng, 16), _bytes(rng, n)
        rk = aes.expand_key(key)
        ref = CMAC(algorithms.AES(key))
        ref.update(msg)
        full = ref.finalize()
        assert aes.cmac(rk, msg) == full
        assert aes.cmac(rk, msg, 4) == full[:4]
        s = aes.cmac_stream(rk)
        for p in _pieces(rng, msg):
            s.update(p)
        assert s.finish() == full


def test_cmac_on_a_64_bit_block(registry, rng):
    """CMAC with R_b = 0x1b: the SP 800-38B definition spelled out over the library's own ECB."""
    from generator.c import BACKEND

    c = BACKEND.load(registry, "cham64_128", None, None)
    key = _bytes(rng, c.key_bytes)
    rk = c.expand_key(key)
    enc = lambda b: c.encrypt_blocks(rk, b).tobytes()  # noqa: E731

    def dbl(b: bytes) -> bytes:
        v = int.from_bytes(b, "big") << 1
        return ((v ^ 0x1B) if v >> 64 else v).to_bytes(9, "big")[1:]

    k1 = dbl(enc(bytes(8)))
    k2 = dbl(k1)
    for n in (0, 1, 7, 8, 9, 16, 100):
        msg = _bytes(rng, n)
        whole = n and n % 8 == 0
        padded = msg if whole else msg + b"\x80" + bytes(7 - n % 8)
        blocks = [padded[i : i + 8] for i in range(0, len(padded), 8)]
        last = bytes(a ^ b for a, b in zip(blocks[-1], k1 if whole else k2))
        x = bytes(8)
        for b in blocks[:-1] + [last]:
            x = enc(bytes(p ^ q for p, q in zip(x, b)))
        assert c.cmac(rk, msg) == x, n
        s = c.cmac_stream(rk)
        for p in _pieces(rng, msg):
            s.update(p)
        assert s.finish(5) == x[:5]
