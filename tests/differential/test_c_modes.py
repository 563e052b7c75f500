"""Target c vs the interpreter: every cipher x C schedule x kernel variant x mode x direction, through the
library's own ECB/CBC/CTR entry points.  Every variant this CPU runs is run (keys set up for it with
set_key_isa); a variant it lacks is checked to be reported absent (and listed at the end of the session).
Lengths: 0, 1 and every lane boundary +-1 block (+-1 byte for CTR), counters just below 2^32, 2^64 (and
2^128 for 128-bit blocks); random lengths and keys (hypothesis) and one multi-MB case per cipher on the
default variant.  Each (cipher, schedule) compiles once (runtime cache, session fixture)."""

from __future__ import annotations

import numpy as np
import pytest
from c_support import block_counts, byte_lengths, c_matrix, check_modes, random_bytes, variant_lanes, variant_matrix
from cpu import ABSENT, has_level
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cipherspec import modes
from cipherspec.errors import UsageError

MATRIX = c_matrix()
# a bitsliced library takes the C compiler a minute or more on an empty cache
CASES = [pytest.param(n, s, id=s, marks=[pytest.mark.slow] if "_bitsliced_" in s else []) for n, s in MATRIX]
VARIANTS = [
    pytest.param(n, s, v, id=f"{s}-{v}", marks=[pytest.mark.slow] if "_bitsliced_" in s else [])
    for n, s, v in variant_matrix()
]


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


def _variant(c_cipher, name: str, schedule: str, variant: str):
    """The library with keys set up for ``variant``; None (and recorded) when this CPU lacks it, after
    checking that the library says so too and refuses it with a clear error."""
    c = c_cipher(name, schedule)
    assert variant in c.variants()
    if not has_level(variant):
        assert c.variant_for(variant) is None, f"{variant}: the library claims this CPU runs it"
        with pytest.raises(UsageError, match=f"ISA level '{variant}' cannot run here"):
            c.with_isa(variant).expand_key(bytes(c.key_bytes))
        ABSENT.add((name, variant))
        return None
    assert c.variant_for(variant) == variant
    return c.with_isa(variant)


@pytest.mark.parametrize("name,schedule,variant", VARIANTS)
def test_lane_boundaries(name, schedule, variant, c_cipher, make_ref):
    c, ref = _variant(c_cipher, name, schedule, variant), make_ref(name)
    if c is None:
        return
    assert c.schedule.name == schedule
    rng = np.random.default_rng(len(schedule))
    key, iv = random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes)
    n = variant_lanes(c.module, c.schedule, variant)
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
    check_modes(c, ref, random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes), random_bytes(rng, length))


@pytest.mark.parametrize("name,schedule,variant", VARIANTS)
def test_counter_carry_and_wrap(name, schedule, variant, c_cipher, make_ref):
    """IVs just below 2^32, 2^64 and 2^bits: the carry crosses words, then the whole counter wraps."""
    c, ref = _variant(c_cipher, name, schedule, variant), make_ref(name)
    if c is None:
        return
    rng = np.random.default_rng(7)
    key = random_bytes(rng, c.key_bytes)
    rk, rr = c.expand_key(key), ref.expand_key(key)
    bits = 8 * c.block_bytes
    n = variant_lanes(c.module, c.schedule, variant)
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
    check_modes(
        c, ref, random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes), data, both_ctr_directions=False
    )


@pytest.mark.parametrize("variant", ["gfni_avx512", "vaes_avx512", "gfni_avx2", "vaes_avx2", "aesni"])
def test_byte_sliced_ctr_counter_bytes(variant, c_cipher, make_ref):
    """The byte-sliced CTR's counter blocks made in registers (fragments/byte_slices_ctr.c): runs whose
    byte 15 wraps (the carry into byte 14 per lane), whose byte 14 is 0xff (the carry goes on: through
    memory), and neither, on each register width and S-box form (GFNI or AES instructions; ARIA-128, the shipped
    byte-sliced cipher)."""
    if not has_level(variant):
        pytest.skip(f"this CPU lacks {variant}")
    c, ref = c_cipher("aria128").with_isa(variant), make_ref("aria128")
    rng = np.random.default_rng(14)
    key = random_bytes(rng, 16)
    rk, rr = c.expand_key(key), ref.expand_key(key)
    lanes = variant_lanes(c.module, c.schedule, variant)
    data = random_bytes(rng, 3 * lanes * 16 + 7)
    for b14 in (0x00, 0x7E, 0xFE, 0xFF):
        for b15 in (0, 1, 255 - lanes, 256 - lanes, 257 - lanes, 200, 255):
            iv = random_bytes(rng, 14) + bytes([b14, b15])
            got, next_iv = c.ctr(rk, iv, data)
            assert (got, next_iv) == modes.ctr(ref, rr, iv, data), (variant, iv.hex())
