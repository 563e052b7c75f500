"""Bad input to the C library's GCM/GMAC, CCM, XTS and CMAC: an error code from C for every bad length,
NULL, limit or out-of-order context call (never a crash, never a partial result: the output buffer is
left as it was), and the oracle's one-line UsageError from Python."""

from __future__ import annotations

import ctypes

import pytest

from cipherspec.errors import UsageError
from runtime.c_abi import ERR_ISA, ERR_KEY_LENGTH, ERR_NULL, ERR_PARAM, OK

n = ctypes.c_size_t


@pytest.fixture(scope="module")
def aes(registry):
    from generator.c import BACKEND

    return BACKEND.load(registry, "aes128", None, None)


def _buf(size: int, fill: int = 0):
    return (ctypes.c_uint8 * max(size, 1))(*([fill] * max(size, 1)))


def test_c_gcm_ccm_error_codes(aes):
    f = lambda s: getattr(aes.lib, f"aes128_{s}")  # noqa: E731
    ks, key = _buf(aes.key_struct_bytes), _buf(16)
    assert f("set_key")(ks, key, n(16)) == OK
    iv, aad, data, tag = _buf(16), _buf(16), _buf(64), _buf(16)
    out = _buf(64, 0xAA)
    enc, dec = f("gcm_encrypt"), f("gcm_decrypt")
    assert enc(ks, iv, n(12), aad, n(3), data, out, n(64), tag, n(16)) == OK
    out = _buf(64, 0xAA)
    ptrs = [ks, iv, aad, data, out, tag]
    for i in range(6):
        args = list(ptrs)
        args[i] = None
        a = (args[0], args[1], n(12), args[2], n(0), args[3], args[4], n(0), args[5], n(16))
        assert enc(*a) == ERR_NULL and dec(*a) == ERR_NULL
        assert f("ccm_encrypt")(*a) == ERR_NULL and f("ccm_decrypt")(*a) == ERR_NULL
    bad = [
        (12, 0, 5),  # tag lengths outside the SP's list
        (12, 0, 17),
        (12, 0, 0),
        (0, 0, 16),  # an empty IV
        (12, 1 << 40, 16),  # past 2^39 - 256 bits (refused before a byte is read)
    ]
    for iv_len, length, tag_len in bad:
        for fn in (enc, dec):
            assert fn(ks, iv, n(iv_len), aad, n(0), data, out, n(length), tag, n(tag_len)) == ERR_PARAM
    assert f("gmac")(ks, iv, n(0), aad, n(3), tag, n(16)) == ERR_PARAM
    ccm = f("ccm_encrypt")
    for nonce_len, length, tag_len in [(6, 0, 16), (14, 0, 16), (13, 0, 3), (13, 0, 5), (13, 0, 18), (13, 1 << 16, 16)]:
        assert ccm(ks, iv, n(nonce_len), aad, n(0), data, out, n(length), tag, n(tag_len)) == ERR_PARAM
        assert f("ccm_decrypt")(ks, iv, n(nonce_len), aad, n(0), data, out, n(length), tag, n(tag_len)) == ERR_PARAM
    assert bytes(out) == b"\xaa" * 64  # nothing written by any refused call
    unset = _buf(aes.key_struct_bytes)  # never set up
    assert enc(unset, iv, n(12), aad, n(0), data, out, n(16), tag, n(16)) == ERR_ISA
    assert ccm(unset, iv, n(12), aad, n(0), data, out, n(16), tag, n(16)) == ERR_ISA


def test_c_gcm_context_out_of_order(aes):
    f = lambda s: getattr(aes.lib, f"aes128_{s}")  # noqa: E731
    ks, key = _buf(aes.key_struct_bytes), _buf(16)
    assert f("set_key")(ks, key, n(16)) == OK
    g = _buf(f("gcm_size")())
    iv, data, out, tag = _buf(12), _buf(32), _buf(32), _buf(16)
    assert f("gcm_aad")(g, data, n(1)) == ERR_PARAM  # never initialised
    assert f("gcm_init")(g, ks, iv, n(0)) == ERR_PARAM
    assert f("gcm_init")(None, ks, iv, n(12)) == ERR_NULL
    assert f("gcm_init")(g, ks, iv, n(12)) == OK
    assert f("gcm_encrypt_update")(g, data, out, n(5)) == OK
    assert f("gcm_aad")(g, data, n(1)) == ERR_PARAM  # AAD after data
    assert f("gcm_decrypt_update")(g, data, out, n(5)) == ERR_PARAM  # the other direction
    assert f("gcm_verify")(g, tag, n(16)) == ERR_PARAM  # verify on an encryption
    assert f("gcm_finish")(g, tag, n(7)) == ERR_PARAM
    assert f("gcm_encrypt_update")(g, data, out, n((1 << 36) - 32)) == ERR_PARAM  # past the limit, with what came
    assert f("gcm_finish")(g, tag, n(16)) == OK
    for call in (f("gcm_finish")(g, tag, n(16)), f("gcm_encrypt_update")(g, data, out, n(1))):
        assert call == ERR_PARAM  # the context ended (and was wiped)
    assert bytes(g) == bytes(len(g))


