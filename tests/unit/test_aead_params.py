"""What the AEAD oracle refuses, with the one-line message naming the one thing wrong, and its small
parts: inc32 wrapping, GHASH's unit, the dispatch to a target's own methods."""

from __future__ import annotations

import random

import pytest

from cipherspec import aead
from cipherspec.aead import gcm
from cipherspec.errors import AuthenticationError, UsageError
from cipherspec.ghash import gf128_mul, mul_by_table, times_h_tables

K = bytes(range(16))


@pytest.fixture(scope="module")
def c(make_ref):
    return make_ref("aes128")


@pytest.fixture(scope="module")
def rk(c):
    return c.expand_key(K)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda c, rk: aead.gcm_encrypt(c, rk, b"", b"", b"x"), "GCM: the IV is empty"),
        (
            lambda c, rk: aead.gcm_encrypt(c, rk, bytes(12), b"", b"x", 10),
            "GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 10",
        ),
        (
            lambda c, rk: aead.gcm_decrypt(c, rk, bytes(12), b"", b"x", bytes(3)),
            "GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 3",
        ),
        (lambda c, rk: aead.gmac(c, rk, bytes(12), b"a", 0), "GCM: a tag is"),
        (lambda c, rk: aead.ccm_encrypt(c, rk, bytes(6), b"", b"x"), "CCM: the nonce is 7 to 13 bytes, got 6"),
        (lambda c, rk: aead.ccm_encrypt(c, rk, bytes(14), b"", b"x"), "CCM: the nonce is 7 to 13 bytes, got 14"),
        (
            lambda c, rk: aead.ccm_encrypt(c, rk, bytes(13), b"", b"x", 5),
            "CCM: a tag is 4, 6, 8, 10, 12, 14 or 16 bytes, got 5",
        ),
        (
            lambda c, rk: aead.ccm_encrypt(c, rk, bytes(13), b"", bytes(70000)),
            "CCM: a 13-byte nonce allows at most 65535 bytes of data, got 70000",
        ),
        (lambda c, rk: aead.xts_encrypt(c, K + K, bytes(16), bytes(16)), "XTS: the two key halves are equal"),
        (
            lambda c, rk: aead.xts_encrypt(c, K, bytes(16), bytes(16)),
            "XTS: the key is two aes128 keys, 32 bytes (key1 || key2), got 16",
        ),
        (lambda c, rk: aead.xts_encrypt(c, K + bytes(16), bytes(8), bytes(16)), "XTS: the tweak is 16 bytes, got 8"),
        (
            lambda c, rk: aead.xts_decrypt(c, K + bytes(16), bytes(16), bytes(15)),
            "XTS: a data unit is at least 16 bytes, got 15",
        ),
        (
            lambda c, rk: aead.xts_encrypt(c, K + bytes(16), bytes(16), bytes(16 * 2**20 + 1)),
            "XTS: a data unit is at most 2^20 blocks (16777216 bytes), got 16777217",
        ),
        (lambda c, rk: aead.cmac(c, rk, b"m", 17), "CMAC: a tag is 1 to 16 bytes, got 17"),
        (lambda c, rk: aead.cmac(c, rk, b"m", 0), "CMAC: a tag is 1 to 16 bytes, got 0"),
        (lambda c, rk: aead.GcmStream(c, rk, bytes(12), "sideways"), "GCM: unknown direction 'sideways'"),
    ],
)
def test_bad_parameters(c, rk, call, message):
    with pytest.raises(UsageError) as e:
        call(c, rk)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_modes_that_need_a_128_bit_block(make_ref):
    h = make_ref("hight")
    rk = h.expand_key(K)
    for call in (
        lambda: aead.gcm_encrypt(h, rk, bytes(12), b"", b""),
        lambda: aead.ccm_encrypt(h, rk, bytes(12), b"", b""),
        lambda: aead.xts_encrypt(h, K + bytes(16), bytes(16), bytes(16)),
    ):
        with pytest.raises(UsageError, match=r"needs a 128-bit block; hight has a 64-bit block"):
            call()
    assert len(aead.cmac(h, rk, b"64-bit blocks are fine for CMAC")) == 8


def test_stream_order_and_one_finish(c, rk):
    s = aead.GcmStream(c, rk, bytes(12), "encrypt")
    s.aad(b"a")
    s.update(b"data")
    with pytest.raises(UsageError, match="GCM: all AAD comes before the data"):
        s.aad(b"late")
    with pytest.raises(UsageError, match="finish_encrypt"):
        aead.GcmStream(c, rk, bytes(12), "decrypt").finish_encrypt()
    s.finish_encrypt()
    with pytest.raises(UsageError, match="one finish per stream"):
        s.finish_encrypt()
    with pytest.raises(UsageError, match="one finish per stream"):
        s.update(b"more")
    cs = aead.CcmStream(c, rk, bytes(12), "encrypt", b"", 4)
    with pytest.raises(UsageError, match="more data than the 4 bytes declared"):
        cs.update(b"12345")
    cs.update(b"123")
    with pytest.raises(UsageError, match="CCM: 4 bytes of data declared, 3 given"):
        cs.finish_encrypt()


