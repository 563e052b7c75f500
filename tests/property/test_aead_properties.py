"""Properties of the AEAD oracle on random inputs (hypothesis): decryption inverts encryption, any
chunking of a stream gives the one-shot bytes, and flipping any single bit of the ciphertext, the tag
or the AAD makes decryption fail with AuthenticationError (and return no plaintext)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cipherspec import aead
from cipherspec.errors import AuthenticationError

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def flip(data: bytes, bit: int) -> bytes:
    b = bytearray(data)
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


def cuts(data: bytes, points: list[int]) -> list[bytes]:
    points = sorted({p % (len(data) + 1) for p in points})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


def tampered(ct: bytes, tag: bytes, aad: bytes, where: int) -> list[tuple[bytes, bytes, bytes]]:
    """(ct, tag, aad) with one bit flipped in the tag, in the ciphertext, in the AAD (those not empty)."""
    out = [(ct, flip(tag, where % (8 * len(tag))), aad)]
    if ct:
        out.append((flip(ct, where % (8 * len(ct))), tag, aad))
    if aad:
        out.append((ct, tag, flip(aad, where % (8 * len(aad)))))
    return out


@pytest.fixture(scope="module")
def c(make_ref):
    return make_ref("lea128")


@SETTINGS
@given(
    key=st.binary(min_size=16, max_size=16),
    iv=st.binary(min_size=1, max_size=20),
    aad=st.binary(max_size=40),
    data=st.binary(max_size=70),
    tag_len=st.sampled_from([16, 15, 14, 13, 12, 8, 4]),
    where=st.integers(min_value=0, max_value=10**6),
    points=st.lists(st.integers(min_value=0, max_value=100), max_size=4),
)
def test_gcm(c, key, iv, aad, data, tag_len, where, points):
    rk = c.expand_key(key)
    ct, tag = aead.gcm_encrypt(c, rk, iv, aad, data, tag_len)
    assert aead.gcm_decrypt(c, rk, iv, aad, ct, tag) == data
    s = aead.GcmStream(c, rk, iv, "encrypt")
    for piece in cuts(aad, points):
        s.aad(piece)
    assert b"".join(s.update(p) for p in cuts(data, points)) == ct
    assert s.finish_encrypt(tag_len) == tag
    for ct2, tag2, aad2 in tampered(ct, tag, aad, where):
        with pytest.raises(AuthenticationError):
            aead.gcm_decrypt(c, rk, iv, aad2, ct2, tag2)


@SETTINGS
@given(
    key=st.binary(min_size=16, max_size=16),
    nonce=st.binary(min_size=7, max_size=13),
    aad=st.binary(max_size=40),
    data=st.binary(max_size=50),
    tag_len=st.sampled_from([4, 6, 8, 10, 12, 14, 16]),
    where=st.integers(min_value=0, max_value=10**6),
    points=st.lists(st.integers(min_value=0, max_value=100), max_size=3),
)
def test_ccm(c, key, nonce, aad, data, tag_len, where, points):
    rk = c.expand_key(key)
    ct, tag = aead.ccm_encrypt(c, rk, nonce, aad, data, tag_len)
    assert aead.ccm_decrypt(c, rk, nonce, aad, ct, tag) == data
    s = aead.CcmStream(c, rk, nonce, "decrypt", aad, len(ct), tag_len)
    assert b"".join(s.update(p) for p in cuts(ct, points)) == data
    s.finish_decrypt(tag)
    for ct2, tag2, aad2 in tampered(ct, tag, aad, where):
        with pytest.raises(AuthenticationError):
            aead.ccm_decrypt(c, rk, nonce, aad2, ct2, tag2)


@SETTINGS
@given(
    key=st.binary(min_size=32, max_size=32),
    tweak=st.binary(min_size=16, max_size=16),
    data=st.binary(min_size=16, max_size=80),
)
def test_xts_round_trip(c, key, tweak, data):
    if key[:16] == key[16:]:
        return
    ct = aead.xts_encrypt(c, key, tweak, data)
    assert len(ct) == len(data)
    assert aead.xts_decrypt(c, key, tweak, ct) == data


@SETTINGS
@given(
    name=st.sampled_from(["lea128", "hight"]),
    key=st.binary(min_size=16, max_size=16),
    msg=st.binary(max_size=60),
    points=st.lists(st.integers(min_value=0, max_value=100), max_size=4),
)
def test_cmac_stream_equals_one_shot(make_ref, name, key, msg, points):
    c = make_ref(name)
    rk = c.expand_key(key)
    s = aead.CmacStream(c, rk)
    for piece in cuts(msg, points):
        s.update(piece)
    assert s.finish() == aead.cmac(c, rk, msg)
