"""Target c vs the interpreter: every cipher x C schedule x mode x direction, through the library's own
ECB/CBC/CTR entry points.  Lengths: 0, 1 and every lane boundary +-1 block (+-1 byte for CTR), random
lengths and keys (hypothesis), counters just below 2^32, 2^64 (and 2^128 for 128-bit blocks), one
multi-MB case per cipher.  Each (cipher, schedule) compiles once (runtime cache, session fixture)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c_support import block_counts, byte_lengths, c_matrix, check_modes, random_bytes
from cipherspec import modes

MATRIX = c_matrix()
# a bitsliced library takes the C compiler a minute or more on an empty cache
CASES = [pytest.param(n, s, id=s, marks=[pytest.mark.slow] if "_bitsliced_" in s else []) for n, s in MATRIX]


@pytest.fixture(scope="session")
def c_cipher(registry):
    from generator.c import BACKEND

    make_cipher = BACKEND.load

    cache = {}

    def make(name: str, schedule: str | None = None):
        if (name, schedule) not in cache:
            cache[(name, schedule)] = make_cipher(registry, name, None, schedule)
        return cache[(name, schedule)]

    return make


def _lanes(c) -> int:
    from generator.c.schedules import lanes

    return lanes(c.module, c.schedule)


@pytest.mark.parametrize("name,schedule", CASES)
def test_lane_boundaries(name, schedule, c_cipher, make_ref):
    c, ref = c_cipher(name, schedule), make_ref(name)
    assert c.schedule.name == schedule
    rng = np.random.default_rng(len(schedule))
    key, iv = random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes)
    n = _lanes(c)
    for blocks in block_counts(n):
        check_modes(c, ref, key, iv, random_bytes(rng, blocks * c.block_bytes))
    rr, rk = ref.expand_key(key), c.expand_key(key)
    for length in byte_lengths(n, c.block_bytes):
        data = random_bytes(rng, length)
        assert c.ctr(rk, iv, data) == modes.ctr(ref, rr, iv, data), f"CTR {length} bytes"


@pytest.mark.parametrize("name,schedule", CASES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**64 - 1), length=st.integers(0, 300))
def test_random_keys_ivs_lengths(name, schedule, seed, length, c_cipher, make_ref):
    c, ref = c_cipher(name, schedule), make_ref(name)
    rng = np.random.default_rng(seed)
    check_modes(c, ref, random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes),
                random_bytes(rng, length))


@pytest.mark.parametrize("name,schedule", CASES)
def test_counter_carry_and_wrap(name, schedule, c_cipher, make_ref):
    """IVs just below 2^32, 2^64 and 2^bits: the carry crosses words, then the whole counter wraps."""
    c, ref = c_cipher(name, schedule), make_ref(name)
    rng = np.random.default_rng(7)
    key = random_bytes(rng, c.key_bytes)
    rk, rr = c.expand_key(key), ref.expand_key(key)
    bits = 8 * c.block_bytes
    n = _lanes(c)
    length = (2 * n + 3) * c.block_bytes + 5
    for k in sorted({32, 64, bits}):
        high = int.from_bytes(random_bytes(rng, c.block_bytes), "big") >> k << k
        for below in (1, n, 2 * n + 1):
            iv = ((high + (1 << k) - below) % (1 << bits)).to_bytes(c.block_bytes, "big")
            data = random_bytes(rng, length)
            got, next_iv = c.ctr(rk, iv, data)
            want, want_iv = modes.ctr(ref, rr, iv, data)
            assert got == want, f"CTR from IV {iv.hex()}"
            assert next_iv == want_iv


DEFAULTS = sorted({name for name, _ in MATRIX})


@pytest.mark.parametrize("name", DEFAULTS)
def test_multi_megabyte_default_schedule(name, c_cipher, make_ref):
    c, ref = c_cipher(name), make_ref(name)
    rng = np.random.default_rng(3)
    data = random_bytes(rng, (1 << 20) + 7)  # 1 MiB + 7 bytes
    check_modes(c, ref, random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes), data,
                both_ctr_directions=False)