def test_c_xts_and_cmac_error_codes(aes):
    f = lambda s: getattr(aes.lib, f"aes128_{s}")  # noqa: E731
    xk = _buf(f("xts_key_size")())
    key = (ctypes.c_uint8 * 32)(*range(32))
    same = (ctypes.c_uint8 * 32)(*(list(range(16)) * 2))
    assert f("xts_set_key")(xk, key, n(31)) == ERR_KEY_LENGTH
    assert f("xts_set_key")(xk, same, n(32)) == ERR_PARAM
    assert f("xts_set_key")(None, key, n(32)) == ERR_NULL
    tweak, data, out = _buf(16), _buf(64), _buf(64, 0xAA)
    assert f("xts_encrypt")(xk, tweak, data, out, n(32)) == ERR_ISA  # the refused key is not usable
    assert f("xts_set_key")(xk, key, n(32)) == OK
    for length in (0, 15, (1 << 20) * 16 + 1):
        assert f("xts_encrypt")(xk, tweak, data, out, n(length)) == ERR_PARAM
        assert f("xts_decrypt")(xk, tweak, data, out, n(length)) == ERR_PARAM
    assert f("xts_encrypt")(xk, None, data, out, n(16)) == ERR_NULL
    assert bytes(out) == b"\xaa" * 64
    ks = _buf(aes.key_struct_bytes)
    assert f("set_key")(ks, key, n(16)) == OK
    tag = _buf(16)
    for tag_len in (0, 17):
        assert f("cmac")(ks, data, n(3), tag, n(tag_len)) == ERR_PARAM
    assert f("cmac")(ks, None, n(0), tag, n(16)) == ERR_NULL
    m = _buf(f("cmac_ctx_size")())
    assert f("cmac_init")(m, ks) == OK
    assert f("cmac_final")(m, tag, n(16)) == OK
    assert f("cmac_update")(m, data, n(1)) == ERR_PARAM  # finished


def test_python_errors_name_the_parameter(aes, registry):
    rk = aes.expand_key(bytes(16))
    cases = [
        (lambda: aes.gcm_encrypt(rk, b"", b"", b"x"), "GCM: the IV is empty"),
        (
            lambda: aes.gcm_encrypt(rk, bytes(12), b"", b"x", 10),
            "GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 10",
        ),
        (lambda: aes.gcm_decrypt(rk, bytes(12), b"", b"x", bytes(3)), "got 3"),
        (lambda: aes.ccm_encrypt(rk, bytes(6), b"", b"x"), "CCM: the nonce is 7 to 13 bytes, got 6"),
        (lambda: aes.ccm_encrypt(rk, bytes(12), b"", b"x", 5), "CCM: a tag is 4, 6, 8, 10, 12, 14 or 16 bytes, got 5"),
        (
            lambda: aes.ccm_encrypt(rk, bytes(13), b"", bytes(70000)),
            "CCM: a 13-byte nonce allows at most 65535 bytes of data, got 70000",
        ),
        (lambda: aes.xts_encrypt(bytes(32), bytes(16), bytes(16)), "XTS: the two key halves are equal"),
        (
            lambda: aes.xts_encrypt(bytes(range(32)), bytes(16), bytes(15)),
            "XTS: a data unit is at least 16 bytes, got 15",
        ),
        (lambda: aes.xts_encrypt(bytes(range(31)), bytes(16), bytes(16)), "XTS: the key is two aes128 keys, 32 bytes"),
        (lambda: aes.cmac(rk, b"", 17), "CMAC: a tag is 1 to 16 bytes, got 17"),
    ]
    for call, message in cases:
        with pytest.raises(UsageError) as e:
            call()
        assert message in str(e.value) and "\n" not in str(e.value)
    s = aes.gcm_stream(rk, bytes(12), "encrypt")
    s.update(b"x")
    with pytest.raises(UsageError, match="all AAD comes before the data"):
        s.aad(b"a")
    s.finish_encrypt()
    with pytest.raises(UsageError, match="the message is finished"):
        s.finish_encrypt()
    with pytest.raises(UsageError, match="finish_decrypt on an encrypting stream"):
        s.finish_decrypt(bytes(16))


def test_gcm_needs_a_128_bit_block(registry):
    from generator.c import BACKEND

    c = BACKEND.load(registry, "cham64_128", None, None)
    rk = c.expand_key(bytes(c.key_bytes))
    with pytest.raises(UsageError, match="GCM needs a 128-bit block; cham64_128 has a 64-bit block"):
        c.gcm_encrypt(rk, bytes(12), b"", b"")
    assert not hasattr(c.lib, "cham64_128_gcm_encrypt")  # not generated at all
    assert len(c.cmac(rk, b"abc")) == 8
