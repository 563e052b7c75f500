"""Modes: CTR counter arithmetic (whole-block big-endian, full carry, wrap), CBC chaining, stream continuation.

Each mode is checked against a plain composition of the block function written here with Python ints."""

from __future__ import annotations

import os

import numpy as np
import pytest

from cipherspec import modes
from cipherspec.errors import UsageError


@pytest.mark.parametrize(
    "iv_int,bits",
    [
        (0, 128),
        (2**32 - 3, 128),
        (2**64 - 2, 128),
        (2**128 - 3, 128),
        (2**64 - 3, 64),
        (2**32 - 1, 64),
        (0xFFFFFFFF_FFFFFFFF_FFFFFFFF_FFFFFF00, 128),
    ],
)
def test_counter_blocks_match_big_integer_arithmetic(iv_int, bits):
    n = 300
    b = bits // 8
    got = modes.counter_blocks(iv_int.to_bytes(b, "big"), n)
    want = b"".join(((iv_int + i) % (1 << bits)).to_bytes(b, "big") for i in range(n))
    assert got.tobytes() == want


def test_ctr_next_iv_wraps():
    assert modes.ctr_next_iv(b"\xff" * 16, 1) == bytes(16)
    assert modes.ctr_next_iv(b"\x00" * 7 + b"\xff", 2) == b"\x00" * 6 + b"\x01\x01"


@pytest.mark.parametrize("name", ["lea128", "hight", "aes128"])
def test_modes_against_block_composition(make_ref, name):
    c = make_ref(name)
    b = c.block_bytes
    key, iv = os.urandom(c.key_bytes), os.urandom(b)
    rk = c.expand_key(key)

    def E(x: bytes) -> bytes:
        return c.encrypt_blocks(rk, x).tobytes()

    data = os.urandom(5 * b)
    blocks = [data[i : i + b] for i in range(0, len(data), b)]
    # CBC by hand
    prev, want = iv, b""
    for blk in blocks:
        prev = E(bytes(x ^ y for x, y in zip(blk, prev)))
        want += prev
    assert modes.cbc_encrypt(c, rk, iv, data) == want
    assert modes.cbc_decrypt(c, rk, iv, want) == data
    # CTR by hand, partial last block
    msg = data[: 4 * b + 3]
    stream = b"".join(E(((int.from_bytes(iv, "big") + i) % (1 << (8 * b))).to_bytes(b, "big")) for i in range(5))
    out, nxt = modes.ctr(c, rk, iv, msg)
    assert out == bytes(x ^ y for x, y in zip(msg, stream))
    assert nxt == ((int.from_bytes(iv, "big") + 5) % (1 << (8 * b))).to_bytes(b, "big")


def test_ctr_stream_continues_on_block_boundaries(make_ref):
    c = make_ref("cham64_128")
    rk = c.expand_key(bytes(16))
    iv = b"\xff" * 7 + b"\xfe"  # wraps inside the message
    data = os.urandom(8 * 10)
    whole, _ = modes.ctr(c, rk, iv, data)
    first, iv2 = modes.ctr(c, rk, iv, data[:24])
    second, _ = modes.ctr(c, rk, iv2, data[24:])
    assert first + second == whole


def test_empty_inputs(make_ref):
    c = make_ref("lea128")
    rk = c.expand_key(bytes(16))
    assert modes.ecb_encrypt(c, rk, b"") == b""
    assert modes.cbc_decrypt(c, rk, bytes(16), b"") == b""
    assert modes.ctr(c, rk, bytes(16), b"") == (b"", bytes(16))


def test_bad_lengths_raise_usage_errors(make_ref):
    c = make_ref("lea128")
    rk = c.expand_key(bytes(16))
    with pytest.raises(UsageError, match="not a multiple of the 16-byte block"):
        modes.ecb_encrypt(c, rk, b"x" * 15)
    with pytest.raises(UsageError, match="16-byte IV"):
        modes.ctr(c, rk, b"short", b"")
    with pytest.raises(UsageError, match="16-byte key"):
        c.expand_key(b"short")


def test_batched_lanes_use_one_key_per_lane(make_ref):
    c = make_ref("aria128")
    keys = np.random.default_rng(5).integers(0, 256, (7, 16), dtype=np.uint8)
    blocks = np.random.default_rng(6).integers(0, 256, (7, 16), dtype=np.uint8)
    batched = c.encrypt_blocks(c.expand_key(keys), blocks)
    for i in range(7):
        assert batched[i].tobytes() == c.encrypt_blocks(c.expand_key(keys[i].tobytes()), blocks[i]).tobytes()
