"""The C library's CTR_DRBG (generator/drbg) against the Python one, the vectors, and its limits."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cipherspec.drbg import CtrDrbg, DrbgError
from cipherspec.drbg_kat import make_drbg_runner
from cipherspec.kat import FileReport, parse_kat_file
from driver.targets import make_cipher

CIPHERS = ["aes128", "aes256", "lea128", "aria128", "cham128_128", "hight"]


@pytest.fixture(scope="module")
def c_cipher(registry):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = make_cipher(registry, name, target="c")
        return cache[name]

    return get


@pytest.mark.parametrize("name,count", [("ctr_drbg_aes.txt", 6), ("ctr_drbg_kisa_sample.txt", 1)])
def test_vectors_through_the_c_drbg(vectors, c_cipher, name, count):
    made = []

    def make(cipher, rounds):
        c = c_cipher(cipher)
        made.append(type(c.make_drbg()).__name__)
        return c

    report = FileReport(name)
    make_drbg_runner(make)([b for b in parse_kat_file(vectors / name) if b.is_drbg], report)
    assert report.failures == [] and report.passed == count
    assert set(made) == {"CDrbg"}


@pytest.mark.parametrize("name", CIPHERS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_c_equals_python(c_cipher, make_ref, name, data):
    c, ref = c_cipher(name), make_ref(name)
    df = data.draw(st.booleans(), label="df")
    seed = c.key_bytes + c.block_bytes
    draw = lambda n, label: data.draw(st.binary(min_size=n, max_size=n), label=label)  # noqa: E731
    entropy = draw(c.key_bytes + data.draw(st.integers(0, 9)) if df else seed, "entropy")
    nonce = draw(c.key_bytes // 2, "nonce") if df else b""
    pers = draw(data.draw(st.integers(0, 40 if df else seed)), "pers")
    a, b = c.make_drbg(use_df=df, reseed_interval=3), CtrDrbg(ref, use_df=df, reseed_interval=3)
    a.instantiate(entropy, nonce, pers)
    b.instantiate(entropy, nonce, pers)
    for _step in range(data.draw(st.integers(1, 4), label="requests")):
        n = data.draw(st.integers(0, 300), label="n")
        add = draw(data.draw(st.integers(0, 40 if df else seed)), "add")
        re = draw(c.key_bytes if df else seed, "reseed entropy")
        assert a.generate(n, add, entropy=re) == b.generate(n, add, entropy=re)


@pytest.mark.parametrize("name", ["lea128", "aria128", "aes128"])
def test_plan_equals_python_plan(c_cipher, make_ref, name):
    """The C drbg_plan gives each request's (Key, V) exactly as the Python plan, reseeding where due (ARIA: its
    update's keys from the encrypt-only key schedule; AES: set_key's S-boxes in register batches)."""
    entropy, nonce = os.urandom(16), os.urandom(8)
    reseeds = [os.urandom(16) for _ in range(3)]
    feeds = [iter(reseeds), iter(reseeds)]
    a = c_cipher(name).make_drbg(reseed_interval=4, entropy_source=lambda n: next(feeds[0]))
    b = CtrDrbg(make_ref(name), reseed_interval=4, entropy_source=lambda n: next(feeds[1]))
    for d in (a, b):
        d.instantiate(entropy, nonce)
    plan_c, plan_py = a.plan_bulk(10_000, 1024), b.plan_bulk(10_000, 1024)
    assert len(plan_c) == 10 and plan_c[-1].nbytes == 10_000 - 9 * 1024
    assert [(r.key, r.v, r.nblocks, r.nbytes) for r in plan_c] == [(r.key, r.v, r.nblocks, r.nbytes) for r in plan_py]
    assert a.generate(40) == b.generate(40)


def _raw(lib, name, fn, args, res=ctypes.c_int):
    f = getattr(lib, f"{name}_drbg_{fn}")
    f.argtypes, f.restype = args, res
    return f


def test_error_codes_through_ctypes(c_cipher):
    c = c_cipher("aes128")
    P, S, U, I = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_int
    inst = _raw(c.lib, "aes128", "instantiate", [P, I, I, U, P, S, P, S, P, S])
    gen = _raw(c.lib, "aes128", "generate", [P, P, S, P, S, P, S])
    size = _raw(c.lib, "aes128", "size", [], S)
    st_ = ctypes.create_string_buffer(size())  # the state holds the key schedule: its size is the library's
    out = ctypes.create_string_buffer(70000)
    e, n = ctypes.c_char_p(bytes(16)), ctypes.c_char_p(bytes(8))
    assert gen(st_, out, 16, None, 0, None, 0) == -6  # not instantiated
    assert inst(None, 1, 0, 0, e, 16, n, 8, None, 0) == -1  # NULL state
    assert inst(st_, 1, 0, 0, e, 15, n, 8, None, 0) == -4  # entropy below the strength
    assert inst(st_, 1, 0, 0, e, 16, n, 7, None, 0) == -4  # nonce below half the strength
    assert inst(st_, 1, 0, (1 << 48) + 1, e, 16, n, 8, None, 0) == -4  # reseed interval
    assert inst(st_, 0, 0, 0, e, 16, None, 0, None, 0) == -4  # no df: entropy must be seedlen
    assert inst(st_, 1, 1, 0, e, 16, n, 8, None, 0) == 0
    assert gen(st_, out, 65537, None, 0, None, 0) == -4  # more than 2^19 bits
    assert gen(st_, out, 16, None, 0, None, 0) == -5  # PR: a reseed needs entropy
    assert gen(st_, out, 16, None, 0, e, 16) == 0
    assert gen(st_, None, 16, None, 0, e, 16) == -1


def test_python_errors_from_the_c_drbg(c_cipher):
    d = c_cipher("lea128").make_drbg()
    with pytest.raises(DrbgError, match="not instantiated"):
        d.generate(16)
    with pytest.raises(DrbgError, match=r"^the entropy input is 8 bytes; .* \(16 bytes\)$"):  # the one limit broken
        d.instantiate(bytes(8), bytes(8))
    with pytest.raises(DrbgError, match=r"^the nonce is 4 bytes; .* at least 8 "):
        d.instantiate(bytes(16), bytes(4))
    d.instantiate(bytes(16), bytes(8))
    with pytest.raises(DrbgError, match=r"at most 2\^19 bits"):
        d.generate(65537)


def test_cli_c_target_equals_ref():
    args = ["drbg", "hight", "--entropy", "11" * 16, "--nonce", "22" * 8, "--bytes", "3000", "--hex"]
    outs = [
        subprocess.run([sys.executable, "-m", "driver", *args, "--target", t], capture_output=True, timeout=300)
        for t in ("ref", "c")
    ]
    assert outs[0].returncode == outs[1].returncode == 0, outs[1].stderr
    assert outs[0].stdout == outs[1].stdout and len(outs[0].stdout.strip()) == 6000


def test_drbg_key_has_no_decryption_round_keys(c_cipher):
    """ARIA's DRBG Key comes from the encrypt-only schedule: its ek equals a full set_key's, its dk (which
    encrypt never reads) is zero -- so no earlier Key's decryption keys stay in the state either."""
    c = c_cipher("aria128")
    d = c.make_drbg()
    d.instantiate(os.urandom(16), os.urandom(8))
    for _ in range(3):
        d.generate(100)
    key_size = c.lib.aria128_key_size
    key_size.restype = ctypes.c_size_t
    ks_bytes = key_size()
    raw = d._state.raw
    ek, dk, key = raw[8:216], raw[216:424], raw[ks_bytes : ks_bytes + 16]  # P_key: variant, ghash, ek, dk, ...
    assert any(ek) and not any(dk)
    full = ctypes.create_string_buffer(ks_bytes)
    set_key = c.lib.aria128_set_key
    set_key.argtypes, set_key.restype = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t], ctypes.c_int
    assert set_key(full, key, 16) == 0
    assert full.raw[8:216] == ek and any(full.raw[216:424])
