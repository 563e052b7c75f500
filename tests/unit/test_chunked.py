"""Chunked ECB/CBC/CTR (cipherspec/chunked.py) and PKCS#7 (cipherspec/padding.py): any cut of the input
gives the bytes of one whole-input call, on the C library's in-place path and on the generic path (the
interpreter); padding is added and checked as RFC 5652 says, and every bad padding fails alike."""

from __future__ import annotations

import os

import numpy as np
import pytest

from cipherspec import modes
from cipherspec.chunked import ChunkedMode
from cipherspec.errors import UsageError
from cipherspec.padding import BAD_DECRYPT, BadDecrypt, pad_into, unpadded_length
from driver.targets import make_cipher

CIPHERS = ("lea128", "hight")  # 16- and 8-byte blocks


@pytest.fixture(scope="module")
def ciphers(registry):
    return {(n, t): make_cipher(registry, n, None, t) for n in CIPHERS for t in ("c", "ref")}


def pkcs7(data: bytes, b: int) -> bytes:
    p = b - len(data) % b
    return data + bytes([p]) * p


def run_chunked(c, rk, mode, direction, iv, pad, data: bytes, chunk: int) -> bytes:
    """Feeds ``data`` as the command line does: full chunks to update, the short rest (maybe empty) to final."""
    m = ChunkedMode(c, rk, mode, direction, iv, pad)
    out, pos = [], 0
    while True:
        piece = data[pos : pos + chunk]
        buf = np.full(chunk + c.block_bytes, 0xEE, np.uint8)  # junk past the data: padding must overwrite it
        buf[: len(piece)] = np.frombuffer(piece, np.uint8)
        last = len(piece) < chunk
        out += [bytes(p) for p in (m.final(buf, len(piece)) if last else m.update(buf, len(piece)))]
        pos += len(piece)
        if last:
            return b"".join(out)


@pytest.mark.parametrize("name", CIPHERS)
@pytest.mark.parametrize("mode", ["ecb", "cbc", "ctr"])
def test_every_cut_equals_one_call(ciphers, name, mode):
    """Chunks of 1 and 3 blocks; every input length up to 3 chunks + 2 blocks: so the input ends at every
    offset mod the block, on and beside chunk boundaries (padding that fills a chunk, a final empty chunk)."""
    c = ciphers[(name, "c")]
    b = c.block_bytes
    key = os.urandom(c.key_bytes)
    iv = None if mode == "ecb" else b"\xff" * (b - 1) + b"\xfe"  # CTR: the counter wraps in the first chunk
    rk = c.expand_key(key)
    pad = mode != "ctr"
    data = os.urandom(11 * b)
    for chunk in (b, 3 * b):
        for n in range(3 * chunk + 2 * b + 1):
            plain = data[:n]
            want = modes.run_mode(c, rk, mode, "encrypt", pkcs7(plain, b) if pad else plain, iv)
            got = run_chunked(c, rk, mode, "encrypt", iv, pad, plain, chunk)
            assert got == want, (chunk, n)
            assert run_chunked(c, rk, mode, "decrypt", iv, pad, want, chunk) == plain, (chunk, n)


@pytest.mark.parametrize("mode", ["ecb", "cbc", "ctr"])
def test_generic_path_matches_the_library(ciphers, mode):
    """The interpreter has no crypt_into: the generic path (cipherspec.modes, copied back) gives the same bytes."""
    c, ref = ciphers[("hight", "c")], ciphers[("hight", "ref")]
    key, b = os.urandom(16), 8
    iv = None if mode == "ecb" else os.urandom(b)
    pad = mode != "ctr"
    for n in (0, 5, 8, 16, 21, 24, 40):
        plain = os.urandom(n)
        want = run_chunked(c, c.expand_key(key), mode, "encrypt", iv, pad, plain, 2 * b)
        assert run_chunked(ref, ref.expand_key(key), mode, "encrypt", iv, pad, plain, 2 * b) == want
        assert run_chunked(ref, ref.expand_key(key), mode, "decrypt", iv, pad, want, 2 * b) == plain


def test_padding_bytes():
    buf = np.zeros(16, np.uint8)
    buf[:5] = 7
    assert pad_into(buf, 5, 8) == 8 and bytes(buf[:8]) == b"\x07" * 5 + b"\x03" * 3
    assert pad_into(buf, 8, 8) == 16 and bytes(buf[8:16]) == b"\x08" * 8
    assert unpadded_length(b"abcde\x03\x03\x03") == 5
    assert unpadded_length(b"\x08" * 8) == 0
    assert unpadded_length(b"abcdefg\x01") == 7


BAD_LAST_BLOCKS = [
    b"abcdefg\x00",
    b"abcdefg\x09",
    b"abcdefg\xff",
    b"abcde\x02\x03\x03",
    b"abcde\x03\x02\x03",
    b"\x07" + b"\x08" * 7,
    b"abcdef\x01\x02",
]


@pytest.mark.parametrize("last", BAD_LAST_BLOCKS, ids=[x.hex() for x in BAD_LAST_BLOCKS])
def test_every_bad_padding_is_one_message(ciphers, last):
    """Decrypting a ciphertext whose last block is not PKCS#7: the same 'bad decrypt', whatever is wrong."""
    with pytest.raises(BadDecrypt) as e:
        unpadded_length(last)
    assert str(e.value) == BAD_DECRYPT
    c = ciphers[("hight", "c")]
    rk, iv = c.expand_key(bytes(16)), bytes(8)
    for mode, v in (("ecb", None), ("cbc", iv)):
        ct = run_chunked(c, rk, mode, "encrypt", v, False, os.urandom(16) + last, 8)  # crafted without padding
        for chunk in (8, 16, 32):  # the bad block held back from a full chunk, or in the final chunk
            with pytest.raises(BadDecrypt) as e:
                run_chunked(c, rk, mode, "decrypt", v, True, ct, chunk)
            assert str(e.value) == BAD_DECRYPT


def test_length_errors(ciphers):
    c = ciphers[("lea128", "c")]
    rk = c.expand_key(bytes(16))
    with pytest.raises(UsageError, match="ECB: input is 17 bytes, not a multiple of the 16-byte block"):
        run_chunked(c, rk, "ecb", "encrypt", None, False, bytes(17), 32)
    with pytest.raises(UsageError, match="CBC: input is 40 bytes, not a multiple .* ciphertext is whole blocks"):
        run_chunked(c, rk, "cbc", "decrypt", bytes(16), True, bytes(40), 16)
    with pytest.raises(UsageError, match="the input is empty; a padded ciphertext is at least one 16-byte block"):
        run_chunked(c, rk, "cbc", "decrypt", bytes(16), True, b"", 16)
    assert run_chunked(c, rk, "cbc", "decrypt", bytes(16), False, b"", 16) == b""  # unpadded: empty is fine
    with pytest.raises(UsageError, match="CTR takes no padding"):
        ChunkedMode(c, rk, "ctr", "encrypt", bytes(16), pad=True)
    with pytest.raises(UsageError, match="ECB takes no IV"):
        ChunkedMode(c, rk, "ecb", "encrypt", bytes(16))
    with pytest.raises(UsageError, match="lea128 needs a 16-byte IV, got 8 bytes"):
        ChunkedMode(c, rk, "cbc", "encrypt", bytes(8))
