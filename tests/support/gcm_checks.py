"""Checks of a CUDA library's GCM (runtime/cuda_gcm.py) against the same cipher's C library (runtime/c_aead.py,
itself checked against OpenSSL and the oracle): byte for byte, tags, tampering, error codes.  Used by the
CPU-shim test (tests/differential/test_cuda_gcm_cpu.py) and the GPU test (test_cuda_gcm_gpu.py).

    check_long(g, c, rng, lengths)     one message: device-pointer and host-buffer entries, IVs of 12 and
                                       other lengths, truncated tags, AAD; decrypt; tampered ct/AAD/tag/IV
    check_batch(g, c, rng, lengths)    many messages and keys in one launch (host descriptions, host buffers,
                                       device descriptions), one tampered tag among them
    check_errors(g)                    bad parameters are codes (strerror), never a crash
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cipherspec.errors import AuthenticationError, UsageError


def _b(rng, n: int) -> bytes:
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def _flip(data: bytes, i: int) -> bytes:
    out = bytearray(data)
    out[i] ^= 0x40
    return bytes(out)


def check_long(g, c, rng, lengths, ivs=(12, 1, 8, 20, 64), tags=(16, 12, 4)) -> None:
    key = _b(rng, g.key_bytes)
    k, rk = g.gcm_key(key), c.expand_key(key)
    for i, n in enumerate(lengths):
        iv = _b(rng, ivs[i % len(ivs)])
        aad = _b(rng, int(rng.integers(0, 48)))
        tag_len = tags[i % len(tags)]
        data = _b(rng, n)
        want = c.gcm_encrypt(rk, iv, aad, data, tag_len)
        host = i % 3 == 2  # every third length through the host-buffer entries
        enc = g.gcm_encrypt_host if host else g.gcm_encrypt
        dec = g.gcm_decrypt_host if host else g.gcm_decrypt
        assert enc(k, iv, aad, data, tag_len) == want, (n, len(iv), tag_len, host)
        assert dec(k, iv, aad, want[0], want[1]) == data, (n, host)
        tampered = [(iv, aad, want[0], _flip(want[1], tag_len - 1)), (iv, aad + b"\0", want[0], want[1])]
        tampered.append((_flip(iv, 0), aad, want[0], want[1]))
        if n:
            tampered.append((iv, aad, _flip(want[0], int(rng.integers(0, n))), want[1]))
        for args in tampered:
            with pytest.raises(AuthenticationError):
                dec(k, *args)


def check_batch(g, c, rng, lengths, nkeys: int = 3, key_of=None, key_shift: int = 0) -> None:
    """Record i under key ``key_of(i)`` (default i % nkeys); ``key_shift``: the device key table's offset in its
    buffer (the device-pointer entries)."""
    keys = [_b(rng, g.key_bytes) for _ in range(nkeys)]
    ks, rks = [g.gcm_key(k) for k in keys], [c.expand_key(k) for k in keys]
    msgs = []
    for i, n in enumerate(lengths):
        ki = key_of(i) if key_of else i % nkeys
        msgs.append((ki, _b(rng, 12), _b(rng, int(rng.integers(0, 30))), _b(rng, n), (16, 12, 8)[i % 3]))
    for host, records in ((False, False), (True, False), (False, True)):
        kw = {"key_shift": key_shift} if key_shift and not host else {}
        outs, tags = g.gcm_batch(ks, msgs, host=host, records=records, **kw)
        for (ki, iv, aad, d, tl), o, t in zip(msgs, outs, tags):
            assert (o, t) == c.gcm_encrypt(rks[ki], iv, aad, d, tl), (len(d), ki, host)
        bad = len(msgs) // 2
        tags = [t if r != bad else _flip(t, 0) for r, t in enumerate(tags)]
        dmsgs = [(ki, iv, aad, o, tl) for (ki, iv, aad, _, tl), o in zip(msgs, outs)]
        pts, oks = g.gcm_batch(ks, dmsgs, decrypt=True, tags=tags, host=host, records=records, **kw)
        assert oks == [r != bad for r in range(len(msgs))], (oks, host)
        assert pts[bad] == bytes(len(pts[bad])), "a failed message's output is zeroed"
        assert all(p == m[3] for r, (p, m) in enumerate(zip(pts, msgs)) if r != bad)


def check_errors(g) -> None:
    k = g.gcm_key(bytes(g.key_bytes))
    with pytest.raises(UsageError, match="IV is empty"):
        g.gcm_encrypt(k, b"", b"", b"x")
    with pytest.raises(UsageError, match="tag is"):
        g.gcm_encrypt(k, bytes(12), b"", b"x", tag_len=5)
    f = g.fn("gcm_encrypt_dev")
    with g.device_buffer(64) as d:
        iv = bytes(12)
        assert f(k.ctypes.data, iv, 0, b"", 0, d.ptr, d.ptr, 16, d.ptr + 32, 16, None) == 10  # CS_EPARAM
        assert f(k.ctypes.data, iv, 12, b"", 0, d.ptr, d.ptr, 16, d.ptr + 32, 5, None) == 10
        assert f(k.ctypes.data, iv, 12, b"", 0, d.ptr + 4, d.ptr + 4, 16, d.ptr + 32, 16, None) == 3  # CS_EALIGN
        assert f(None, iv, 12, b"", 0, d.ptr, d.ptr, 16, d.ptr + 32, 16, None) == 1  # CS_ENULL
        assert f(k.ctypes.data, iv, 12, b"", 0, d.ptr, d.ptr, 1 << 40, d.ptr + 32, 16, None) == 10  # too long
        ok = g.fn("gcm_decrypt_dev")(k.ctypes.data, iv, 12, b"", 0, d.ptr, d.ptr, 16, d.ptr + 32, 16, None, None)
        assert ok == 1  # no ok flag
    assert "authentication failed" in g.strerror(9) and "GCM parameter" in g.strerror(10)
    arr, aad, _ = g.gcm_plan([(5, bytes(12), b"", 16, 16)])  # key index 5 of a table of 1
    with g.device_buffer(64) as d:
        rc = g.fn("gcm_batch_dev")(k.ctypes.data, 1, arr.ctypes.data, 1, None, 0, d.ptr, d.ptr, d.ptr + 32, None, None)
        assert rc == 10, rc
    bad = [(3, bytes(12), b"", b"abc")]  # key index 3 of a table of 1: refused on the device, as documented
    assert g.gcm_batch([k], bad, records=True)[1] == [bytes(16)]
    assert g.gcm_batch([k], bad, decrypt=True, tags=[bytes(16)], records=True)[1] == [False]
    with pytest.raises(UsageError, match="IVs are 12 bytes"):
        g.gcm_plan([(0, bytes(8), b"", 16, 16)])
    assert ctypes.sizeof(ctypes.c_uint32) * g.gcm_key_words == k.nbytes