def test_gcm_length_limit(c, rk):
    """2^39 - 256 bits of data at most: the stream's count is set near the limit (no 64 GiB here)."""
    s = aead.GcmStream(c, rk, bytes(12), "encrypt")
    s.data_bytes = gcm.MAX_DATA_BYTES - 16
    s.update(bytes(16))
    with pytest.raises(UsageError, match=r"GCM: the data is longer than 2\^39 - 256 bits \(68719476704 bytes\)"):
        s.update(b"x")


def test_wrong_tag_gives_no_plaintext_and_one_message(c, rk):
    ct, tag = aead.gcm_encrypt(c, rk, bytes(12), b"", b"secret")
    with pytest.raises(AuthenticationError) as e:
        aead.gcm_decrypt(c, rk, bytes(12), b"", ct, bytes(16))
    assert str(e.value) == "authentication failed"


def test_inc32_wraps_in_the_low_32_bits_only():
    j = bytes.fromhex("00112233445566778899aabbfffffffe")
    blocks = gcm.inc32_blocks(j, 1, 3)
    assert [b.tobytes().hex() for b in blocks] == [
        "00112233445566778899aabbffffffff",
        "00112233445566778899aabb00000000",
        "00112233445566778899aabb00000001",
    ]


def test_ghash_unit_and_commutativity():
    one = 1 << 127  # the bit string 10...0
    x, y = 0x66E94BD4EF8A2C3B884CFA59CA342B2E, 0x0388DACE60B6A392F328C2B971B2FE78
    assert gf128_mul(one, y) == y
    assert gf128_mul(x, y) == gf128_mul(y, x)


def test_ghash_tables_give_algorithm_1s_products():
    """Ghash multiplies through per-H tables; they must equal the SP's Algorithm 1 (gf128_mul)."""
    rnd = random.Random(38)
    for h in [1 << 127, 1, (1 << 128) - 1] + [rnd.getrandbits(128) for _ in range(40)]:
        tables = times_h_tables(h)
        for x in [0, 1, 1 << 127, (1 << 128) - 1] + [rnd.getrandbits(128) for _ in range(10)]:
            assert mul_by_table(x, tables) == gf128_mul(x, h)


class _Native:
    """A target with its own GCM: dispatch must call it rather than the oracle."""

    block_bytes, key_bytes = 16, 16

    def gcm_encrypt(self, rk, iv, aad, data, tag_len=16):
        return b"native", bytes(tag_len)


def test_dispatch_prefers_the_target(c, rk):
    assert aead.call(_Native(), "gcm_encrypt", None, bytes(12), b"", b"x") == (b"native", bytes(16))
    assert aead.native(_Native(), "gcm_encrypt") and not aead.native(c, "gcm_encrypt")
    assert aead.call(c, "gcm_encrypt", rk, bytes(12), b"", b"x") == aead.gcm_encrypt(c, rk, bytes(12), b"", b"x")
    assert isinstance(aead.gcm_stream(c, rk, bytes(12), "encrypt"), aead.GcmStream)


def test_kat_files_take_aead_blocks(tmp_path, make_ref, registry):
    """`cipherspec kat` runs GCM/CCM/XTS/CMAC blocks: a right one passes, a wrong ciphertext is reported
    (encrypt and decrypt), a block without its tag is a malformed file."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from cipherspec.errors import KatError
    from cipherspec.kat import run_kat_file

    ct = AESGCM(K).encrypt(bytes(12), b"plaintext", b"aad")
    block = (
        f"Cipher = aes128\nMode = GCM\nKey = {K.hex()}\nIV = {bytes(12).hex()}\nAAD = {b'aad'.hex()}\n"
        f"Plaintext = {b'plaintext'.hex()}\nCiphertext = {ct[:-16].hex()}\nTag = {ct[-16:].hex()}\n"
    )
    path = tmp_path / "gcm.txt"
    path.write_text(block)
    report = run_kat_file(str(path), make_ref, set(registry.names()))
    assert (report.passed, report.failed) == (1, 0)
    path.write_text(
        block.replace(f"Ciphertext = {ct[:2].hex()}", f"Ciphertext = {bytes([ct[0] ^ 1]).hex()}{ct[1:2].hex()}")
    )
    report = run_kat_file(str(path), make_ref, set(registry.names()))
    assert report.failed == 1 and "aes128 GCM encrypt, decrypt (refused the right tag)" in report.failures[0]
    path.write_text(block.replace(f"Tag = {ct[-16:].hex()}\n", ""))
    with pytest.raises(KatError, match=r"gcm.txt:1: block has no Tag field"):
        run_kat_file(str(path), make_ref, set(registry.names()))
